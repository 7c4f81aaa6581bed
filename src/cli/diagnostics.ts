/** Diagnostics for people: `file:line:column: severity: message [address]`, the source line and a caret. */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { terminalText } from '../engine/render/escape.js';
import type { CommandIO } from './io.js';

const colours = { error: '\u001b[31m', warning: '\u001b[33m', dim: '\u001b[2m', reset: '\u001b[0m' };

function formatValue(value: unknown): string {
  const text = terminalText(typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Human diagnostics: `file:line:column: severity: message [address]`, the source line, a caret, value and expectation. */
/**
 * A file's lines by number, from where each starts: a large config (100 MB, millions of lines)
 * split into strings took a third of a gigabyte to show one line of it.
 */
class SourceLines {
  private readonly starts: Uint32Array;

  constructor(private readonly text: string) {
    let count = 1;
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
    this.starts = new Uint32Array(count);
    let line = 1;
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) this.starts[line++] = index + 1;
  }

  /** Line `number` (1-based) without its line break; undefined past the last. */
  line(number: number): string | undefined {
    if (number < 1 || number > this.starts.length) return undefined;
    const start = this.starts[number - 1] as number;
    const end = number < this.starts.length ? (this.starts[number] as number) - 1 : this.text.length;
    const line = this.text.slice(start, end);
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}

/** How much of a source line a diagnostic shows. */
const EXCERPT_CHARS = 160;

export function renderDiagnostics(diagnostics: readonly Diagnostic[], io: Pick<CommandIO, 'cwd' | 'color'>): string {
  const sources = new Map<string, SourceLines | undefined>();
  const sourceLine = (file: string, line: number): string | undefined => {
    if (!sources.has(file)) {
      try {
        // Regular files only: a device or a FIFO named as the config would never end or never open.
        const path = resolve(io.cwd, file);
        const text = statSync(path).isFile() ? readFileSync(path, 'utf8') : '\u0000';
        sources.set(file, text.includes('\u0000') ? undefined : new SourceLines(text));
      } catch {
        sources.set(file, undefined);
      }
    }
    return sources.get(file)?.line(line);
  };
  const paint = (colour: keyof typeof colours, text: string): string => (io.color ? `${colours[colour]}${text}${colours.reset}` : text);
  let output = '';
  for (const diagnostic of diagnostics) {
    const location = diagnostic.location;
    // Messages, addresses and source lines may quote the portal or the file: shown, never acted on by the terminal.
    const where = location ? `${terminalText(location.file)}:${location.line}:${location.column}: ` : '';
    const address = diagnostic.address ? ` [${terminalText(diagnostic.address)}]` : '';
    output += `${where}${paint(diagnostic.severity, diagnostic.severity)}: ${terminalText(diagnostic.message)}${address} (${diagnostic.code})\n`;
    const line = location ? sourceLine(location.file, location.line) : undefined;
    if (location && line !== undefined) {
      const gutter = String(location.line);
      // A long line (minified JSON is one line) is shown around the column, so the caret stays under it.
      const from = line.length <= EXCERPT_CHARS ? 0 : Math.max(0, Math.min(location.column - 1 - EXCERPT_CHARS / 2, line.length - EXCERPT_CHARS));
      const cut = `${from > 0 ? '...' : ''}${line.slice(from, from + EXCERPT_CHARS)}${from + EXCERPT_CHARS < line.length ? '...' : ''}`;
      const caret = (from > 0 ? 3 : 0) + Math.max(0, location.column - 1 - from);
      output += `  ${paint('dim', `${gutter} |`)} ${terminalText(cut, { lines: true })}\n`;
      output += `  ${' '.repeat(gutter.length)} ${paint('dim', '|')} ${' '.repeat(caret)}${paint(diagnostic.severity, '^')}\n`;
    }
    const details = [
      'value' in diagnostic && diagnostic.value !== undefined ? `value: ${formatValue(diagnostic.value)}` : undefined,
      diagnostic.expected ? `expected: ${terminalText(diagnostic.expected)}` : undefined,
    ].filter(Boolean);
    if (details.length > 0) output += `  ${details.join('; ')}\n`;
  }
  return output;
}
