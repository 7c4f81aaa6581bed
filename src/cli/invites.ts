/**
 * E13's answer is an invitation file that grants trust to whoever holds it: it is written
 * with owner-only permissions, never over an existing file, and its content is never printed.
 * The directory must be private: a directory others can write to (or a symbolic link, which may
 * point anywhere) is refused before anything is sent, never used silently (README "Invitation files").
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PortalctlError } from '../core/errors.js';

export class InviteFileError extends PortalctlError {}

/** Refuses an invites directory that is a symbolic link, not a directory, not ours, or writable by others; absent is fine (created 0700). */
export async function assertPrivateInvitesDir(dir: string): Promise<void> {
  let info;
  try {
    info = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new InviteFileError(`The invites directory ${dir} cannot be checked: ${(error as Error).message}`, { cause: error });
  }
  const refuse = (why: string): never => {
    throw new InviteFileError(
      `The invites directory ${dir} ${why}. Invitation files grant trust to whoever holds them, so they are written only into a private directory ` +
        '(yours, not writable by others). Nothing was sent. Fix its permissions (chmod 700) or choose another with --invites-dir.',
    );
  };
  if (info.isSymbolicLink()) refuse('is a symbolic link');
  if (!info.isDirectory()) refuse('is not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) refuse(`belongs to another user (uid ${info.uid})`);
  if ((info.mode & 0o022) !== 0) refuse(`can be written by ${(info.mode & 0o002) !== 0 ? 'everyone' : 'its group'} (mode ${(info.mode & 0o777).toString(8)})`);
}

/** Writes `content` as `dir/filename` (0600, dir 0700); a name already taken gets a numeric suffix. */
export async function saveInvitationFile(dir: string, filename: string, content: Uint8Array): Promise<string> {
  // The name comes from the server's Content-Disposition: keep only a plain file name.
  const safe = basename(filename).replace(/[^A-Za-z0-9._-]/g, '_') || 'collaboration.invite';
  await assertPrivateInvitesDir(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const dot = safe.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  for (let attempt = 0; attempt < 1000; attempt++) {
    const path = join(dir, attempt === 0 ? safe : `${stem}-${attempt}${ext}`);
    try {
      // O_NOFOLLOW: a symbolic link planted under the file's name is never followed.
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new InviteFileError(`Could not write the invitation file into ${dir}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  throw new InviteFileError(`Could not find a free file name for ${safe} in ${dir}.`);
}
