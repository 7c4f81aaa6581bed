/** Where a broken JSON text is broken, where flow brackets nest too deeply, and which keys a JSON object repeats. */
import { describe, expect, it } from 'vitest';
import { flowDepthExceeded, jsonMemberBound, jsonSyntaxProblem, locationAt, locationsAt, offsetsAt, repeatedJsonKeys } from '../../src/engine/config/text-scan.js';

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

/** The keys of the objects of parsed JSON, as the depth check counts them. */
function keysOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + keysOf(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, item) => sum + 1 + keysOf(item), 0);
}

describe('jsonMemberBound', () => {
  it.each([
    ['{}', 0],
    ['[1, "a:b", {"url": "https://x:8443/a"}]', 1],
    ['{ "a" \n\t : 1, "b": {"c": [ {"d": null} ]} }', 4],
    // An escaped quote is inside a string, as is the colon after it.
    ['{"a": "say \\": x", "b\\\\": 1}', 2],
  ])('counts the members of %j exactly when no string starts with a colon', (text, members) => {
    expect(jsonMemberBound(text)).toBe(members);
    expect(keysOf(JSON.parse(text))).toBe(members);
  });

  it('counts a string that starts with a colon too: an upper bound, never below the members', () => {
    const text = '{"a": ":)", "b": " : x"}';
    expect(jsonMemberBound(text)).toBe(4);
    expect(keysOf(JSON.parse(text))).toBe(2);
  });

  it('is more than the parsed keys when an object repeats one', () => {
    const text = '{"a": 1, "a": 2}';
    expect(jsonMemberBound(text)).toBe(2);
    expect(keysOf(JSON.parse(text))).toBe(1);
  });
});

describe('repeatedJsonKeys', () => {
  it('finds each repeat in its own object, pointing at the first: nested objects, lists of objects and strings with brackets, quotes and colons do not confuse it', () => {
    const text = '{"a": {"a": 1, "b": "}{[\\"a\\": "}, "list": [{"a": 1}, {"a": 2, "a": 3, "a": 4}], "a": "x", "k\\u0061": 0, "ka": 1}';
    const at = (needle: string, from = 0): number => text.indexOf(needle, from);
    expect(repeatedJsonKeys(text, 10)).toEqual({
      repeated: [
        { key: 'a', offset: at('"a": 3'), first: at('"a": 2') },
        { key: 'a', offset: at('"a": 4'), first: at('"a": 2') },
        { key: 'a', offset: at('"a": "x"'), first: 1 },
        { key: 'ka', offset: at('"ka"'), first: at('"k\\u0061"') },
      ],
      total: 4,
    });
  });

  it('finds none where every object has each key once', () => {
    expect(repeatedJsonKeys('{"a": {"a": {"a": []}}, "b": [{"a": 1}, {"a": 1}], "c": ": \\" :"}', 10)).toEqual({ repeated: [], total: 0 });
  });

  it('lists at most `max`, and counts them all', () => {
    const text = `{${Array.from({ length: 5 }, () => '"x": 1').join(', ')}}`;
    const found = repeatedJsonKeys(text, 2);
    expect(found.repeated.map((repeat) => repeat.offset)).toEqual([9, 17]);
    expect(found.total).toBe(4);
  });
});

describe('locationsAt', () => {
  it('places offsets given in any order as locationAt does, in one pass', () => {
    const text = 'ab\ncd\n\nefg';
    const offsets = [9, 0, 4, 7, 3, 100];
    expect(locationsAt('f', text, offsets)).toEqual(offsets.map((offset) => locationAt('f', text, offset)));
  });
});

describe('offsetsAt', () => {
  it('is the inverse of locationsAt, for locations given in any order', () => {
    const text = 'ab\ncd\n\nefg';
    const offsets = [9, 0, 4, 7, 3];
    expect(offsetsAt(text, locationsAt('f', text, offsets))).toEqual(offsets);
  });
});
