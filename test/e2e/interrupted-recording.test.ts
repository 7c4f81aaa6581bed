/**
 * Ctrl-C while `apply` with nothing to send, or `apply --refresh-only`, records the live values
 * it just read (README "Exit codes"): that one state write finishes, then the run stops, saying
 * what it recorded (never "nothing was changed"); a second Ctrl-C stops at once, and the write
 * is then in the state whole or not at all. The state is in PostgreSQL, where the test holds its
 * row (SELECT ... FOR UPDATE), so the signal arrives while the CLI's write waits for it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/state/index.js';
import { POLICY_AND_ROLE, startCliPortal, waitFor, type CliPortal } from '../support/cli.js';
import { postgresUrl, uniqueSchema, withSchema } from '../support/postgres-sql.js';

const HAND_EDIT = 'Changed in the portal by hand';

let portal: CliPortal;
let config: string;
let schema: string;
let state: string;
let store: PostgresStateStore;

beforeEach(async () => {
  portal = await startCliPortal();
  config = await portal.writeConfig(POLICY_AND_ROLE);
  schema = uniqueSchema('stop');
  state = withSchema(schema);
  store = new PostgresStateStore({ url: state, name: 'default' });
  // Recorded once as the configuration asks; then someone edits the role's description on the portal by hand.
  const first = await portal.run(['apply', config, '--auto-approve'], { state });
  expect(first.code, first.stderr).toBe(0);
  const live = await portal.state();
  const role = live.roles.find((entry) => entry.id === 'r7HkQ2');
  if (!role) throw new Error('the sample organization has role r7HkQ2');
  role.description = HAND_EDIT;
  await portal.replaceState(live);
  await portal.clearRequests();
});

afterEach(async () => {
  await store.close();
  await portal.dispose();
});

/** The state's row held by a transaction of the test's own: the CLI's next state write waits for it. */
async function holdStateRow(): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`SELECT serial FROM "${schema}".states WHERE name = 'default' FOR NO KEY UPDATE`);
  return {
    release: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** Whether a session waits for the held row: the CLI's state write. */
async function writeWaiting(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%"${schema}".states%FOR UPDATE%`]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

/** What a second Ctrl-C says of the lock: not released by a query queued behind the stuck write, but by the server as the session ends. */
const releasedWithTheSession = (): string => `The state lock on ${store.describe()} is released by the database as this process's session ends (now).`;

/**
 * The process is gone; the server ends its session when it notices the closed connection, which
 * may be a moment later on a busy machine: the lock is no one's once it has.
 */
const sessionEnded = (): Promise<void> => waitFor(async () => (await store.currentLock()) === undefined, "the database to end the stopped process's session and its lock");

const recordedDescription = async (): Promise<unknown> => ((await store.read())?.resources['role[r7HkQ2]']?.value as { description?: string } | undefined)?.description;

const FIRST = 'Interrupted: finishing recording the live values just read (nothing is sent to the portal), then stopping. Press Ctrl-C again to stop at once.';
const CHECK_RECORDED_FIRST = 'Interrupted: finishing recording what the check that the portal converged read (nothing more is sent to the portal), then stopping. Press Ctrl-C again to stop at once.';

describe('Ctrl-C while the live values just read are recorded', () => {
  it('apply with nothing to send, adopting what the configuration matches: the recording finishes, then it stops saying what was recorded', async () => {
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('description: Edits field data', `description: ${HAND_EDIT}`));
    const serialBefore = (await store.read())?.serial;
    const row = await holdStateRow();
    const running = portal.start(['apply', config, '--auto-approve'], { state });
    try {
      await waitFor(writeWaiting, 'the state write to wait for the held row', running.done);
      running.child.kill('SIGINT');
      await waitFor(() => running.output().stderr.includes(FIRST), 'the interrupt noted', running.done);
    } finally {
      await row.release();
    }
    const result = await running.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toBe(
      `\n${FIRST}\nApply was interrupted: the live value of 1 object the configuration matches was recorded in the state (role[r7HkQ2]); nothing was sent to the portal.\n`,
    );
    // What it says is what the state holds: the adoption, in one new serial; the lock released.
    expect(await recordedDescription()).toBe(HAND_EDIT);
    expect((await store.read())?.serial).toBe((serialBefore ?? 0) + 1);
    expect(await store.currentLock()).toBeUndefined();
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    const drift = await portal.run(['drift', config], { state });
    expect(drift.code, drift.stdout).toBe(0);
  });

  it('apply --refresh-only: the recording finishes, then it stops with exit 130, saying what was recorded; a second Ctrl-C stops at once, recording nothing', async () => {
    const serialBefore = (await store.read())?.serial;
    let row = await holdStateRow();
    const running = portal.start(['apply', '--refresh-only', config, '--auto-approve'], { state });
    try {
      await waitFor(writeWaiting, 'the state write to wait for the held row', running.done);
      running.child.kill('SIGINT');
      await waitFor(() => running.output().stderr.includes(FIRST), 'the interrupt noted', running.done);
    } finally {
      await row.release();
    }
    const result = await running.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stdout).toContain('Refresh-only: 1 object to record from the portal (1 changed outside portalctl, 0 not recorded yet). Nothing is sent to the portal.');
    expect(result.stderr).toBe(
      `\n${FIRST}\nRefresh-only was interrupted: the live value of 1 object read from the portal was recorded in the state (role[r7HkQ2]); nothing was sent to the portal.\n`,
    );
    expect(await recordedDescription()).toBe(HAND_EDIT);
    expect((await store.read())?.serial).toBe((serialBefore ?? 0) + 1);
    expect(await store.currentLock()).toBeUndefined();

    // Again from the record the configuration asks for; this time a second Ctrl-C cuts the held write off.
    const reapplied = await portal.run(['apply', config, '--auto-approve'], { state });
    expect(reapplied.code, reapplied.stderr).toBe(0);
    const live = await portal.state();
    const role = live.roles.find((entry) => entry.id === 'r7HkQ2');
    if (role) role.description = HAND_EDIT;
    await portal.replaceState(live);
    const recorded = await store.read();
    row = await holdStateRow();
    const twice = portal.start(['apply', '--refresh-only', config, '--auto-approve'], { state });
    try {
      await waitFor(writeWaiting, 'the state write to wait for the held row', twice.done);
      twice.child.kill('SIGINT');
      await waitFor(() => twice.output().stderr.includes(FIRST), 'the first interrupt noted', twice.done);
      twice.child.kill('SIGINT');
      const stopped = await twice.done;
      expect(stopped.code, stopped.stderr).toBe(130);
      // The lock's session is the one whose write waits: it is released as the process ends.
      expect(stopped.stderr).toBe(
        `\n${FIRST}\n\nStopped at once, while recording the live values just read: that recording may or may not have completed (run plan or drift to see); nothing was sent to the portal.\n` +
          `${releasedWithTheSession()}\n`,
      );
    } finally {
      await row.release();
    }
    // Cut off before it committed: not recorded at all.
    expect(await store.read()).toEqual(recorded);
    await sessionEnded();
  });

  it('apply after the check that the portal converged has read it, while it records what the check saw: that recording finishes, then it stops saying so; a second Ctrl-C stops at once', async () => {
    // One change to send (the policy), and the hand-edited role, which the configuration now matches, adopted by the check's record.
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 14').replace('description: Edits field data', `description: ${HAND_EDIT}`));
    const release = async (): Promise<void> => void (await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' }));
    /** Starts apply and holds the check's read of the policy; once it is read, the check's record waits for the held row. */
    const startHeldAtTheCheck = async (): Promise<{ running: ReturnType<CliPortal['start']>; row: { release: () => Promise<void> } }> => {
      await portal.clearRequests();
      await portal.fault({ path: '/portals/self/securityPolicy/update', method: 'POST', hold: true });
      const running = portal.start(['apply', config, '--auto-approve'], { state });
      await waitFor(async () => (await portal.requests({ writesOnly: true })).length === 1, 'the held write', running.done);
      await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', hold: true });
      await release();
      // The write was recorded before the check began: its read is held now, and the row is free to take.
      await waitFor(async () => (await portal.requests()).filter((entry) => entry.path === '/portals/self/securityPolicy').length === 2, 'the check to read the policy again', running.done);
      const row = await holdStateRow();
      await release();
      await waitFor(writeWaiting, "the check's record to wait for the held row", running.done);
      return { running, row };
    };
    const serialBefore = (await store.read())?.serial ?? 0;

    const once = await startHeldAtTheCheck();
    try {
      once.running.child.kill('SIGINT');
      await waitFor(() => once.running.output().stderr.includes(CHECK_RECORDED_FIRST), 'the interrupt noted', once.running.done);
    } finally {
      await once.row.release();
    }
    const result = await once.running.done;
    expect(result.code, result.stderr).toBe(130);
    // Its report is whole: the operation applied and the role the check's record adopted.
    expect(result.stdout).toMatch(/\nApply finished: 1 applied, 0 failed, 0 skipped\.\nDrift resolved by adopting .*: 1\nadopted {2}role\[r7HkQ2\] — Field Analyst\n$/);
    expect(result.stderr).toBe(`\n${CHECK_RECORDED_FIRST}\nApply was interrupted as it ended: 1 applied and recorded; the portal converged.\n`);
    // What it says is what the state holds: the write's record, then the check's (the role adopted), the lock released.
    expect(await recordedDescription()).toBe(HAND_EDIT);
    expect((await store.read())?.serial).toBe(serialBefore + 2);
    expect(await store.currentLock()).toBeUndefined();
    const drift = await portal.run(['drift', config], { state });
    expect(drift.code, drift.stdout).toBe(0);

    // Again, a policy to send and a role edited by hand to adopt: this time a second Ctrl-C cuts the held recording off.
    const EDITED_AGAIN = 'Edited by hand again';
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 16').replace('description: Edits field data', `description: ${EDITED_AGAIN}`));
    const live = await portal.state();
    const role = live.roles.find((entry) => entry.id === 'r7HkQ2');
    if (role) role.description = EDITED_AGAIN;
    await portal.replaceState(live);
    const serialBeforeTwice = (await store.read())?.serial ?? 0;
    const twice = await startHeldAtTheCheck();
    let stopped: Awaited<typeof twice.running.done>;
    try {
      twice.running.child.kill('SIGINT');
      await waitFor(() => twice.running.output().stderr.includes(CHECK_RECORDED_FIRST), 'the first interrupt noted', twice.running.done);
      twice.running.child.kill('SIGINT');
      stopped = await twice.running.done;
    } finally {
      await twice.row.release();
    }
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toBe(
      `\n${CHECK_RECORDED_FIRST}\n\nStopped at once, while recording what the check that the portal converged read: what was applied is recorded; that recording may or may not have completed (run plan to see what is left).\n${releasedWithTheSession()}\n`,
    );
    // Cut off before it committed: the write's record is there, the check's is not; the lock went with the session.
    expect((await store.read())?.serial).toBe(serialBeforeTwice + 1);
    expect(await recordedDescription()).toBe(HAND_EDIT);
    await sessionEnded();
  });

  it("a second Ctrl-C while an operation's record waits for the database stops at once: the lock goes with the session, and the next apply takes it", async () => {
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 14'));
    const row = await holdStateRow();
    const running = portal.start(['apply', config, '--auto-approve'], { state });
    let stopped: Awaited<typeof running.done>;
    try {
      await waitFor(writeWaiting, "the operation's record to wait for the held row", running.done);
      running.child.kill('SIGINT');
      await waitFor(() => running.output().stderr.includes('Interrupted: finishing the operations in flight'), 'the first interrupt noted', running.done);
      running.child.kill('SIGINT');
      // Ended while the row is still held: nothing waited for the write, nor for a release queued behind it.
      stopped = await running.done;
    } finally {
      await row.release();
    }
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toBe(
      '\nInterrupted: finishing the operations in flight and recording them. Press Ctrl-C again to stop at once.\n' +
        '\nStopped at once. Operations in flight may or may not have completed; run plan to see.\n' +
        `${releasedWithTheSession()}\n`,
    );
    await sessionEnded();
    const next = await portal.run(['apply', config, '--auto-approve'], { state });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('Took over the state lock of');
  });

  it('apply --refresh-only while the portal is read: stops at once, nothing was changed', async () => {
    await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', hold: true });
    const recorded = await store.read();
    const running = portal.start(['apply', '--refresh-only', config, '--auto-approve'], { state });
    await waitFor(async () => (await portal.requests()).some((entry) => entry.path === '/portals/self/securityPolicy'), 'the held read', running.done);
    running.child.kill('SIGINT');
    const result = await running.done;
    await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^\nInterrupted: nothing was changed\.\nReleased the state lock on postgres:\/\/.*\n$/);
    expect(await store.read()).toEqual(recorded);
    expect(await store.currentLock()).toBeUndefined();
  });
});
