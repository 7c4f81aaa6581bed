/** File errors said for people: which file, what was being done, and why, never a raw Node error. */
import { UsageError } from '../core/errors.js';

const reasons: Record<string, string> = {
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
  ELOOP: 'too many symbolic links',
};

/** "no such file or directory" for ENOENT, and so on; the error's own message otherwise. */
export function fileErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
}

/** Runs a file operation; a failure becomes `<what> <file>: <reason>.` (a usage error: exit 1). */
export async function withFile<T>(what: string, file: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code === undefined) throw error;
    throw new UsageError(`${what} ${file}: ${fileErrorReason(error)}.`, { cause: error });
  }
}
