/**
 * How a diagnostic shows its source line: the line by number whatever the line breaks, nothing
 * for a line the file does not have, and a long line (minified JSON is one) cut around the
 * column with the caret under it.
 */
import { Buffer } from 'node:buffer';
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

  it('by number with lone CR breaks too (classic Mac OS), and a CRLF split between two reads is one break', () => {
    writeFileSync(join(cwd, 'mac.yaml'), 'first: 1\rsecond: 2\r\rfourth: 4\nfifth: 5\r');
    const shown = (file: string, line: number, column: number): string => renderDiagnostics([at(file, line, column)], { cwd, color: false });
    expect(shown('mac.yaml', 2, 9)).toBe('mac.yaml:2:9: error: Here. (test/here)\n  2 | second: 2\n    |         ^\n');
    expect(shown('mac.yaml', 3, 1)).toBe('mac.yaml:3:1: error: Here. (test/here)\n  3 | \n    | ^\n');
    expect(shown('mac.yaml', 4, 9)).toBe('mac.yaml:4:9: error: Here. (test/here)\n  4 | fourth: 4\n    |         ^\n');
    expect(shown('mac.yaml', 5, 1)).toBe('mac.yaml:5:1: error: Here. (test/here)\n  5 | fifth: 5\n    | ^\n');
    // The first read ends between the CR and the LF of line 1's break.
    const first = 'x'.repeat((1 << 20) - 1);
    writeFileSync(join(cwd, 'split-crlf.yaml'), `${first}\r\nsecond: 2\r\n`);
    expect(shown('split-crlf.yaml', 2, 1)).toBe('split-crlf.yaml:2:1: error: Here. (test/here)\n  2 | second: 2\n    | ^\n');
    expect(shown('split-crlf.yaml', 3, 1)).toBe('split-crlf.yaml:3:1: error: Here. (test/here)\n  3 | \n    | ^\n');
  });

  it('line 1 without a byte-order mark: columns count from after it, as the config reader counts them', () => {
    writeFileSync(join(cwd, 'bom.yaml'), '\ufeffversion: 2\nsecond: \ufeff\n');
    const shown = (line: number, column: number): string => renderDiagnostics([at('bom.yaml', line, column)], { cwd, color: false });
    expect(shown(1, 10)).toBe('bom.yaml:1:10: error: Here. (test/here)\n  1 | version: 2\n    |          ^\n');
    // Elsewhere U+FEFF is a character of its line (shown escaped, as any invisible one).
    expect(shown(2, 9)).toBe('bom.yaml:2:9: error: Here. (test/here)\n  2 | second: \\ufeff\n    |         ^\n');
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

  it('lines of a file larger than a read, cut anywhere: across reads, a character split between them, several in one pass', () => {
    // Lines of 1,001 bytes with their break; line 1,048 runs over the first MiB read, with `é` (two bytes) split by it.
    const lines = Array.from({ length: 3000 }, (_, index) => `${String(index + 1).padStart(6, '0')}:${'x'.repeat(993)}`);
    const boundary = 1 << 20;
    const straddling = Math.floor(boundary / 1001) + 1;
    const offset = boundary - (straddling - 1) * 1001 - 1;
    const line = lines[straddling - 1] as string;
    lines[straddling - 1] = `${line.slice(0, offset)}é${line.slice(offset + 2)}`;
    writeFileSync(join(cwd, 'large.yaml'), `${lines.join('\n')}\n`);
    expect(Buffer.from(`${lines.slice(0, straddling - 1).join('\n')}\n${lines[straddling - 1]}`).indexOf('é')).toBe(boundary - 1);
    const wanted = [1, straddling, 2999, 3000, 3001, 3002];
    const shown = renderDiagnostics(
      wanted.map((number) => at('large.yaml', number, number === straddling ? offset + 1 : 1)),
      { cwd, color: false },
    );
    const excerpts = shown.split('\n').filter((text) => / \| (?!\s*\^)/.test(text));
    // Line 3001 is the empty line after the last line break; 3002 is past the end.
    expect(excerpts.map((text) => text.split(' | ')[0]?.trim())).toEqual(['1', String(straddling), '2999', '3000', '3001']);
    const split = excerpts.find((text) => text.startsWith(`  ${straddling} |`));
    expect(split).toContain(`${'x'.repeat(20)}é${'x'.repeat(20)}`);
    expect(split).not.toContain('\uFFFD');
    for (const number of [1, 2999, 3000]) {
      const expected = (lines[number - 1] as string).slice(0, 160);
      expect(excerpts.find((text) => text.startsWith(`  ${number} |`))).toBe(`  ${number} | ${expected}...`);
    }
    expect(excerpts.find((text) => text.startsWith('  3001 |'))).toBe('  3001 | ');
  });

  it('a URL\'s user name and password are not shown; the caret stays under the same text', () => {
    writeFileSync(join(cwd, 'secret.yaml'), "  url: https://admin:s3cr3t@gis.example.com/portal, state: 'postgres://ci:hunter22@db/states' # x\n");
    const shown = (column: number): string[] => renderDiagnostics([at('secret.yaml', 1, column)], { cwd, color: false }).split('\n');
    const [, excerpt, caret] = shown(8);
    expect(excerpt).toBe("  1 |   url: https://***@gis.example.com/portal, state: 'postgres://***@db/states' # x");
    expect(excerpt?.slice(caret?.indexOf('^')).startsWith('https://***@')).toBe(true);
    // After both URLs, inside the second's credentials (put at the mask), at the host.
    const after = shown(95);
    expect(after[1]?.slice(after[2]?.indexOf('^')).startsWith('# x')).toBe(true);
    const inside = shown(75);
    expect(after[1]?.slice(inside[2]?.indexOf('^')).startsWith('***@db')).toBe(true);
    const host = shown(29);
    expect(host[1]?.slice(host[2]?.indexOf('^')).startsWith('gis.example.com')).toBe(true);
    expect(shown(1).join('\n')).not.toMatch(/s3cr3t|hunter22|admin|ci:/);
  });

  it('a password with an unencoded / or @ is not shown either', () => {
    writeFileSync(join(cwd, 'slash.yaml'), '  url: https://admin:s3/cr@3t@gis.example.com/portal # x\n');
    const [, excerpt] = renderDiagnostics([at('slash.yaml', 1, 8)], { cwd, color: false }).split('\n');
    expect(excerpt).toBe('  1 |   url: https://***@gis.example.com/portal # x');
  });

  it("a token in a URL's query string is not shown; the caret stays under the same text", () => {
    writeFileSync(join(cwd, 'query.yaml'), '  url: https://gis.example.com/portal?token=Ab.Cd-12&f=json # x\n');
    const shown = (column: number): string[] => renderDiagnostics([at('query.yaml', 1, column)], { cwd, color: false }).split('\n');
    const [, excerpt, caret] = shown(8);
    expect(excerpt).toBe('  1 |   url: https://gis.example.com/portal?token=***&f=*** # x');
    expect(excerpt?.slice(caret?.indexOf('^')).startsWith('https://')).toBe(true);
    const after = shown(61);
    expect(after[1]?.slice(after[2]?.indexOf('^')).startsWith('# x')).toBe(true);
    const inside = shown(45);
    expect(inside[1]?.slice(inside[2]?.indexOf('^')).startsWith('?token=***')).toBe(true);
  });

  it('no line from what is not a text file: binary, a directory (a FIFO: test/e2e/hostile-files.test.ts)', () => {
    writeFileSync(join(cwd, 'binary.yaml'), Buffer.from('a: 1\n\u0000\u0001\n'));
    expect(renderDiagnostics([at('binary.yaml', 1, 1)], { cwd, color: false })).toBe('binary.yaml:1:1: error: Here. (test/here)\n');
    expect(renderDiagnostics([at('.', 1, 1)], { cwd, color: false })).toBe('.:1:1: error: Here. (test/here)\n');
  });
});
