/**
 * From a `--state` value to a store: a postgres:// URL, a file's path or file:// URL, a
 * directory's path ending in a slash (the default file in it); a URL of another scheme refused.
 * And the file of one environment's state.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { environmentFile, newState, openStateStore, redactPostgresUrlsIn, redactPostgresWord, stateSpec } from '../../src/state/index.js';

describe('--state', () => {
  const open = (spec: string | undefined, env: NodeJS.ProcessEnv = {}) => openStateStore(spec, { cwd: '/work', env }).describe();

  it('a path, a file:// URL, a directory ending in a slash (the default file in it), from the flag or PORTALCTL_STATE', () => {
    expect(open('states/prod.json')).toBe('file /work/states/prod.json');
    expect(open('file:///srv/states/prod.json')).toBe('file /srv/states/prod.json');
    expect(open('states/')).toBe('file /work/states/portalctl.state.json');
    expect(open(undefined, { PORTALCTL_STATE: '/srv/states/' })).toBe('file /srv/states/portalctl.state.json');
    expect(stateSpec(undefined, {})).toBe('portalctl.state.json');
    expect(stateSpec('postgres://ops@db/states/', {})).toBe('postgres://ops@db/states/');
  });

  it('a URL of another scheme is refused, naming where it came from, with the scheme it most likely meant', () => {
    expect(() => open('postgress://ops@db/states')).toThrow(new UsageError("--state takes a file's path or a postgres:// URL, and postgress:// is neither (did you mean postgres://?): portalctl keeps state in a file or in PostgreSQL."));
    expect(() => open(undefined, { PORTALCTL_STATE: 'https://example.com/state.json' })).toThrow(/^PORTALCTL_STATE takes a file's path or a postgres:\/\/ URL, and https:\/\/ is neither: /);
    expect(() => openStateStore('s3://bucket/state.json', { cwd: '/work', env: {}, given: 'state pull DESTINATION' })).toThrow(/^state pull DESTINATION takes /);
    expect(() => open('file://server/share/state.json')).toThrow(/^--state: File URL host must be "localhost" or empty/);
    expect(() => open('pg://ops@db/states')).toThrow(/and pg:\/\/ is neither \(did you mean postgres:\/\/\?\)/);
    expect(() => open('s3://bucket/states')).toThrow(/and s3:\/\/ is neither: /);
  });
});

describe('an environment\'s state file', () => {
  it('its state name before .state.json, else before the last extension; in a directory given with a slash, the default file\'s name', () => {
    expect(environmentFile('portalctl.state.json', 'production')).toBe('portalctl.production.state.json');
    expect(environmentFile('states/x.json', 'production')).toBe('states/x.production.json');
    expect(environmentFile('states/x', 'prod')).toBe('states/x.prod');
    expect(environmentFile(stateSpec('states/', {}), 'production')).toBe('states/portalctl.production.state.json');
  });
});

describe('a state file that is a symbolic link', () => {
  it('is written where it leads, the link kept; backup, history and lock beside the file it leads to; a link to a file not written yet too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portalctl-state-link-'));
    try {
      await mkdir(join(dir, 'volume'));
      await symlink('volume/state.json', join(dir, 'portalctl.state.json'));
      const store = openStateStore(undefined, { cwd: dir, env: {} });
      expect(store.describe()).toBe(`file ${join(dir, 'volume/state.json')}`);
      const portal = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };
      const first = await store.write(newState(portal));
      await store.write(first);
      expect((await lstat(join(dir, 'portalctl.state.json'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(dir, 'portalctl.state.json'))).toBe('volume/state.json');
      expect(JSON.parse(await readFile(join(dir, 'volume/state.json'), 'utf8'))).toMatchObject({ serial: 2 });
      expect((await readdir(dir)).sort()).toEqual(['portalctl.state.json', 'volume']);
      expect((await readdir(join(dir, 'volume'))).sort()).toEqual(['state.json', 'state.json.backup', 'state.json.history']);
      expect((await openStateStore(undefined, { cwd: dir, env: {} }).read())?.serial).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a postgres URL inside a text (a command line in the history and the lock)', () => {
  it('is shown without its password, whatever the password holds (a quote cut the URL short there, and it was shown whole)', () => {
    const line = `portalctl state push --state=postgres://aud2:x'y"z@db.example.com:5432/states --state-name q postgresql://ops:p@ss@other/db?sslmode=require&password=Secret9`;
    const shown = redactPostgresUrlsIn(line);
    for (const secret of [`x'y"z`, 'p@ss', 'Secret9']) expect(shown).not.toContain(secret);
    expect(shown).toBe('portalctl state push --state=postgres://aud2@db.example.com:5432/states --state-name q postgresql://ops@other/db?sslmode=require&password=***');
    // One argument holding a space (quoted in the shell): redacted whole, before the command line is joined.
    expect(redactPostgresWord('postgres://ops:pa ss word@db/x')).toBe('postgres://ops@db/x');
    // Without a password, or a port with no user, nothing changes.
    for (const url of ['postgres://u@h:5432/db', 'postgres://h:5432/db?sslmode=disable']) expect(redactPostgresUrlsIn(`--state ${url}`)).toBe(`--state ${url}`);
  });
});

describe('the unlock command a lock message advises', () => {
  it('names the state as the command line must: --state, --state-name, and a password given in the URL (which it does not show) from elsewhere', () => {
    const options = { cwd: '/work', env: {} };
    expect(openStateStore('states/prod.json', options).unlockCommand('ID')).toBe('portalctl state unlock ID --state /work/states/prod.json');
    expect(openStateStore('/work/my states/x.json', options).unlockCommand('ID')).toBe("portalctl state unlock ID --state '/work/my states/x.json'");
    expect(openStateStore('postgres://ops@db.example.com/states', { ...options, name: 'prod' }).unlockCommand('ID')).toBe('portalctl state unlock ID --state postgres://ops@db.example.com/states --state-name prod');
    expect(openStateStore('postgres://ops:s3cret@db.example.com/states?sslmode=require', options).unlockCommand('ID')).toBe(
      "PGPASSWORD=… portalctl state unlock ID --state 'postgres://ops@db.example.com/states?sslmode=require'",
    );
  });
});
