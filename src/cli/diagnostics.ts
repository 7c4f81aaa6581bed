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
export function renderDiagnostics(diagnostics: readonly Diagnostic[], io: Pick<CommandIO, 'cwd' | 'color'>): string {
  const lines = new Map<string, string[] | undefined>();
  const sourceLines = (file: string): string[] | undefined => {
    if (!lines.has(file)) {
      try {
        // Regular files only: a device or a FIFO named as the config would never end or never open.
        const path = resolve(io.cwd, file);
        const text = statSync(path).isFile() ? readFileSync(path, 'utf8') : '\u0000';
        lines.set(file, text.includes('\u0000') ? undefined : text.split(/\r?\n/));
      } catch {
        lines.set(file, undefined);
      }
    }
    return lines.get(file);
  };
  const paint = (colour: keyof typeof colours, text: string): string => (io.color ? `${colours[colour]}${text}${colours.reset}` : text);
  let output = '';
  for (const diagnostic of diagnostics) {
    const location = diagnostic.location;
    // Messages, addresses and source lines may quote the portal or the file: shown, never acted on by the terminal.
    const where = location ? `${terminalText(location.file)}:${location.line}:${location.column}: ` : '';
    const address = diagnostic.address ? ` [${terminalText(diagnostic.address)}]` : '';
    output += `${where}${paint(diagnostic.severity, diagnostic.severity)}: ${terminalText(diagnostic.message)}${address} (${diagnostic.code})\n`;
    const line = location ? sourceLines(location.file)?.[location.line - 1] : undefined;
    if (location && line !== undefined) {
      const gutter = String(location.line);
      const excerpt = terminalText(line.length > 160 ? `${line.slice(0, 160)}...` : line, { lines: true });
      output += `  ${paint('dim', `${gutter} |`)} ${excerpt}\n`;
      output += `  ${' '.repeat(gutter.length)} ${paint('dim', '|')} ${' '.repeat(Math.max(0, location.column - 1))}${paint(diagnostic.severity, '^')}\n`;
    }
    const details = [
      'value' in diagnostic && diagnostic.value !== undefined ? `value: ${formatValue(diagnostic.value)}` : undefined,
      diagnostic.expected ? `expected: ${terminalText(diagnostic.expected)}` : undefined,
    ].filter(Boolean);
    if (details.length > 0) output += `  ${details.join('; ')}\n`;
  }
  return output;
}
