/**
 * The real CLI on the bundled emulator with its state in a real PostgreSQL database: apply,
 * plan and drift; four applies at once on one state name; the holder SIGKILLed mid-apply; a
 * second state name untouched throughout; the password never shown anywhere.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PostgresStateStore, type LockInfo, type StateDocument } from '../../src/state/index.js';
import { THREE_CHANGES, startCliPortal, waitFor, whilePaused, type CliPortal, type CliResult } from '../support/cli.js';

const CONFIG = THREE_CHANGES;

const url = inject('postgresUrl');
const password = new URL(url).password;
/** The same database, without the password in the URL: it comes from PGPASSWORD. */
const urlWithoutPassword = (() => {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
})();
const run = randomUUID().slice(0, 8);

function noSecret(result: CliResult): void {
  if (password) {
    expect(result.stdout).not.toContain(password);
    expect(result.stderr).not.toContain(password);
  }
}

describe('PostgreSQL state through the CLI', () => {
  let portal: CliPortal;
  let config: string;
  const bystanderName = `bystander-${run}`;
  let bystander: PostgresStateStore;
  let bystanderBefore: StateDocument | undefined;

  beforeAll(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CONFIG);
    // A second state name in the same database, written once, must stay untouched throughout.
    const seeded = await portal.run(['apply', config, '--auto-approve', '--state-name', bystanderName, '--target', 'organization'], { state: url });
    expect(seeded.code, seeded.stderr).toBe(0);
    bystander = new PostgresStateStore({ url, name: bystanderName });
    bystanderBefore = await bystander.read();
    expect(bystanderBefore?.serial).toBeGreaterThan(0);
  });

  afterAll(async () => {
    expect(await bystander.read()).toEqual(bystanderBefore);
    expect(await bystander.currentLock()).toBeUndefined();
    expect((await bystander.history()).map((entry) => entry.serial)).toEqual(
      Array.from({ length: bystanderBefore?.serial ?? 0 }, (_, index) => (bystanderBefore?.serial ?? 0) - index),
    );
    await bystander.close();
    await portal.dispose();
  });

  const reset = async (): Promise<void> => {
    await portal.latency(0);
    const fresh = await startCliPortal();
    await portal.replaceState(await fresh.state());
    await fresh.dispose();
    await portal.clearRequests();
  };

  it('applies, then plans nothing and reports no drift; history, show --serial and list work; the password is never shown', async () => {
    await reset();
    const name = `basic-${run}`;
    const state = { state: urlWithoutPassword, env: { PGPASSWORD: password } };
    const apply = await portal.run(['apply', config, '--auto-approve', '--state-name', name], state);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('The portal now matches the configuration.');
    const plan = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', name, '--out', 'plan.json'], state);
    expect(plan.code, plan.stderr).toBe(0);
    const drift = await portal.run(['drift', config, '--state-name', name], state);
    expect(drift.code, drift.stdout).toBe(0);
    expect(drift.stdout).toContain('In sync');

    const list = await portal.run(['state', 'list', '--state-name', name], state);
    expect(list.stdout).toContain(`state "${name}"`);
    expect(list.stdout).toContain('organization.securityPolicy');
    const history = await portal.run(['state', 'history', '--state-name', name], state);
    expect(history.code, history.stderr).toBe(0);
    const rows = history.stdout.trim().split('\n').slice(2);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows[0]).toMatch(/^\d+\t\S+\t3\t\d+\tportalctl apply /);
    const oldest = Number(rows[rows.length - 1]?.split('\t')[0]);
    const shown = await portal.run(['state', 'show', '--serial', String(oldest), '--state-name', name], state);
    expect((JSON.parse(shown.stdout) as StateDocument).serial).toBe(oldest);
    const missing = await portal.run(['state', 'show', '--serial', '999999', '--state-name', name], state);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('state history');

    // The password is in the URL here: still never printed, nor in the plan file or history.
    const withPassword = await portal.run(['state', 'list', '--state-name', name], { state: url });
    expect(withPassword.stdout).toContain(urlWithoutPassword.replace(/\/postgres$/, ''));
    for (const result of [apply, plan, drift, list, history, shown, missing, withPassword]) noSecret(result);
    if (password) {
      expect(await readFile(join(portal.dir, 'plan.json'), 'utf8')).not.toContain(password);
      expect(history.stdout).not.toContain(password);
    }

    // PORTALCTL_STATE does the same as --state; the flag wins over it.
    const fromEnv = await portal.run(['state', 'list', '--state-name', name], { state: url, env: { PORTALCTL_STATE: join(portal.dir, 'unused.json') } });
    expect(fromEnv.stdout).toContain(`state "${name}"`);
  });

  it('four applies at once on one state name: every write is sent once, and the losers name the winner', async () => {
    await reset();
    const name = `race-${run}`;
    // Slow answers keep the winner busy until the test has seen its lock and paused it.
    await portal.latency(300);
    const runs = Array.from({ length: 4 }, () => portal.start(['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', name], { state: url }));
    const watcher = new PostgresStateStore({ url, name });
    let holder: LockInfo | undefined;
    try {
      await waitFor(async () => (holder = await watcher.currentLock()) !== undefined, 'one of the four to take the lock');
    } finally {
      await watcher.close();
    }
    const winner = runs.find((started) => started.child.pid === holder?.pid);
    if (!winner) throw new Error(`the lock names pid ${holder?.pid}, none of the four`);
    // Paused, the winner holds the lock until the other three are done, however late they start.
    await whilePaused(winner.child, () => Promise.all(runs.filter((started) => started !== winner).map((started) => started.done)));
    const results = await Promise.all(runs.map((started) => started.done));
    const winners = results.map((result, index) => ({ result, pid: runs[index]?.child.pid })).filter(({ result }) => result.code === 0);
    const losers = results.filter((result) => result.code !== 0);
    expect(winners, results.map((result) => result.stderr).join('\n')).toHaveLength(1);
    expect(losers).toHaveLength(3);
    const winnerPid = winners[0]?.pid;
    for (const loser of losers) {
      expect(loser.stderr).toContain(`state "${name}" is locked by`);
      expect(loser.stderr).toContain(`pid ${winnerPid} on `);
      expect(loser.stderr).toContain('portalctl apply');
      expect(loser.stderr).toMatch(/lock id [0-9a-f-]{36}/);
      noSecret(loser);
    }
    const writes = await portal.requests({ writesOnly: true });
    const keys = writes.map((write) => `${write.method} ${write.path} ${JSON.stringify(write)}`);
    expect(writes).toHaveLength(3);
    expect(new Set(writes.map((write) => write.path)).size).toBe(3);
    expect(keys).toHaveLength(3);
    const after = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', name], { state: url });
    expect(after.code, after.stdout).toBe(0);
  });

  it('the holder SIGKILLed mid-apply: the next apply gets the lock without unlock and converges', async () => {
    await reset();
    const name = `killed-${run}`;
    const store = new PostgresStateStore({ url, name });
    try {
      await portal.latency(400);
      const victim = portal.start(['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', name], { state: url });
      await waitFor(async () => (await portal.requests({ writesOnly: true })).length >= 1, 'the first write of the holder', victim.done);
      const held = await store.currentLock();
      expect(held?.pid).toBe(victim.child.pid);
      victim.child.kill('SIGKILL');
      const killed = await victim.done;
      expect(killed.signal).toBe('SIGKILL');
      await portal.latency(0);

      // No `state unlock`: the database ended the dead session and its lock with it.
      await waitFor(async () => (await store.currentLock()) === undefined, 'the database to release the dead holder\'s lock');
      const next = await portal.run(['apply', config, '--auto-approve', '--state-name', name], { state: url });
      expect(next.code, next.stderr).toBe(0);
      // It says whose lock the database had released.
      expect(next.stderr).toContain(`Took over the state lock of ${held?.owner} (pid ${victim.child.pid} on ${held?.host}`);
      expect(next.stderr).toContain(`lock id ${held?.id}: its session had ended, so the database had released it.`);
      expect(next.stdout).toContain('The portal now matches the configuration.');
      const plan = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', name], { state: url });
      expect(plan.code).toBe(0);
      // Each of the three writes reached the portal once in all.
      const writes = await portal.requests({ writesOnly: true });
      expect(new Set(writes.map((write) => write.path)).size).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('state rm and mv: a new serial each, --dry-run changes nothing, refused while another run holds the lock', async () => {
    await reset();
    const name = `surgery-${run}`;
    const options = { state: url };
    expect((await portal.run(['apply', config, '--auto-approve', '--state-name', name], options)).code).toBe(0);
    const store = new PostgresStateStore({ url, name });
    try {
      const before = await store.read();
      const address = 'organization.securityPolicy';
      const dry = await portal.run(['state', 'rm', address, '--dry-run', '--state-name', name], options);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`- ${address}`);
      expect(await store.read()).toEqual(before);

      const held = await store.lock({ operation: 'apply' });
      const refused = await portal.run(['state', 'rm', address, '--state-name', name], options);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`lock id ${held.info.id}`);
      // Waiting, it names the holder at once (on a terminal, or with --verbose), then fails naming it again.
      const waited = await portal.run(['state', 'rm', address, '--state-name', name, '--lock-timeout', '300ms', '--verbose'], options);
      expect(waited.code).toBe(1);
      expect(waited.stderr).toMatch(new RegExp(`is locked by .*lock id ${held.info.id}; waiting up to 300ms \\(--lock-timeout\\)\\.\\n`));
      expect(waited.stderr).toContain(`Error: The state ${new URL(url).protocol}`);
      // `state unlock LOCK_ID` ends a live but stuck holder's session, and with it the lock.
      const unlocked = await portal.run(['state', 'unlock', held.info.id, '--state-name', name], options);
      expect(unlocked.code, unlocked.stderr).toBe(0);
      expect(unlocked.stdout).toContain(`Removed the lock of ${held.info.owner} (pid ${process.pid}`);
      expect(await store.currentLock()).toBeUndefined();
      expect((await portal.run(['state', 'unlock', '--state-name', name], options)).stdout).toMatch(new RegExp(`^The state postgres://\\S+ state "${name}" is not locked\\.\n$`));
      await store.unlock(held);
      expect(await store.read()).toEqual(before);

      // Across kinds a move is refused, changing nothing; within a kind it is a new serial.
      const across = await portal.run(['state', 'mv', address, 'organization.elsewhere', '--state-name', name], options);
      expect(across.code).toBe(1);
      expect(across.stderr).toContain('is not an address of the kind organization.securityPolicy');
      expect(await store.read()).toEqual(before);
      const item = 'item[1105a1562c9c4dd98e557595bf8a2617].status';
      const elsewhere = 'item[0000000000000000000000000000beef].status';
      const moved = await portal.run(['state', 'mv', item, elsewhere, '--state-name', name], options);
      expect(moved.code, moved.stderr).toBe(0);
      const afterMove = await store.read();
      expect(afterMove?.serial).toBe((before?.serial ?? 0) + 1);
      expect(afterMove?.resources[elsewhere]).toEqual({ ...before?.resources[item], ids: { itemId: '0000000000000000000000000000beef' } });
      expect(afterMove?.resources[item]).toBeUndefined();
      const removed = await portal.run(['state', 'rm', elsewhere, '--state-name', name], options);
      expect(removed.code, removed.stderr).toBe(0);
      expect((await store.read())?.serial).toBe((before?.serial ?? 0) + 2);
      const unknown = await portal.run(['state', 'rm', 'no.such.address', '--state-name', name], options);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no resource at no.such.address');
      expect((await store.history())[0]?.command).toContain(`portalctl state rm ${elsewhere}`);
    } finally {
      await store.close();
    }
  });

  it('a URL parameter portalctl does not read (a typo of query_timeout) is refused before the portal is read, not passed over', async () => {
    await reset();
    const typo = new URL(url);
    typo.searchParams.set('query_timout', '60');
    const shown = new URL(typo.toString());
    shown.password = '';
    const result = await portal.run(['apply', config, '--auto-approve', '--state-name', `typo-${run}`], { state: typo.toString() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Error: The state URL ${shown.toString()} sets query_timout, which portalctl does not read, so it would change nothing. Did you mean "query_timeout"? ` +
        'The parameters it reads: schema, connect_timeout, query_timeout, password, user, host, port, sslmode, sslrootcert, sslcert, sslkey, sslnegotiation, ssl, uselibpqcompat, ' +
        'application_name, fallback_application_name, options, client_encoding, statement_timeout, lock_timeout, idle_in_transaction_session_timeout.\n',
    );
    noSecret(result);
    expect(await portal.requests()).toEqual([]);
  });

  it('state pull to a file and push back keep lineage and serial; another lineage is refused', async () => {
    await reset();
    const name = `moved-${run}`;
    const copyName = `copy-${run}`;
    expect((await portal.run(['apply', config, '--auto-approve', '--state-name', name], { state: url })).code).toBe(0);
    const store = new PostgresStateStore({ url, name });
    const copy = new PostgresStateStore({ url, name: copyName });
    try {
      const original = await store.read();
      const pulled = await portal.run(['state', 'pull', 'pulled.json', '--state-name', name], { state: url });
      expect(pulled.code, pulled.stderr).toBe(0);
      const file = JSON.parse(await readFile(join(portal.dir, 'pulled.json'), 'utf8')) as StateDocument;
      expect(file).toEqual(original);

      const pushed = await portal.run(['state', 'push', 'pulled.json', '--state-name', copyName], { state: url });
      expect(pushed.code, pushed.stderr).toBe(0);
      expect(await copy.read()).toEqual(original);
      noSecret(pushed);

      // The file store keeps working from the pulled file: plan against it is empty.
      const plan = await portal.run(['plan', config, '--detailed-exitcode'], { state: join(portal.dir, 'pulled.json') });
      expect(plan.code, plan.stdout).toBe(0);

      // A state of another lineage is never overwritten.
      await writeFile(join(portal.dir, 'other.json'), JSON.stringify({ ...file, lineage: randomUUID(), serial: file.serial + 5 }));
      const refused = await portal.run(['state', 'push', 'other.json', '--state-name', copyName], { state: url });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('another state');
      expect(await copy.read()).toEqual(original);
    } finally {
      await store.close();
      await copy.close();
    }
  });
});
