/** `portalctl validate [PATH...]`: schema and rule checks, no network. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../../engine/diagnostics.js';
import { loadConfig, validateConfig } from '../../engine/config/index.js';
import { UsageError } from '../../errors.js';
import type { CommandIO } from '../io.js';

export interface ValidateOptions {
  format?: string;
}

/** Exit code 0 when there are no errors (warnings allowed), 1 otherwise. */
export async function validateCommand(paths: readonly string[], options: ValidateOptions, io: CommandIO): Promise<number> {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not "${format}".`);
  const loaded = await loadConfig(paths, { cwd: io.cwd, env: io.env });
  const diagnostics = validateConfig(loaded);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ valid: errors === 0, errors, warnings, files: loaded.sources, objects: loaded.objects.length, diagnostics }, null, 2)}\n`);
  } else {
    io.stdout(renderDiagnostics(diagnostics, io));
    const summary = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
    const verdict = errors === 0 ? `Valid: ${loaded.objects.length} managed objects in ${loaded.sources.length} file${loaded.sources.length === 1 ? '' : 's'}. ` : '';
    io.stdout(`${verdict}${summary}\n`);
  }
  return errors === 0 ? 0 : 1;
}

const colours = { error: '\u001b[31m', warning: '\u001b[33m', dim: '\u001b[2m', reset: '\u001b[0m' };

function formatValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Human diagnostics: `file:line:column: severity: message [address]`, the source line, a caret, value and expectation. */
export function renderDiagnostics(diagnostics: readonly Diagnostic[], io: Pick<CommandIO, 'cwd' | 'color'>): string {
  const lines = new Map<string, string[] | undefined>();
  const sourceLines = (file: string): string[] | undefined => {
    if (!lines.has(file)) {
      try {
        const text = readFileSync(resolve(io.cwd, file), 'utf8');
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
    const where = location ? `${location.file}:${location.line}:${location.column}: ` : '';
    const address = diagnostic.address ? ` [${diagnostic.address}]` : '';
    output += `${where}${paint(diagnostic.severity, diagnostic.severity)}: ${diagnostic.message}${address} (${diagnostic.code})\n`;
    const line = location ? sourceLines(location.file)?.[location.line - 1] : undefined;
    if (location && line !== undefined) {
      const gutter = String(location.line);
      const excerpt = line.length > 160 ? `${line.slice(0, 160)}...` : line;
      output += `  ${paint('dim', `${gutter} |`)} ${excerpt}\n`;
      output += `  ${' '.repeat(gutter.length)} ${paint('dim', '|')} ${' '.repeat(Math.max(0, location.column - 1))}${paint(diagnostic.severity, '^')}\n`;
    }
    const details = [
      'value' in diagnostic && diagnostic.value !== undefined ? `value: ${formatValue(diagnostic.value)}` : undefined,
      diagnostic.expected ? `expected: ${diagnostic.expected}` : undefined,
    ].filter(Boolean);
    if (details.length > 0) output += `  ${details.join('; ')}\n`;
  }
  return output;
}
