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

const fileErrorReasons: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EEXIST: 'it already exists',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links (a link that leads back to itself?)',
  // open() of a socket, or of a device with nothing behind it.
  ENXIO: 'it is a socket, or a device with nothing behind it',
};

/** A file operation's failure said for people ("permission denied" for EACCES, ...); the error's own message otherwise. */
export function fileErrorReason(error: unknown): string {
  const code = errorCode(error);
  return (code && fileErrorReasons[code]) ?? errorMessage(error);
}

/** The reason said for a system error code, e.g. ENOTDIR found without a thrown error. */
export const reasonOfFileErrorCode = (code: 'ENOTDIR' | 'EISDIR' | 'ENOENT'): string => fileErrorReasons[code] ?? code;
