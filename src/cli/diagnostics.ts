/** Diagnostics for people: `file:line:column: severity: message [address]`, the source line and a caret. */
import { Buffer } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import { terminalText } from '../engine/render/escape.js';
import type { CommandIO } from './io.js';
import { shownPieces, urlPieces } from '../api/url.js';

const colours = { error: '\u001b[31m', warning: '\u001b[33m', dim: '\u001b[2m', reset: '\u001b[0m' };

function formatValue(value: unknown): string {
  const text = terminalText(typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Bytes read at a time when looking for the lines a diagnostic shows. */
const CHUNK_BYTES = 1 << 20;

/**
 * The lines `wanted` (1-based, without their line breaks) of the file at `path`, read in chunks
 * up to the last of them; undefined for what is not a regular text file (a device or a FIFO named
 * as the config would never end; a NUL byte says binary). Only the wanted lines are kept: reading
 * a large config (100 MB, millions of lines) whole to show one of its lines cost more memory than
 * anything else a failed validation did. Lines end as the config reader counts them: at LF, CRLF
 * or a lone CR (an old Mac file is one "line" of LFs).
 */
function readLines(path: string, wanted: ReadonlySet<number>): Map<number, string> | undefined {
  // Without blocking: opening a FIFO to read waits for a writer.
  const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    if (!fstatSync(descriptor).isFile()) return undefined;
    const lines = new Map<number, string>();
    const last = Math.max(...wanted);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // The current line's bytes so far, when it is wanted.
    let parts: Buffer[] = [];
    let line = 1;
    // The previous chunk ended with a CR: an LF starting this one belongs to that line break.
    let afterCr = false;
    const keep = (): void => {
      lines.set(line, Buffer.concat(parts).toString('utf8'));
      parts = [];
    };
    let atStart = true;
    for (let read = readSync(descriptor, chunk); read > 0 && line <= last; read = readSync(descriptor, chunk)) {
      const bytes = chunk.subarray(0, read);
      if (bytes.includes(0)) return undefined;
      // LF text (most files) is searched for LFs alone.
      const crs = bytes.includes(13);
      // A byte-order mark is no part of line 1: columns count from after it, as the config reader does.
      let start = afterCr && bytes[0] === 10 ? 1 : atStart && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
      afterCr = false;
      atStart = false;
      while (start < read && line <= last) {
        const lf = bytes.indexOf(10, start);
        const cr = crs ? bytes.indexOf(13, start) : -1;
        const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
        if (wanted.has(line)) parts.push(Buffer.from(bytes.subarray(start, end === -1 ? read : end)));
        if (end === -1) break;
        if (wanted.has(line)) keep();
        line += 1;
        start = end + (bytes[end] === 13 && bytes[end + 1] === 10 ? 2 : 1);
        if (bytes[end] === 13 && end + 1 === read) afterCr = true;
      }
    }
    // The last line, which no line break ends (empty after a final one).
    if (wanted.has(line) && line <= last) keep();
    return lines;
  } finally {
    closeSync(descriptor);
  }
}

/** A URL in a source line: the file may hold its user name, password or a token in its query, the output must not. */
const URL_IN_LINE = /[a-z][a-z0-9+.-]*:\/\/[^\s'"`]+/gi;

/**
 * `line` with every URL as messages show one (shownUrl), and `column` moved to stay under the
 * same text: inside a masked piece, at its mask.
 */
function withoutUrlSecrets(line: string, column: number): { line: string; column: number } {
  let shift = 0;
  const masked = line.replace(URL_IN_LINE, (url: string, offset: number) => {
    const pieces = urlPieces(url);
    const shown = shownPieces(pieces);
    const order = ['scheme', 'credentials', 'location', 'query'] as const;
    let start = offset;
    for (const piece of order) {
      const written = pieces[piece].length;
      const change = written - shown[piece].length;
      if (column - 1 >= start + written) shift += change;
      // Inside a piece that is masked: at its mask (the location and the scheme are shown as written).
      else if (column - 1 > start && change !== 0) shift += column - 1 - start;
      start += written;
    }
    return order.map((piece) => shown[piece]).join('');
  });
  return { line: masked, column: column - shift };
}

/** How much of a source line a diagnostic shows. */
const EXCERPT_CHARS = 160;

/** Human diagnostics: `file:line:column: severity: message [address]`, the source line, a caret, value and expectation. */
export function renderDiagnostics(diagnostics: readonly Diagnostic[], io: Pick<CommandIO, 'cwd' | 'color'>): string {
  const sources = new Map<string, Map<number, string> | undefined>();
  const sourceLine = (file: string, line: number): string | undefined => {
    if (!sources.has(file)) {
      // Every line shown of this file, read in one pass.
      const wanted = new Set(diagnostics.flatMap(({ location }) => (location?.file === file ? [location.line] : [])));
      try {
        sources.set(file, readLines(resolve(io.cwd, file), wanted));
      } catch {
        sources.set(file, undefined);
      }
    }
    return sources.get(file)?.get(line);
  };
  const paint = (colour: keyof typeof colours, text: string): string => (io.color ? `${colours[colour]}${text}${colours.reset}` : text);
  let output = '';
  for (const diagnostic of diagnostics) {
    const location = diagnostic.location;
    // Messages, addresses and source lines may quote the portal or the file: shown, never acted on by the terminal.
    const where = location ? `${terminalText(location.file)}:${location.line}:${location.column}: ` : '';
    const address = diagnostic.address ? ` [${terminalText(diagnostic.address)}]` : '';
    output += `${where}${paint(diagnostic.severity, diagnostic.severity)}: ${terminalText(diagnostic.message)}${address} (${diagnostic.code})\n`;
    const source = location ? sourceLine(location.file, location.line) : undefined;
    if (location && source !== undefined) {
      const gutter = String(location.line);
      const { line, column } = withoutUrlSecrets(source, location.column);
      // A long line (minified JSON is one line) is shown around the column, so the caret stays under it.
      const from = line.length <= EXCERPT_CHARS ? 0 : Math.max(0, Math.min(column - 1 - EXCERPT_CHARS / 2, line.length - EXCERPT_CHARS));
      const cut = `${from > 0 ? '...' : ''}${line.slice(from, from + EXCERPT_CHARS)}${from + EXCERPT_CHARS < line.length ? '...' : ''}`;
      const caret = (from > 0 ? 3 : 0) + Math.max(0, column - 1 - from);
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
