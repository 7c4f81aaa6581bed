/** File errors said for people: which file, what was being done, and why, never a raw Node error. */
import { fstatSync, type Stats } from 'node:fs';
import { access, chmod, constants, mkdir, open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileErrorReason, reasonOfFileErrorCode, UsageError } from '../core/errors.js';

/** Runs a file operation; a failure becomes `<what> <file>: <reason>.` (a usage error: exit 1). */
export async function withFile<T>(what: string, file: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code === undefined) throw error;
    throw new UsageError(`${what} ${file}: ${fileErrorReason(error)}.`, { cause: error });
  }
}

/**
 * `--out DIR/`, or `--out DIR` of an existing directory, names no file: refused before anything
 * is read, naming a file in it (a trailing slash was dropped by path.resolve: `--out plans/`
 * wrote a file named `plans`; an existing directory was "already exists: pass --force").
 */
export async function refuseDirectoryAsOut(out: string, cwd: string, { example, nothing }: { example: string; nothing: string }): Promise<void> {
  const isDirectory = /[/\\]$/.test(out) || (await stat(resolve(cwd, out)).catch(() => undefined))?.isDirectory() === true;
  if (isDirectory) throw new UsageError(`--out ${out} names a directory: name a file in it, e.g. --out ${join(out, example)}; ${nothing}.`);
}

/**
 * Why `file` could not be written as writeKeptFile writes it, asked before a portal is read
 * (minutes for a large organization) rather than found when writing, with the read thrown away:
 * a part of the path that is a file, or the directory to create it (or its missing directories)
 * in, or a device, that may not be written. Undefined when nothing stands in the way that can be
 * told beforehand; the write still says what only it finds (a full disk).
 */
export async function unwritableReason(file: string, { replace }: { replace: boolean }): Promise<string | undefined> {
  const existing = await stat(file).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (!(existing instanceof Error)) {
    if (!existing.isFile()) return access(file, constants.W_OK).then(() => undefined, fileErrorReason);
    // A file replaced is renamed over from beside its target; one not replaced is refused as there.
    if (!replace) return undefined;
    const target = await realpath(file).catch(() => file);
    return access(dirname(target), constants.W_OK | constants.X_OK).then(() => undefined, fileErrorReason);
  }
  if (existing.code !== 'ENOENT') return fileErrorReason(existing);
  // The nearest directory of the path that exists: the file, or its first missing directory, is made there.
  for (let directory = dirname(file); ; directory = dirname(directory)) {
    const info = await stat(directory).catch((error: unknown) => error as NodeJS.ErrnoException);
    if (info instanceof Error) {
      if (info.code === 'ENOENT' && dirname(directory) !== directory) continue;
      return fileErrorReason(info);
    }
    if (!info.isDirectory()) return reasonOfFileErrorCode('ENOTDIR');
    return access(directory, constants.W_OK | constants.X_OK).then(() => undefined, fileErrorReason);
  }
}

/**
 * Whether `file` is the file this process's standard output is (a pipe, a socket, a terminal):
 * `--out /dev/stdout`. Opened by name, a socket fails (ENXIO, as under a Node parent).
 */
export function isStandardOutput(file: Stats | undefined): boolean {
  if (!file) return false;
  try {
    const stdout = fstatSync(1);
    return stdout.dev === file.dev && stdout.ino === file.ino;
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `file`, a file people keep (a config, a reviewed plan), created with `mode`
 * (default: the umask's) and with its missing directories. Without `replace`, a file already
 * there is refused (EEXIST, atomically) and a write that fails half-way leaves nothing behind;
 * with it, the text goes to a new file beside the old one, renamed over it, so a write that fails
 * (a full disk, an interrupt) leaves the old file whole. A replaced file keeps its permissions,
 * and a symbolic link its target; a device or a pipe is written to as it is.
 */
export async function writeKeptFile(file: string, text: string, { replace, mode: newMode }: { replace: boolean; mode?: number }): Promise<void> {
  // Missing directories are created: people name a new folder for such a file (`--out plans/production.json`).
  await mkdir(dirname(file), { recursive: true }).catch((error: unknown) => {
    // A file where a directory of the path should be: mkdir says EEXIST, which callers would take for the file's own.
    throw (error as NodeJS.ErrnoException).code === 'EEXIST' ? Object.assign(new Error('a part of the path is not a directory', { cause: error }), { code: 'ENOTDIR' }) : error;
  });
  if (!replace) {
    const handle = await open(file, 'wx', newMode);
    try {
      await handle.writeFile(text);
    } catch (error) {
      await handle.close();
      await rm(file, { force: true });
      throw error;
    }
    await handle.close();
    return;
  }
  const existing = await stat(file).catch(() => undefined);
  // A device or a pipe (`--out /dev/stdout`) is written to, not replaced.
  if (existing && !existing.isFile()) return writeFile(file, text);
  const target = await realpath(file).catch(() => file);
  const mode = existing?.mode ?? newMode;
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}-${Date.now().toString(36)}.tmp`);
  try {
    // Owner-only until it has the old file's permissions (without any: the umask's default).
    await writeFile(temp, text, { flag: 'wx', ...(mode === undefined ? {} : { mode: 0o600 }) });
    if (mode !== undefined) await chmod(temp, mode & 0o7777);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
