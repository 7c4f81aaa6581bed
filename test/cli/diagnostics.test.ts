/**
 * How a diagnostic shows its source line: the line by number whatever the line breaks, nothing
 * for a line the file does not have, and a long line (minified JSON is one) cut around the
 * column with the caret under it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { renderDiagnostics } from '../../src/cli/diagnostics.js';

const cwd = mkdtempSync(join(tmpdir(), 'diagnostics-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function at(file: string, line: number, column: number): Diagnostic {
  return { severity: 'error', code: 'test/here', message: 'Here.', location: { file, line, column } };
}

describe('a diagnostic shows its line', () => {
  it('by number, with CRLF or LF breaks, the last line without one; nothing past the end', () => {
    writeFileSync(join(cwd, 'crlf.yaml'), 'first: 1\r\nsecond: 2\r\nthird: 3');
    const shown = (line: number, column: number): string => renderDiagnostics([at('crlf.yaml', line, column)], { cwd, color: false });
    expect(shown(2, 9)).toBe('crlf.yaml:2:9: error: Here. (test/here)\n  2 | second: 2\n    |         ^\n');
    expect(shown(3, 1)).toBe('crlf.yaml:3:1: error: Here. (test/here)\n  3 | third: 3\n    | ^\n');
    expect(shown(4, 1)).toBe('crlf.yaml:4:1: error: Here. (test/here)\n');
    expect(shown(0, 1)).toBe('crlf.yaml:0:1: error: Here. (test/here)\n');
  });

  it('a long line around its column, the caret under it; a short one whole', () => {
    const line = `${'a'.repeat(5000)}HERE${'b'.repeat(5000)}`;
    writeFileSync(join(cwd, 'long.json'), `${line}\n`);
    const [, excerpt, caret] = renderDiagnostics([at('long.json', 1, 5001)], { cwd, color: false }).split('\n');
    expect(excerpt).toMatch(/^ {2}1 \| \.\.\.a+HEREb+\.\.\.$/);
    expect(excerpt?.length).toBeLessThan(180);
    expect(excerpt?.slice(caret?.indexOf('^')).startsWith('HERE')).toBe(true);
    // Near the start: no leading cut.
    const [, start, startCaret] = renderDiagnostics([at('long.json', 1, 3)], { cwd, color: false }).split('\n');
    expect(start).toMatch(/^ {2}1 \| a{160}\.\.\.$/);
    expect(start?.[startCaret?.indexOf('^') ?? 0]).toBe('a');
    expect(startCaret?.indexOf('^')).toBe('  1 | '.length + 2);
  });
});
