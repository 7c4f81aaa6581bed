import { PortalctlError } from '../errors.js';

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1.
 */
export function reportError(error: unknown, stderr: (text: string) => void, verbose: boolean): number {
  if (error instanceof PortalctlError) {
    stderr(`Error: ${error.message}\n`);
    if (verbose && error.cause) stderr(`Caused by: ${String(error.cause)}\n`);
  } else if (error instanceof Error) {
    stderr(`Error: ${error.message}\n`);
    if (verbose && error.stack) stderr(`${error.stack}\n`);
  } else {
    stderr(`Error: ${String(error)}\n`);
  }
  return 1;
}
