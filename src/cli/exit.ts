import { ConfigError } from '../engine/config/errors.js';
import { InterruptedError, PortalctlError } from '../core/errors.js';
import { renderDiagnostics } from './diagnostics.js';
import type { CommandIO } from './io.js';

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1, an interrupt 130. An
 * invalid config shows every problem once, as `validate` does, then a one-line summary.
 */
export function reportError(error: unknown, io: Pick<CommandIO, 'stderr' | 'cwd' | 'color'>, verbose: boolean): number {
  if (error instanceof ConfigError) {
    io.stderr(renderDiagnostics(error.diagnostics, io));
    const errors = error.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    io.stderr(`Error: invalid configuration (${errors} error${errors === 1 ? '' : 's'} above); nothing was sent to the portal.\n`);
  } else if (error instanceof InterruptedError) {
    io.stderr(`${error.message}\n`);
    return 130;
  } else if (error instanceof PortalctlError) {
    io.stderr(`Error: ${error.message}\n`);
    if (verbose && error.cause) io.stderr(`Caused by: ${String(error.cause)}\n`);
  } else if (error instanceof Error) {
    io.stderr(`Error: ${error.message}\n`);
    if (verbose && error.stack) io.stderr(`${error.stack}\n`);
  } else {
    io.stderr(`Error: ${String(error)}\n`);
  }
  return 1;
}
