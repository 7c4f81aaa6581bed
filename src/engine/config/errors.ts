import type { Diagnostic } from '../../core/diagnostics.js';
import { PortalctlError } from '../../core/errors.js';

/** The config is invalid: what plan and apply throw before any request. Carries every diagnostic. */
export class ConfigError extends PortalctlError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const first = errors[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column}: ` : '';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    super(`Invalid configuration: ${where}${first?.message ?? 'unknown problem'}${more}`);
    this.diagnostics = diagnostics;
  }
}

/** Throws ConfigError when any diagnostic is an error; warnings pass. */
export function throwIfInvalid(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) throw new ConfigError(diagnostics);
}
