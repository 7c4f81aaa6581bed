/** `portalctl validate [PATH...]`: schema and rule checks, no network. */
import { loadConfig, validateConfig } from '../../engine/config/index.js';
import { UsageError } from '../../core/errors.js';
import { counted } from '../../core/words.js';
import { registry } from '../../registry.js';
import { renderDiagnostics } from '../diagnostics.js';
import type { CommandIO } from '../io.js';

export interface ValidateOptions {
  format?: string;
}

/** Exit code 0 when there are no errors (warnings allowed), 1 otherwise. */
export async function validateCommand(paths: readonly string[], options: ValidateOptions, io: CommandIO): Promise<number> {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not "${format}".`);
  const loaded = await loadConfig(paths, { cwd: io.cwd, env: io.env, kinds: registry });
  const diagnostics = validateConfig(loaded);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ valid: errors === 0, errors, warnings, files: loaded.sources, objects: loaded.objects.length, diagnostics }, null, 2)}\n`);
  } else {
    io.stdout(renderDiagnostics(diagnostics, io));
    const summary = `${counted(errors, 'error')}, ${counted(warnings, 'warning')}`;
    const verdict = errors === 0 ? `Valid: ${counted(loaded.objects.length, 'managed object')} in ${counted(loaded.sources.length, 'file')}. ` : '';
    io.stdout(`${verdict}${summary}\n`);
  }
  return errors === 0 ? 0 : 1;
}
