/**
 * E13's answer is an invitation file that grants trust to whoever holds it: it is written
 * with owner-only permissions, never over an existing file, and its content is never printed.
 */
import { mkdir, open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PortalctlError } from '../core/errors.js';

export class InviteFileError extends PortalctlError {}

/** Writes `content` as `dir/filename` (0600, dir 0700); a name already taken gets a numeric suffix. */
export async function saveInvitationFile(dir: string, filename: string, content: Uint8Array): Promise<string> {
  // The name comes from the server's Content-Disposition: keep only a plain file name.
  const safe = basename(filename).replace(/[^A-Za-z0-9._-]/g, '_') || 'collaboration.invite';
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const dot = safe.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  for (let attempt = 0; attempt < 1000; attempt++) {
    const path = join(dir, attempt === 0 ? safe : `${stem}-${attempt}${ext}`);
    try {
      const handle = await open(path, 'wx', 0o600);
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
