/** Where a broken JSON text is broken, and where flow brackets nest too deeply. */
import { describe, expect, it } from 'vitest';
import { flowDepthExceeded, jsonSyntaxProblem } from '../../src/engine/config/text-scan.js';

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
