/**
 * E13's answer is an invitation file that grants trust to whoever holds it: it is written
 * with owner-only permissions, never over an existing file, and its content is never printed.
 * The directory must be private: a directory others can write to (or a symbolic link, which may
 * point anywhere) is refused before anything is sent, never used silently (README "Invitation files").
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, realpath, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorCode, errorMessage, PortalctlError } from '../core/errors.js';
import { processAlive } from '../core/processes.js';

export class InviteFileError extends PortalctlError {}

/** Refuses an invites directory that is a symbolic link, not a directory, not ours, or writable by others; absent is fine (created 0700). */
export async function assertPrivateInvitesDir(dir: string): Promise<void> {
  let info;
  try {
    info = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new InviteFileError(`The invites directory ${dir} cannot be checked: ${errorMessage(error)}`, { cause: error });
  }
  const refuse = (why: string, remedy = 'Fix its permissions (chmod 700) or choose another with --invites-dir.'): never => {
    throw new InviteFileError(
      `The invites directory ${dir} ${why}. Invitation files grant trust to whoever holds them, so they are written only into a private directory ` +
        `(yours, not writable by others). Nothing was sent. ${remedy}`,
    );
  };
  // chmod follows a link: only naming the directory itself helps.
  if (info.isSymbolicLink()) refuse('is a symbolic link', `Name the directory it leads to with --invites-dir (${await realpath(dir).catch(() => 'a private directory')}), or another.`);
  if (!info.isDirectory()) refuse('is not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) refuse(`belongs to another user (uid ${info.uid})`);
  if ((info.mode & 0o022) !== 0) refuse(`can be written by ${(info.mode & 0o002) !== 0 ? 'everyone' : 'its group'} (mode ${(info.mode & 0o777).toString(8)})`);
}

/** A temporary file of saveInvitationFile: `.<name>.tmp-<pid>-<random>`. */
const TEMPORARY = /^\..+\.tmp-(\d+)-[0-9a-f]+$/;

/** Temporary files left by a run that was killed while it wrote an invitation (its process is gone). */
async function removeAbandonedTemporaries(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const pid = TEMPORARY.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !processAlive(Number(pid))) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/** A file of `dir` named like `stem(-N)ext` that holds exactly `content`: the same invitation, saved before. */
async function sameInvitation(dir: string, names: readonly string[], stem: string, ext: string, content: Uint8Array): Promise<string | undefined> {
  const pattern = new RegExp(`^${escapeRegExp(stem)}(-\\d+)?${escapeRegExp(ext)}$`);
  for (const name of names.filter((candidate) => pattern.test(candidate))) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isFile() || info.size !== content.byteLength) continue;
    if (Buffer.from(content).equals(await readFile(path))) return path;
  }
  return undefined;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Writes `content` as `dir/filename` (0600, dir 0700); a name already taken gets a numeric
 * suffix. The file appears whole or not at all: it is written under a temporary name, synced,
 * then linked to its name (which never replaces a file), so a full disk or a kill never leaves
 * an empty or cut invitation. A file that already holds the same content is the same invitation
 * (saved by a run killed before it could record it): its path is returned, no second copy made.
 */
export async function saveInvitationFile(dir: string, filename: string, content: Uint8Array): Promise<string> {
  // The name comes from the server's Content-Disposition: keep only a plain file name.
  const safe = basename(filename).replace(/[^A-Za-z0-9._-]/g, '_') || 'collaboration.invite';
  await assertPrivateInvitesDir(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const dot = safe.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  const names = await readdir(dir);
  await removeAbandonedTemporaries(dir, names);
  const saved = await sameInvitation(dir, names, stem, ext, content);
  if (saved !== undefined) return saved;

  const temporary = join(dir, `.${safe}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const failed = (error: unknown): InviteFileError =>
    new InviteFileError(`Could not write the invitation file into ${dir}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  try {
    // O_NOFOLLOW: a symbolic link planted under the file's name is never followed.
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw failed(error);
  }
  try {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const path = join(dir, attempt === 0 ? safe : `${stem}-${attempt}${ext}`);
      try {
        await link(temporary, path);
        return path;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw failed(error);
      }
    }
    throw new InviteFileError(`Could not find a free file name for ${safe} in ${dir}.`);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
