import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveInvitationFile } from '../../src/cli/invites.js';
import { REPO_ROOT } from '../support/cli.js';

/** Each test's temporary directory, removed after it. */
const made: string[] = [];
async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'invites-'));
  made.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('saveInvitationFile', () => {
  it('writes owner-only files and never overwrites an earlier invitation', async () => {
    const dir = join(await temporaryDirectory(), 'invites');
    const first = await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('one'));
    const second = await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('two'));
    expect(first.endsWith('collaboration-partner.example.org.invite')).toBe(true);
    expect(second.endsWith('collaboration-partner.example.org-1.invite')).toBe(true);
    expect(await readFile(first, 'utf8')).toBe('one');
    expect((await stat(first)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps a server-given name inside the directory', async () => {
    const dir = await temporaryDirectory();
    const path = await saveInvitationFile(dir, '../../etc/evil.invite', Buffer.from('x'));
    expect(path).toBe(join(dir, 'evil.invite'));
  });

  it('a write that fails half-way (a full disk) leaves no file at all, not an empty or cut one', async () => {
    const dir = join(await temporaryDirectory(), 'invites');
    // The child may write at most 100 bytes per file (RLIMIT_FSIZE): the 10,000-byte invitation fails part-way.
    const script = `import('${join(REPO_ROOT, 'dist/cli/invites.js')}').then(({ saveInvitationFile }) => saveInvitationFile(${JSON.stringify(dir)}, 'collaboration-partner.example.org.invite', Buffer.alloc(10000, 120))).then(() => process.exit(0), (error) => { console.error(error.message); process.exit(3); })`;
    const child = spawnSync('prlimit', ['--fsize=100', process.execPath, '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(3);
    expect(child.stderr).toMatch(/Could not write the invitation file into .*invites: .*(file too large|EFBIG)/i);
    expect(await readdir(dir)).toEqual([]);
  });

  it('the same invitation saved again (a run killed before it recorded it) is the file already there, not a second one', async () => {
    const dir = join(await temporaryDirectory(), 'invites');
    const first = await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('the invitation'));
    await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('another invitation'));
    expect(await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('the invitation'))).toBe(first);
    expect((await readdir(dir)).sort()).toEqual(['collaboration-partner.example.org-1.invite', 'collaboration-partner.example.org.invite']);
  });

  it("removes the temporary files of runs that are gone, and only theirs", async () => {
    const dir = join(await temporaryDirectory(), 'invites');
    await mkdir(dir, { mode: 0o700 });
    const abandoned = '.collaboration-partner.example.org.invite.tmp-999999999-0a1b2c';
    const running = `.collaboration-partner.example.org.invite.tmp-${process.ppid}-0a1b2c`;
    await writeFile(join(dir, abandoned), 'half an invi');
    await writeFile(join(dir, running), 'being written');
    await saveInvitationFile(dir, 'collaboration-other.example.org.invite', Buffer.from('x'));
    expect((await readdir(dir)).sort()).toEqual([running, 'collaboration-other.example.org.invite']);
  });
});

