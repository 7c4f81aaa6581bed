/** Where a broken JSON text is broken, and where flow brackets nest too deeply. */
import { describe, expect, it } from 'vitest';
import { flowDepthExceeded, jsonKeyCount, jsonSyntaxProblem, repeatedJsonKeys } from '../../src/engine/config/text-scan.js';

describe('jsonSyntaxProblem', () => {
  it.each([
    ['', 0, 'Unexpected end of file; expected a value.'],
    ['{"a": 1,}', 8, 'Unexpected "}" after ","; JSON allows no trailing comma.'],
    ['[1 2]', 3, 'Unexpected "2"; expected "," or "]".'],
    ['{"a" 1}', 5, 'Unexpected "1"; expected ":" after the property name.'],
    ["{'a': 1}", 1, 'Unexpected "\'"; expected a property name in double quotes.'],
    ['{"a": tru}', 6, 'Unexpected "t"; expected a value.'],
    ['{"a": "x\ny"}', 8, 'A string is not closed before the end of the line.'],
    ['{"a": "\\q"}', 7, 'Invalid escape in a string.'],
    ['{"a": 1} x', 9, 'Unexpected "x" after the end of the document.'],
    ['{"a": [1, {"b": 2}]', 19, 'Unexpected end of file; expected "," or "}".'],
    ['{"a": 01}', 7, 'Unexpected "1"; expected "," or "}".'],
  ])('%j', (text, offset, message) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxProblem(text)).toEqual({ offset, message });
  });

  it('is iterative: 100,000 open brackets do not exhaust the stack', () => {
    expect(jsonSyntaxProblem('['.repeat(100_000))).toEqual({ offset: 100_000, message: 'Unexpected end of file; expected a value.' });
  });
});

describe('flowDepthExceeded', () => {
  it('finds the bracket that opens one level too many, skipping strings and comments', () => {
    expect(flowDepthExceeded('a: [[[x]]]', 3)).toBeUndefined();
    expect(flowDepthExceeded('a: [[[[x]]]]', 3)).toBe(6);
    expect(flowDepthExceeded('a: "[[[[" # [[[[\nb: \'[[[[\'', 3)).toBeUndefined();
  });
});

describe('jsonKeyCount', () => {
  /** The keys JSON.parse keeps, counted as a walk of its data does. */
  const kept = (value: unknown): number =>
    typeof value !== 'object' || value === null ? 0 : Array.isArray(value) ? value.reduce((sum: number, item) => sum + kept(item), 0) : Object.entries(value).reduce((sum, [, item]) => sum + 1 + kept(item), 0);

  it.each([
    ['{}', 0],
    ['{"a": 1, "b": {"c": [1, {"d": null}]}}', 4],
    ['{"url": "http://x:80/a", "t": "12:30"}', 2],
    // A quote before a colon inside a string is escaped; an escaped backslash before a key's closing quote is not.
    ['{"a": "b\\": c", "k\\\\": 1}', 2],
    ['{ "a"\n  :\t1 , "b" \r\n: 2 }', 2],
    ['["a:b", "c" ]', 0],
    ['{"__proto__": {"x": 1}}', 2],
  ])('%j writes %i keys, as many as JSON.parse keeps', (text, keys) => {
    expect(jsonKeyCount(text)).toBe(keys);
    expect(kept(JSON.parse(text))).toBe(keys);
  });

  it('counts a repeated key that JSON.parse drops', () => {
    const text = '{"a": 1, "a": 2}';
    expect(jsonKeyCount(text)).toBe(2);
    expect(kept(JSON.parse(text))).toBe(1);
  });
});

describe('repeatedJsonKeys', () => {
  it('names each key written again in its object, with where it was first, and no key of another object', () => {
    const text = '{"a": 1, "b": {"a": 2, "x": "\\"a\\": 3"}, "a": 4, "c": [{"k": 1}, {"k": 2, "\\u006b": 3}], "a": 5}';
    expect(JSON.parse(text)).toBeTruthy();
    expect(repeatedJsonKeys(text)).toEqual([
      { name: 'a', offset: text.indexOf('"a": 4'), first: 1 },
      { name: 'k', offset: text.indexOf('"\\u006b"'), first: text.lastIndexOf('"k": 2') },
      { name: 'a', offset: text.indexOf('"a": 5'), first: 1 },
    ]);
  });

  it('finds none where every key is once per object', () => {
    expect(repeatedJsonKeys('{"a": {"a": {"a": []}}, "b": ["a", "a"]}')).toEqual([]);
  });
});
