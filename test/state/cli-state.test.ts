/**
 * The state commands on a file through the real CLI: a corrupt file's message names only
 * versions that exist, an empty lock file reads the same to `apply` and to `state unlock`,
 * history and surgery work as on PostgreSQL, and --state-name is refused for a file.
 */
import { readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { CLI, CONFIG_HEADER, startCliPortal, waitFor, type CliPortal } from '../support/cli.js';
import { FileStateStore, newState, recordOperation, serializeState } from '../../src/state/index.js';

const CONFIG = `${CONFIG_HEADER}
organization:
  securityPolicy:
    minLength: 12
`;

describe('file state through the CLI', () => {
  let portal: CliPortal;
  let config: string;
  beforeAll(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CONFIG);
  });
  afterAll(async () => portal.dispose());

  it('a corrupt state file with no backup does not point at one, and nothing changes', async () => {
    await writeFile(portal.statePath, '{"formatVersion": 1, "lin');
    const plan = await portal.run(['plan', config]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`State file ${portal.statePath} is corrupt`);
    expect(plan.stderr).not.toContain('.backup');
    expect(plan.stderr).toContain('No earlier version of it is kept');
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).not.toContain('.backup');
    expect(await readFile(portal.statePath, 'utf8')).toBe('{"formatVersion": 1, "lin');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    await rm(portal.statePath);
  });

  it('a state written by a later portalctl is said to be so, not corrupt: no backup or new state offered, nothing changes', async () => {
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    // Both the line layout and a whole-document one, as a later release might write.
    const state = JSON.parse(await readFile(portal.statePath, 'utf8')) as Record<string, unknown>;
    for (const text of [(await readFile(portal.statePath, 'utf8')).replace('"formatVersion": 1', '"formatVersion": 2'), JSON.stringify({ ...state, formatVersion: 2 })]) {
      await writeFile(portal.statePath, text);
      await portal.clearRequests();
      for (const args of [['plan', config], ['apply', config, '--auto-approve'], ['state', 'list'], ['state', 'show', '--serial', '1']]) {
        const run = await portal.run(args);
        expect(run.code, args.join(' ')).toBe(1);
        expect(run.stderr, args.join(' ')).toBe(
          `Error: State file ${portal.statePath} was written by a later portalctl (state format version 2; this one reads version 1): run that portalctl, or a later one. Nothing was changed.\n`,
        );
      }
      expect(await readFile(portal.statePath, 'utf8')).toBe(text);
      expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    }
    await rm(portal.statePath, { force: true });
    await rm(`${portal.statePath}.backup`, { force: true });
    await rm(`${portal.statePath}.history`, { recursive: true, force: true });
  });

  it('an empty lock file: apply and state unlock say the same thing, and unlock clears it', async () => {
    await writeFile(`${portal.statePath}.lock`, '');
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`lock file ${portal.statePath}.lock holds no readable lock record`);
    expect(apply.stderr).toContain('portalctl state unlock');
    const unlock = await portal.run(['state', 'unlock']);
    expect(unlock.code).toBe(0);
    expect(unlock.stdout).toBe(`Removed the lock ${portal.statePath}.lock, which held no readable lock record.\n`);
    expect((await portal.run(['state', 'unlock'])).stdout).toBe(`The state file ${portal.statePath} is not locked.\n`);
    const again = await portal.run(['apply', config, '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('a lock file without a record, long abandoned, is taken over and the run says so', async () => {
    const lockFile = `${portal.statePath}.lock`;
    await writeFile(lockFile, '');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(lockFile, hourAgo, hourAgo);
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toMatch(new RegExp(`Took over the state lock ${lockFile.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}: it held no readable lock record and was last written 60m ago\\.`));
  });

  it('concurrent applies on one file state: one applies, every other one names the holder', async () => {
    await portal.latency(200);
    const changes = CONFIG.replace('minLength: 12', 'minLength: 13');
    const contender = await portal.writeConfig(changes, 'concurrent');
    const runs = await Promise.all(Array.from({ length: 8 }, () => portal.run(['apply', contender, '--auto-approve'])));
    await portal.latency(0);
    const winners = runs.filter((run) => run.code === 0);
    expect(winners).toHaveLength(1);
    for (const loser of runs.filter((run) => run.code !== 0)) {
      expect(loser.stderr).toMatch(/The state .* is locked by \S+@\S+ \(pid \d+ on .*, running "portalctl apply .*"\) since .*; lock id [0-9a-f-]+\./);
      expect(loser.stderr).not.toContain('no readable lock record');
    }
  });

  it("a state file removed to start afresh: the next apply sets the old history aside and says so; history lists the new state's serials only", async () => {
    const place = join(portal.dir, 'afresh', 'portalctl.state.json');
    const first = await portal.run(['apply', config, '--auto-approve'], { state: place });
    expect(first.code, first.stderr).toBe(0);
    const old = JSON.parse(await readFile(place, 'utf8')) as { lineage: string };
    await rm(place);
    await rm(`${place}.backup`, { force: true });
    const again = await portal.run(['apply', config, '--auto-approve'], { state: place });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${place}.history held the history of another state (lineage ${old.lineage}, its file gone); it is kept as ${place}.history-${old.lineage}, and this state's history starts afresh.\n`);
    const fresh = JSON.parse(await readFile(place, 'utf8')) as { lineage: string; serial: number };
    const history = await portal.run(['state', 'history'], { state: place });
    const listed = history.stdout.trim().split('\n').slice(2).map((line) => Number(line.split('\t')[0]));
    expect(listed).toEqual(Array.from({ length: fresh.serial }, (_, index) => fresh.serial - index));
    expect(existsSync(join(`${place}.history-${old.lineage}`, '0000000001.json'))).toBe(true);
  });

  it('show --serial of a serial the history lists, its state file removed: said to have no state to rebuild it from, not to be unlisted', async () => {
    const place = join(portal.dir, 'removed', 'portalctl.state.json');
    const applied = await portal.run(['apply', config, '--auto-approve'], { state: place });
    expect(applied.code, applied.stderr).toBe(0);
    // Removed with a copy left beside it, as a later write keeps the version before as the backup.
    await writeFile(`${place}.backup`, await readFile(place, 'utf8'));
    await rm(place);
    const history = await portal.run(['state', 'history'], { state: place });
    expect(history.stdout).toMatch(/\n1\t/);
    // The copy beside it is the one to restore from: named.
    const backup = `The previous version is kept in ${place}.backup; inspect it and copy it over ${place} if it is valid.`;
    const shown = await portal.run(['state', 'show', '--serial', '1'], { state: place });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toBe(
      `Error: Serial 1 is listed in the history at file ${place}, but there is no state there to rebuild it from: the history holds what each write changed, undone from the current state. ${backup}\n`,
    );
    // A serial the history does not list: there is no recorded state at all, not a serial missing from one.
    const unlisted = await portal.run(['state', 'show', '--serial', '99'], { state: place });
    expect(unlisted.code).toBe(1);
    expect(unlisted.stderr).toBe(`Error: No recorded state at file ${place}, so no serial 99 to show. ${backup}\n`);
    await rm(`${place}.backup`);
    const noCopy = await portal.run(['state', 'show', '--serial', '1'], { state: place });
    expect(noCopy.stderr).toBe(
      `Error: Serial 1 is listed in the history at file ${place}, but there is no state there to rebuild it from: the history holds what each write changed, undone from the current state. ` +
        'Restore the state from a copy to see its earlier serials.\n',
    );
    const never = await portal.run(['state', 'show', '--serial', '2'], { state: join(portal.dir, 'never', 'portalctl.state.json') });
    expect(never.code).toBe(1);
    expect(never.stderr).toBe(`Error: No recorded state at file ${join(portal.dir, 'never', 'portalctl.state.json')}, so no serial 2 to show.\n`);
  });

  it('history, show --serial, rm and mv with --dry-run on a file; --state-name is for PostgreSQL only', async () => {
    const history = await portal.run(['state', 'history']);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/\n1\t\S+\t1\t1\tportalctl apply /);
    const serials = history.stdout.trim().split('\n').slice(2).map((line) => Number(line.split('\t')[0]));
    const shown = await portal.run(['state', 'show', '--serial', String(serials[serials.length - 1])]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ serial: serials[serials.length - 1] });
    // An address missing from an old serial is said to be missing there, not from the state.
    const missing = await portal.run(['state', 'show', '--serial', '1', 'role[r0]']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error: The state has no resource at role[r0]; nothing to show at serial 1.\n');

    const before = await readFile(portal.statePath, 'utf8');
    // A record moves within its kind only: organization.other is no address of the security policy.
    const across = await portal.run(['state', 'mv', 'organization.securityPolicy', 'organization.other', '--dry-run']);
    expect(across.code).toBe(1);
    expect(across.stderr).toContain('is not an address of the kind organization.securityPolicy');
    const dry = await portal.run(['state', 'rm', 'organization.securityPolicy', '--dry-run']);
    expect(dry.stdout).toContain('Would forget');
    expect(await readFile(portal.statePath, 'utf8')).toBe(before);
    const removed = await portal.run(['state', 'rm', 'organization.securityPolicy']);
    expect(removed.code, removed.stderr).toBe(0);
    const after = await portal.recorded();
    expect(after?.resources['organization.securityPolicy']).toBeUndefined();
    expect(after?.serial).toBe((JSON.parse(before) as { serial: number }).serial + 1);

    // Names of an object's own properties are no addresses: nothing is forgotten, no serial written.
    const unchanged = await readFile(portal.statePath, 'utf8');
    for (const name of ['toString', '__proto__', 'constructor']) {
      const bogus = await portal.run(['state', 'rm', name]);
      expect(bogus.code, name).toBe(1);
      expect(bogus.stderr).toContain(`The state has no resource at ${name}; nothing was removed.`);
    }
    expect(await readFile(portal.statePath, 'utf8')).toBe(unchanged);

    // A request marked in flight where nothing is recorded: the plan says to forget it with state rm, which does.
    const address = 'collaboration[c1].invitation[https://partner.example.org/portal]';
    const state = JSON.parse(unchanged) as { unknownOutcomes?: Record<string, unknown> };
    state.unknownOutcomes = { [address]: { kind: 'collaboration.invitation', ids: { collaborationId: 'c1' }, operation: 'E13 Invite collaboration participant', value: null, reason: 'in flight', since: new Date().toISOString() } };
    await writeFile(portal.statePath, JSON.stringify(state));
    const forgotten = await portal.run(['state', 'rm', address]);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();

    const named = await portal.run(['state', 'list', '--state-name', 'prod']);
    expect(named.code).toBe(1);
    expect(named.stderr).toBe('Error: --state-name applies to a PostgreSQL state (postgres://…); for a file, give --state another path instead of --state-name prod.\n');
    // state push/pull name the option given for their other state, and what named the file.
    const source = await portal.run(['state', 'push', 'other.json', '--source-name', 'prod']);
    expect(source.stderr).toBe('Error: --source-name applies to a PostgreSQL state (postgres://…); for a file, give state push SOURCE another path instead of --source-name prod.\n');

    // A URL of another kind is no file path (it ran as a first plan, against an empty state); a file:// URL is one.
    const recorded = await readFile(portal.statePath, 'utf8');
    const config = await portal.writeConfig(CONFIG, 'state-urls');
    const mistyped = await portal.run(['plan', config], { state: 'postgress://ops@db.example.com/states' });
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toBe("Error: --state takes a file's path or a postgres:// URL, and postgress:// is neither (did you mean postgres://?): portalctl keeps state in a file or in PostgreSQL.\n");
    const fromEnv = spawnSync(process.execPath, [CLI, 'state', 'list'], { encoding: 'utf8', env: { ...process.env, PORTALCTL_STATE: 's3://bucket/portalctl.state.json' } });
    expect(fromEnv.stderr).toBe("Error: PORTALCTL_STATE takes a file's path or a postgres:// URL, and s3:// is neither: portalctl keeps state in a file or in PostgreSQL.\n");
    // Onto itself: refused (it replaced the backup of the version before with this one).
    const backup = await readFile(`${portal.statePath}.backup`, 'utf8');
    for (const action of ['push', 'pull']) {
      const itself = await portal.run(['state', action, portal.statePath]);
      expect(itself.code, action).toBe(1);
      expect(itself.stderr).toBe(`Error: state ${action}: ${portal.statePath} is the --state state itself (file ${portal.statePath}); nothing was copied.\n`);
    }
    expect(await readFile(`${portal.statePath}.backup`, 'utf8')).toBe(backup);
    const push = await portal.run(['state', 'push', 'postgre://db.example.com/states']);
    expect(push.stderr).toContain("Error: state push SOURCE takes a file's path or a postgres:// URL, and postgre:// is neither (did you mean postgres://?)");
    const asUrl = await portal.run(['state', 'list'], { state: pathToFileURL(portal.statePath).href });
    expect(asUrl.code, asUrl.stderr).toBe(0);
    expect(asUrl.stdout).toContain(`# file ${portal.statePath}: lineage`);
    expect(await readFile(portal.statePath, 'utf8')).toBe(recorded);

    // A config named where a state goes (state pull's destination): refused as no state, never written over.
    const configFile = join(config, 'portalctl.yaml');
    const configText = await readFile(configFile, 'utf8');
    const pulled = await portal.run(['state', 'pull', configFile]);
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).toBe(`Error: ${configFile} is not a portalctl state file: it is a config (YAML). Nothing was changed; name the state's own file (a file that does not exist yet starts a new state).\n`);
    expect(await readFile(configFile, 'utf8')).toBe(configText);
    // As push's source, a file that does not exist yet is nothing to copy: the advice is the source's.
    const pushed = await portal.run(['state', 'push', configFile]);
    expect(pushed.code).toBe(1);
    expect(pushed.stderr).toBe(`Error: ${configFile} is not a portalctl state file: it is a config (YAML). Nothing was changed; name a state file, or a postgres:// URL, to copy from.\n`);
    expect(await readFile(portal.statePath, 'utf8')).toBe(recorded);
  });
});

describe('state push and pull (file states)', () => {
  let portal: CliPortal;
  beforeAll(async () => {
    portal = await startCliPortal();
  });
  afterAll(async () => portal.dispose());

  it('--dry-run refuses what the copy refuses (an older serial, the same serial with other content); a copy of the very state already there copies nothing and says so', async () => {
    const destination = join(portal.dir, 'copies', 'destination.json');
    const store = new FileStateStore({ path: destination });
    const first = await store.write(newState({ url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' }));
    const second = await store.write(recordOperation(first, 'role[r1]', { kind: 'role', ids: { roleId: 'r1' }, value: { name: 'Analyst' } }));
    const older = join(portal.dir, 'copies', 'older.json');
    const sameSerial = join(portal.dir, 'copies', 'same-serial.json');
    const same = join(portal.dir, 'copies', 'same.json');
    await writeFile(older, serializeState(first));
    await writeFile(sameSerial, serializeState(recordOperation(second, 'role[r2]', { kind: 'role', ids: { roleId: 'r2' }, value: { name: 'Editor' } })));
    await writeFile(same, serializeState(second));
    const before = await readFile(destination, 'utf8');
    const history = async (): Promise<number[]> => (await store.history()).map((entry) => entry.serial);

    for (const dryRun of [['--dry-run'], []]) {
      const pushed = await portal.run(['state', 'push', older, ...dryRun], { state: destination });
      expect(pushed.code, pushed.stdout).toBe(1);
      expect(pushed.stderr).toBe(`Error: The state at file ${destination} is at serial 2, newer than the serial 1 being copied. Nothing was copied.\n`);
      const pulled = await portal.run(['state', 'pull', destination, ...dryRun], { state: older });
      expect(pulled.code, pulled.stdout).toBe(1);
      expect(pulled.stderr).toBe(pushed.stderr);
      const other = await portal.run(['state', 'push', sameSerial, ...dryRun], { state: destination });
      expect(other.code, other.stdout).toBe(1);
      expect(other.stderr).toBe(`Error: The state at file ${destination} is at the same serial 2 with other content. Nothing was copied.\n`);
      const again = await portal.run(['state', 'push', same, ...dryRun], { state: destination });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`file ${destination} holds this state already (lineage ${second.lineage}, serial 2, 1 resource); nothing was copied.\n`);
    }
    expect(await readFile(destination, 'utf8')).toBe(before);
    expect(await history()).toEqual([2, 1]);
  });
});

describe('state unlock and a running apply (file state)', () => {
  let portal: CliPortal;
  beforeAll(async () => {
    portal = await startCliPortal();
  });
  afterAll(async () => portal.dispose());

  it('leaves the lock of a process running on this host, unless the lock is named by its id', async () => {
    const config = await portal.writeConfig(CONFIG);
    // The apply's write waits at the portal: its lock is held meanwhile.
    await portal.fault({ path: '/portals/self/securityPolicy/update', method: 'POST', hold: true, count: 1 });
    const apply = portal.start(['apply', config, '--auto-approve']);
    const lockPath = `${portal.statePath}.lock`;
    await waitFor(async () => (await portal.requests({ writesOnly: true })).length > 0 && existsSync(lockPath), 'the held write, under the lock', apply.done);

    const refused = await portal.run(['state', 'unlock']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The state lock is held by a running process');
    expect(refused.stderr).toContain('Nothing was removed.');
    const { id } = JSON.parse(await readFile(lockPath, 'utf8')) as { id: string };
    expect(refused.stderr).toContain(`portalctl state unlock ${id}`);
    expect(existsSync(lockPath)).toBe(true);

    // The advised command names this state; run on another state it says there is no such lock there.
    const elsewhere = await portal.run(['state', 'unlock', id], { state: join(portal.dir, 'other.state.json') });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toBe(`Error: There is no lock ${id} on the state file ${join(portal.dir, 'other.state.json')}: it is not locked. Name the state the lock's message names (its --state and --state-name).\n`);
    expect(existsSync(lockPath)).toBe(true);
    const named = await portal.run(['state', 'unlock', id, '--state', portal.statePath]);
    expect(named.code, named.stderr).toBe(0);
    expect(existsSync(lockPath)).toBe(false);

    await portal.clearFaults();
    await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await apply.done).code).toBe(0);
  });
});
