/**
 * Error classes shared by every room. The CLI maps them to exit codes in one place
 * (src/cli/exit.ts); commands throw, they never exit.
 */
export class PortalctlError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Wrong command-line usage (bad flag value, conflicting options). */
export class UsageError extends PortalctlError {}

/** The user interrupted the command (Ctrl-C, SIGTERM): exit code 130 (README "Exit codes"). */
export class InterruptedError extends PortalctlError {}

/** What to show of anything thrown: an Error's message, else its text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a thrown system error (ENOENT, EPERM...), when it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}
