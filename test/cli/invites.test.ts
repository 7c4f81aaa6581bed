import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveInvitationFile } from '../../src/cli/invites.js';

describe('saveInvitationFile', () => {
  it('writes owner-only files and never overwrites an earlier invitation', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'invites-')), 'invites');
    const first = await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('one'));
    const second = await saveInvitationFile(dir, 'collaboration-partner.example.org.invite', Buffer.from('two'));
    expect(first.endsWith('collaboration-partner.example.org.invite')).toBe(true);
    expect(second.endsWith('collaboration-partner.example.org-1.invite')).toBe(true);
    expect(await readFile(first, 'utf8')).toBe('one');
    expect((await stat(first)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps a server-given name inside the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'invites-'));
    const path = await saveInvitationFile(dir, '../../etc/evil.invite', Buffer.from('x'));
    expect(path).toBe(join(dir, 'evil.invite'));
  });
});
