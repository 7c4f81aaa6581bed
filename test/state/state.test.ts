import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileStateStore,
  NotAStateFileError,
  StateConflictError,
  StateCorruptError,
  StateError,
  StateLockedError,
  StatePortalMismatchError,
  StateWriter,
  assertSamePortal,
  newState,
  parseState,
  recordOperation,
  withStateLock,
  type LockInfo,
  type StateEntry,
} from '../../src/state/index.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portalctl-state-'));
  file = join(dir, 'portalctl.state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };
const entry = (value: StateEntry['value']): StateEntry => ({
  kind: 'organization.securityPolicy',
  ids: {},
  value,
  status: 'present',
  appliedAt: '2025-01-01T00:00:00.000Z',
});

describe('format', () => {
  it('creates a state with a random lineage and serial 0, and records operations purely', () => {
    const first = newState(PORTAL);
    const second = newState(PORTAL);
    expect(first.lineage).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.lineage).not.toBe(second.lineage);
    expect(first).toMatchObject({ formatVersion: 1, serial: 0, portal: PORTAL, resources: {} });
    const recorded = recordOperation(first, 'organization.securityPolicy', entry({ minLength: 12 }));
    expect(first.resources).toEqual({});
    expect(recorded.resources['organization.securityPolicy']?.value).toEqual({ minLength: 12 });
    expect(recorded.serial).toBe(0);
  });

  it('rejects structurally wrong states with the reason and the file', () => {
    const good = JSON.stringify(recordOperation(newState(PORTAL), 'a', entry(null)));
    expect(parseState(good, 'f.json').resources['a']?.value).toBeNull();
    const broken = (change: (data: Record<string, unknown>) => void) => {
      const data = JSON.parse(good) as Record<string, unknown>;
      change(data);
      return JSON.stringify(data);
    };
    expect(() => parseState(good.slice(0, good.length / 2), 'f.json')).toThrow(/f\.json is corrupt: not valid JSON.*truncated/);
    expect(() => parseState(broken((d) => (d['formatVersion'] = 2)), 'f.json')).toThrow(/f\.json was written by a later portalctl \(state format version 2; this one reads version 1\)/);
    expect(() => parseState(broken((d) => (d['formatVersion'] = 0)), 'f.json')).toThrow(/formatVersion 0 is not supported/);
    expect(() => parseState(broken((d) => delete d['lineage']), 'f.json')).toThrow(/lineage is missing/);
    expect(() => parseState(broken((d) => (d['serial'] = -1)), 'f.json')).toThrow(/serial/);
    expect(() => parseState(broken((d) => (d['portal'] = {})), 'f.json')).toThrow(/portal\.url/);
    expect(() => parseState(broken((d) => (d['resources'] = { a: { kind: 'k', ids: {}, status: 'gone', value: 1 } })), 'f.json')).toThrow(/status/);
    expect(() => parseState(broken((d) => (d['resources'] = { a: { kind: 'k', ids: { x: 1 }, value: 1 } })), 'f.json')).toThrow(/ids/);
    expect(() => parseState(broken((d) => (d['resources'] = { a: { kind: 'k', ids: {} } })), 'f.json')).toThrow(/value/);
  });

  it('refuses a state that belongs to another portal', () => {
    const state = newState(PORTAL);
    expect(() => assertSamePortal(state, 'https://GIS.example.com:443/portal/sharing/rest/', 'org123')).not.toThrow();
    expect(() => assertSamePortal(state, 'https://alias.example.com/rest', 'org123')).not.toThrow();
    expect(() => assertSamePortal(state, PORTAL.url, 'other')).toThrow(StatePortalMismatchError);
    const withoutId = newState({ url: PORTAL.url });
    expect(() => assertSamePortal(withoutId, PORTAL.url)).not.toThrow();
    expect(() => assertSamePortal(withoutId, 'https://other.example.com/portal/sharing/rest')).toThrow(/belongs to https:\/\/gis/);
  });
});

describe('FileStateStore writes', () => {
  it('writes atomically with serial+1, keeps a backup of the previous version, mode 0600', async () => {
    const store = new FileStateStore({ path: file });
    expect(await store.read()).toBeUndefined();
    const initial = newState(PORTAL);
    const first = await store.write(recordOperation(initial, 'a', entry(1)));
    expect(first.serial).toBe(1);
    expect(first.lineage).toBe(initial.lineage);
    const firstText = await readFile(file, 'utf8');
    const second = await store.write(recordOperation(first, 'b', entry(2)));
    expect(second.serial).toBe(2);
    expect(await store.read()).toEqual(second);
    expect(await readFile(`${file}.backup`, 'utf8')).toBe(firstText);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(`${file}.backup`)).mode & 0o777).toBe(0o600);
    // No temp files left behind; every serial is kept in the history.
    expect((await readdir(dir)).sort()).toEqual(['portalctl.state.json', 'portalctl.state.json.backup', 'portalctl.state.json.history']);
    expect((await readdir(`${file}.history`)).sort()).toEqual(['0000000001.json', '0000000002.json']);
  });

  it('refuses to overwrite another lineage or a newer serial', async () => {
    const store = new FileStateStore({ path: file });
    const written = await store.write(newState(PORTAL));
    await expect(store.write(newState(PORTAL))).rejects.toThrow(StateConflictError);
    await store.write(written);
    await expect(store.write(written)).rejects.toThrow(/serial 2, but this run started from serial 1/);
  });

  it("a state started afresh (its file removed, .history left) sets the other state's history aside whole: never overwritten, never listed as its own", async () => {
    const notices: string[] = [];
    const store = new FileStateStore({ path: file, onNotice: (message, kind) => notices.push(`${kind}: ${message}`) });
    let old = await store.write(newState(PORTAL));
    for (const value of [1, 2, 3]) old = await store.write(recordOperation(old, 'a', entry(value)));
    const oldFiles = await readdir(`${file}.history`);
    const oldTexts = await Promise.all(oldFiles.map((name) => readFile(join(`${file}.history`, name), 'utf8')));
    await rm(file);
    await rm(`${file}.backup`);
    // The history of a state whose file is gone is still listed (all that is left of it).
    expect((await store.history()).map((kept) => kept.lineage)).toEqual([old.lineage, old.lineage, old.lineage, old.lineage]);

    const fresh = await store.write(recordOperation(newState(PORTAL), 'b', entry(9)));
    expect(fresh.serial).toBe(1);
    const aside = `${file}.history-${old.lineage}`;
    expect(notices).toEqual([`history: ${file}.history held the history of another state (lineage ${old.lineage}, its file gone); it is kept as ${aside}, and this state's history starts afresh.`]);
    expect(await readdir(aside)).toEqual(oldFiles);
    expect(await Promise.all(oldFiles.map((name) => readFile(join(aside, name), 'utf8')))).toEqual(oldTexts);
    expect(await readdir(`${file}.history`)).toEqual(['0000000001.json']);
    expect((await store.history()).map((kept) => [kept.serial, kept.lineage])).toEqual([[1, fresh.lineage]]);
    expect(await store.readSerial(1)).toEqual(fresh);

    // A history an earlier release mixed (the new state's serials written over the old one's,
    // the old one's later serials left): only the serials of the state written last are listed.
    for (const [index, name] of oldFiles.entries()) if (index > 0) await writeFile(join(`${file}.history`, name), oldTexts[index] ?? '');
    expect((await readdir(`${file}.history`)).sort()).toEqual(oldFiles);
    expect((await store.history()).map((kept) => [kept.serial, kept.lineage])).toEqual([[1, fresh.lineage]]);
  });

  it('reports a corrupt file, suggests the backup, and changes no file', async () => {
    const store = new FileStateStore({ path: file });
    const first = await store.write(newState(PORTAL));
    await store.write(first);
    const backupBefore = await readFile(`${file}.backup`, 'utf8');
    const truncated = (await readFile(file, 'utf8')).slice(0, 40);
    await writeFile(file, truncated);
    const error = await store.read().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateCorruptError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain(`${file}.backup`);
    await expect(store.write({ ...first, serial: 2 })).rejects.toThrow(StateCorruptError);
    expect(await readFile(file, 'utf8')).toBe(truncated);
    expect(await readFile(`${file}.backup`, 'utf8')).toBe(backupBefore);
    expect((await readdir(dir)).sort()).toEqual(['portalctl.state.json', 'portalctl.state.json.backup', 'portalctl.state.json.history']);
  });

  it("a corrupt file: show --serial rebuilds earlier serials from the backup, and says the file's own serial cannot be, not that it is not kept", async () => {
    const store = new FileStateStore({ path: file });
    const first = await store.write(newState(PORTAL));
    const second = await store.write(recordOperation(first, 'role[a]', entry(1)));
    const third = await store.write(recordOperation(second, 'role[b]', entry(2)));
    const truncated = (await readFile(file, 'utf8')).slice(0, 40);
    await writeFile(file, truncated);
    expect((await store.history()).map((kept) => kept.serial)).toEqual([3, 2, 1]);
    expect(await store.readSerial(2)).toEqual(second);
    expect(await store.readSerial(1)).toEqual(first);
    const error = await store.readSerial(third.serial).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateCorruptError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^State file ${escapeRegExp(file)} is corrupt: .*\\. Nothing was changed\\. Serial 3 cannot be rebuilt: the history holds what each write changed, undone from the state file\\. ` +
          `The previous version, serial 2, is kept in ${escapeRegExp(`${file}.backup`)} \\(inspect it and copy it over ${escapeRegExp(file)} if it is valid\\); earlier serials are rebuilt from it\\.$`,
      ),
    );
    expect(await store.readSerial(4)).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe(truncated);
  });

  it('a file that is no state (a config, a saved plan, other JSON) is said to be none, not corrupt, and is never written over', async () => {
    const files: [name: string, text: string, what: string][] = [
      ['portalctl.yaml', 'version: 1\nportal:\n  url: https://gis.example.com/portal/sharing/rest\n', 'it is a config (YAML)'],
      ['.env', 'PORTALCTL_TOKEN=s3cret-token\n', 'it does not hold JSON'],
      ['plan.json', `${JSON.stringify({ formatVersion: 1, basisDigest: 'x', operations: [] }, null, 2)}\n`, 'it is a saved plan (`portalctl plan --out`)'],
      ['package.json', '{\n  "name": "portal-config",\n  "private": true\n}\n', "it holds JSON without a state's lineage, serial or resources"],
    ];
    for (const [name, text, what] of files) {
      const path = join(dir, name);
      await writeFile(path, text);
      const store = new FileStateStore({ path });
      const error = await store.read().catch((caught: unknown) => caught);
      expect(error, name).toBeInstanceOf(NotAStateFileError);
      expect((error as Error).message).toBe(`${path} is not a portalctl state file: ${what}. Nothing was changed; name the state's own file (a file that does not exist yet starts a new state).`);
      await expect(store.write(newState(PORTAL))).rejects.toThrow(NotAStateFileError);
      expect(await readFile(path, 'utf8')).toBe(text);
    }
    // Cut short, it is a state still: corrupt, with what can be done.
    await writeFile(file, '');
    await expect(new FileStateStore({ path: file }).read()).rejects.toThrow(StateCorruptError);
  });

  it('a directory, a device or a pipe named as the state is refused before it is read (a pipe would be waited on forever)', async () => {
    const directory = new FileStateStore({ path: dir });
    await expect(directory.read()).rejects.toThrow(`The state ${dir} is a directory: name a file in it, e.g. ${join(dir, 'portalctl.state.json')}. Nothing was changed.`);
    await expect(directory.write(newState(PORTAL))).rejects.toThrow(StateError);
    await expect(new FileStateStore({ path: '/dev/null' }).read()).rejects.toThrow('The state /dev/null is not a regular file: the state is kept in a file of its own. Nothing was changed.');
    const pipe = join(dir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    await expect(new FileStateStore({ path: pipe }).read()).rejects.toThrow(`The state ${pipe} is not a regular file`);
  });

  it('never points a corrupt file at a backup that does not exist', async () => {
    const store = new FileStateStore({ path: file });
    await writeFile(file, '{"formatVersion": 1, "lin');
    const alone = await store.read().catch((caught: unknown) => caught);
    expect(alone).toBeInstanceOf(StateCorruptError);
    expect((alone as Error).message).not.toContain('.backup');
    expect((alone as Error).message).toContain('No earlier version of it is kept');
    // With history but no backup (the backup removed by hand): this release's history holds
    // changes, undone from the state file itself, so it offers no earlier version (state show
    // --serial failed on the same corrupt file).
    await rm(file);
    const first = await store.write(newState(PORTAL));
    await writeFile(file, 'garbage');
    const withHistory = ((await store.read().catch((caught: unknown) => caught)) as Error).message;
    expect(withHistory).not.toContain('.backup');
    expect(withHistory).not.toContain('state show --serial');
    expect(withHistory).toContain(`No earlier version of it is kept (its history in ${file}.history holds the changes of each serial, which rebuild earlier versions from this file only)`);
    // An earlier release's history keeps whole copies: that one is offered, with the state to name.
    await writeFile(join(`${file}.history`, '0000000001.json'), JSON.stringify({ writtenAt: '2025-01-01T00:00:00.000Z', command: 'portalctl apply', changed: 1, state: first }));
    const withCopy = ((await store.read().catch((caught: unknown) => caught)) as Error).message;
    expect(withCopy).toContain(`An earlier version is kept whole in ${file}.history (serial ${first.serial}); \`portalctl state show --serial ${first.serial} --state ${file}\` shows it.`);
    expect(await store.readSerial(first.serial)).toEqual(first);
  });

  it('StateWriter records concurrently finishing operations together, each only once it is on disk', async () => {
    const store = new FileStateStore({ path: file });
    const writer = new StateWriter(store, newState(PORTAL));
    const addresses = Array.from({ length: 12 }, (_, index) => `role[r${index}]`);
    const results = await Promise.all(addresses.map((address, index) => writer.record(address, entry(index))));
    // The first record writes alone; the eleven that arrived meanwhile share the next write.
    expect(results.map((state) => state.serial)).toEqual([1, ...addresses.slice(1).map(() => 2)]);
    results.forEach((state, index) => expect(state.resources[addresses[index] as string]).toBeDefined());
    const stored = await store.read();
    expect(stored?.serial).toBe(2);
    expect(Object.keys(stored?.resources ?? {}).sort()).toEqual([...addresses].sort());
    expect(writer.state).toEqual(stored);
    await writer.forget('role[r0]');
    expect((await store.read())?.resources['role[r0]']).toBeUndefined();
  });

  it('StateWriter keeps going after a failed write', async () => {
    const store = new FileStateStore({ path: file });
    const writer = new StateWriter(store, newState(PORTAL));
    const bad = writer.record('a', { kind: '', ids: {}, value: 1 });
    const good = writer.record('b', entry(1));
    await expect(bad).rejects.toThrow(/invalid state/);
    expect((await good).resources['b']).toBeDefined();
    expect((await store.read())?.serial).toBe(1);
  });
});

describe('FileStateStore locks', () => {
  const instantSleep = () => Promise.resolve();

  it('locks with owner, host, pid, operation and expiry, and unlocks', async () => {
    const store = new FileStateStore({ path: file, host: 'build-7', pid: process.pid, user: 'ci' });
    const lock = await store.lock({ operation: 'apply' });
    const onDisk = JSON.parse(await readFile(`${file}.lock`, 'utf8')) as LockInfo;
    expect(onDisk).toEqual(lock.info);
    expect(onDisk).toMatchObject({ owner: 'ci@build-7', host: 'build-7', pid: process.pid, operation: 'apply' });
    expect(Date.parse(String(onDisk.expires))).toBeGreaterThan(Date.parse(onDisk.created));
    expect(lock.takenOver).toBeUndefined();
    expect(await store.currentLock()).toEqual(lock.info);
    await store.unlock(lock);
    expect(await store.currentLock()).toBeUndefined();
    await store.unlock(lock);
  });

  it('creates the missing directories of a new state file (as import --out does), and writes the state there', async () => {
    const nested = join(dir, 'states', 'production', 'portalctl.state.json');
    const store = new FileStateStore({ path: nested });
    const lock = await store.lock({ operation: 'apply' });
    await store.write(newState(PORTAL));
    await store.unlock(lock);
    expect((await store.read())?.serial).toBe(1);
  });

  it('makes a second locker wait, then fail naming the owner, pid, host, time and the unlock command', async () => {
    const holder = new FileStateStore({ path: file, host: 'runner-a', pid: process.pid, user: 'alice' });
    const held = await holder.lock({ operation: 'apply' });
    const polls: number[] = [];
    const waiter = new FileStateStore({
      path: file,
      user: 'bob',
      sleep: (ms) => {
        polls.push(ms);
        return Promise.resolve();
      },
      now: (() => {
        let clock = Date.now();
        return () => (clock += 50);
      })(),
    });
    const error = await waiter.lock({ operation: 'plan', timeoutMs: 500, pollMs: 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateLockedError);
    const message = (error as Error).message;
    expect(message).toContain('alice@runner-a');
    expect(message).toContain(`pid ${process.pid}`);
    expect(message).toContain('runner-a');
    expect(message).toContain(held.info.created);
    expect(message).toContain('portalctl state unlock');
    expect(polls.length).toBeGreaterThan(1);
    expect(await holder.currentLock()).toEqual(held.info);
  });

  it('gets the lock once the holder releases it while waiting', async () => {
    const holder = new FileStateStore({ path: file });
    const held = await holder.lock({ operation: 'apply' });
    let polls = 0;
    const waiter = new FileStateStore({
      path: file,
      sleep: async () => {
        polls += 1;
        if (polls === 2) await holder.unlock(held);
      },
    });
    const lock = await waiter.lock({ operation: 'apply', timeoutMs: 60_000 });
    expect(lock.info.id).not.toBe(held.info.id);
    expect(polls).toBe(2);
  });

  it('takes over an expired lock and says so', async () => {
    let clock = Date.parse('2025-01-01T00:00:00Z');
    const old = new FileStateStore({ path: file, host: 'elsewhere', pid: 1, now: () => clock });
    const stale = await old.lock({ operation: 'apply', ttlMs: 1000 });
    clock += 5000;
    const fresh = new FileStateStore({ path: file, now: () => clock, sleep: instantSleep });
    const lock = await fresh.lock({ operation: 'apply' });
    expect(lock.takenOver?.lock).toEqual(stale.info);
    expect(lock.takenOver?.reason).toContain('expired');
    expect(await fresh.currentLock()).toEqual(lock.info);
    await expect(old.unlock(stale)).rejects.toThrow(/taken over/);
    expect(await fresh.currentLock()).toEqual(lock.info);
  });

  it('takes over a lock whose process is gone on this host, but not one on another host', async () => {
    const deadPid = 2 ** 22 + 12345;
    const crashed = new FileStateStore({ path: file, host: 'this-host', pid: deadPid });
    const stale = await crashed.lock({ operation: 'apply' });
    const same = new FileStateStore({ path: file, host: 'this-host', sleep: instantSleep });
    const lock = await same.lock({ operation: 'apply' });
    expect(lock.takenOver?.lock.id).toBe(stale.info.id);
    expect(lock.takenOver?.reason).toContain(`process ${deadPid}`);
    await same.unlock(lock);

    await new FileStateStore({ path: file, host: 'other-host', pid: deadPid }).lock({ operation: 'apply' });
    await expect(same.lock({ operation: 'apply' })).rejects.toThrow(StateLockedError);
  });

  it('force-unlocks, optionally only a given lock id', async () => {
    const store = new FileStateStore({ path: file });
    const lock = await store.lock({ operation: 'apply' });
    await expect(store.forceUnlock('not-the-id')).rejects.toThrow(lock.info.id);
    expect(await store.currentLock()).toEqual(lock.info);
    expect(await store.forceUnlock(lock.info.id)).toEqual(lock.info);
    expect(await store.currentLock()).toBeUndefined();
    expect(await store.forceUnlock()).toBeUndefined();
  });

  it('withStateLock releases the lock on success and on failure', async () => {
    const store = new FileStateStore({ path: file });
    expect(await withStateLock(store, { operation: 'apply' }, async () => 42)).toBe(42);
    expect(await store.currentLock()).toBeUndefined();
    await expect(
      withStateLock(store, { operation: 'apply' }, async () => {
        throw new Error('apply failed');
      }),
    ).rejects.toThrow('apply failed');
    expect(await store.currentLock()).toBeUndefined();
  });

  it("a release that fails after the work is told beside the work's result, not in its place; after a failure, beside the failure", async () => {
    const store = new FileStateStore({ path: file });
    // The lock's directory turned read-only (a remount): the lock file can no longer be removed.
    store.unlock = () => Promise.reject(new Error('EPERM: operation not permitted'));
    const notices: string[] = [];
    const request = { operation: 'apply', onReleaseFailure: (message: string) => notices.push(message) };
    expect(await withStateLock(store, request, async () => 'the report')).toBe('the report');
    const id = (await store.currentLock())?.id;
    expect(notices).toEqual([
      `The state lock ${id} of file ${file} could not be released: EPERM: operation not permitted. A later run takes it over once this process is gone; \`portalctl state unlock ${id} --state ${file}\` releases it now.`,
    ]);
    await new FileStateStore({ path: file }).forceUnlock();
    await expect(withStateLock(store, request, () => Promise.reject(new Error('apply failed')))).rejects.toThrow('apply failed');
    expect(notices).toHaveLength(2);
    // Without a listener the release's error is thrown, as before.
    await new FileStateStore({ path: file }).forceUnlock();
    await expect(withStateLock(store, { operation: 'apply' }, async () => 'the report')).rejects.toThrow('EPERM');
  });

  it('describes itself', () => {
    expect(new FileStateStore({ path: file }).describe()).toBe(`file ${file}`);
  });
});

describe('file lock taken by many at once', () => {
  it('every run that does not get it names the one that did, never "no readable lock record"', async () => {
    for (let round = 0; round < 5; round++) {
      // Runs of this one process: a holder never looks dead to the others.
      const stores = Array.from({ length: 20 }, () => new FileStateStore({ path: file }));
      const outcomes = await Promise.allSettled(stores.map((store) => store.lock({ operation: 'apply' })));
      const won = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      expect(won).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') continue;
        expect(outcome.reason).toBeInstanceOf(StateLockedError);
        expect(String(outcome.reason)).toContain(`lock id ${won[0]?.info.id}`);
      }
      await rm(`${file}.lock`);
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
