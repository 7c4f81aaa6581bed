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
