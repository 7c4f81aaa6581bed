import { ConfigError } from '../engine/config/errors.js';
import { PortalctlError } from '../core/errors.js';
import { renderDiagnostics } from './diagnostics.js';
import type { CommandIO } from './io.js';

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1. An invalid config shows
 * every problem, as `validate` does.
 */
export function reportError(error: unknown, io: Pick<CommandIO, 'stderr' | 'cwd' | 'color'>, verbose: boolean): number {
  if (error instanceof ConfigError) {
    io.stderr(renderDiagnostics(error.diagnostics, io));
    io.stderr(`Error: ${error.message}\n`);
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
