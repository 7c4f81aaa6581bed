import { formatLocation, type Diagnostic, type SourceLocation } from '../../core/diagnostics.js';
import { PortalctlError } from '../../core/errors.js';

/** The config is invalid: what plan and apply throw before any request. Carries every diagnostic. */
export class ConfigError extends PortalctlError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const first = errors[0];
    const where = first?.location ? `${formatLocation(first.location)}: ` : '';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    super(`Invalid configuration: ${where}${first?.message ?? 'unknown problem'}${more}`);
    this.diagnostics = diagnostics;
  }
}

/** Throws ConfigError when any diagnostic is an error; warnings pass. */
export function throwIfInvalid(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) throw new ConfigError(diagnostics);
}

/** A top-level block (`portal:`, `safety:`, `values:`, `environments:`) declared a second time. */
export function duplicateBlock(block: string, first: SourceLocation, again: SourceLocation, expected: string): Diagnostic {
  return {
    severity: 'error',
    code: `config/duplicate-${block}`,
    message: `The ${block} block is declared twice: first at ${formatLocation(first)}.`,
    location: again,
    expected,
  };
}
