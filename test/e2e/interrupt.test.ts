/**
 * A long apply killed (SIGKILL) or interrupted (SIGINT) half-way, then run again: the state
 * file stays valid, the second run converges, and nothing that is not idempotent (E13
 * invitations) is sent twice.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { CONFIG_HEADER, SAMPLE_ORG, startCliPortal, waitFor, type CliPortal } from '../support/cli.js';

const ITEM_COUNT = 200;
const INVITE_COUNT = 8;
const itemId = (n: number): string => `e2e${n.toString(16).padStart(29, '0')}`;
const inviteUrl = (n: number): string => `https://partner${n}.example.org/portal`;

async function bigOrganization(): Promise<EmulatorState> {
  const sample = parse(await readFile(SAMPLE_ORG, 'utf8')) as EmulatorState & { items: unknown[] };
  const items = Array.from({ length: ITEM_COUNT }, (_, n) => ({ id: itemId(n), title: `Layer ${n}`, owner: 'publisher1', access: 'org' }));
  return { ...sample, items: [...sample.items, ...items] } as EmulatorState;
}

// Every item changes on purpose: the change threshold for item status is lifted.
const BIG_CONFIG =
  `${CONFIG_HEADER}safety:\n  item.status: { maxUpdates: 1 }\nitems:\n${Array.from({ length: ITEM_COUNT }, (_, n) => `  - { id: ${itemId(n)}, status: deprecated }\n`).join('')}` +
  `collaborations:\n  - id: c0ffee\n    participants:\n` +
  Array.from({ length: INVITE_COUNT }, (_, n) => `      - guestPortalUrl: ${inviteUrl(n)}\n        workspaces: { w1: receive }\n`).join('');

describe('interrupted applies', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal({ data: await bigOrganization() });
    config = await portal.writeConfig(BIG_CONFIG);
    await portal.latency(15);
  });
  afterEach(async () => portal.dispose());

  const writeCount = async (): Promise<number> => (await portal.requests({ writesOnly: true })).filter((entry) => entry.response?.status === 200).length;

  /** Every invited URL was invited at most once, and the portal's items all carry the status. */
  async function expectConvergedWithoutDuplicates(): Promise<void> {
    const invites = (await portal.requests({ writesOnly: true })).filter((entry) => entry.path.endsWith('/inviteParticipant'));
    const perUrl = new Map<string, number>();
    for (const entry of invites) perUrl.set(entry.params['guestPortalUrl'] ?? '', (perUrl.get(entry.params['guestPortalUrl'] ?? '') ?? 0) + 1);
    expect([...perUrl.keys()].sort()).toEqual(Array.from({ length: INVITE_COUNT }, (_, n) => inviteUrl(n)).sort());
    expect([...perUrl.values()].every((count) => count === 1)).toBe(true);

    const live = await portal.state();
    expect(live.items.filter((item) => item.id.startsWith('e2e') && item.contentStatus === 'deprecated')).toHaveLength(ITEM_COUNT);
    await portal.latency(0);
    const plan = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    const drift = await portal.run(['drift', config]);
    expect(drift.code).toBe(0);
  }

  /** Every write the portal accepted before the stop is in the state file. */
  async function expectAcceptedWritesRecorded(): Promise<void> {
    const recorded = await portal.recorded();
    const live = await portal.state();
    for (const item of live.items.filter((entry) => entry.id.startsWith('e2e') && entry.contentStatus === 'deprecated')) {
      expect(recorded?.resources[`item[${item.id}].status`], item.id).toMatchObject({ value: 'deprecated' });
    }
  }

  it('SIGKILL mid-apply, then apply again: converged, state valid, no invitation sent twice', async () => {
    const first = portal.start(['apply', config, '--auto-approve', '--parallelism', '2']);
    await waitFor(async () => (await writeCount()) >= 12, 'some writes', first.done);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const done = await writeCount();
    expect(done).toBeLessThan(ITEM_COUNT + INVITE_COUNT);

    // The state file is valid JSON that the product parses (or absent if the kill came first).
    const recorded = await portal.recorded();
    expect(recorded === undefined || recorded.serial >= 1).toBe(true);

    await portal.latency(0);
    const second = await portal.run(['apply', config, '--auto-approve', '--parallelism', '4']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('The portal now matches the configuration.');
    expect(JSON.parse(await readFile(portal.statePath, 'utf8'))).toBeTruthy();
    await expectConvergedWithoutDuplicates();
  });

  it('SIGINT mid-apply: in-flight operations finish and are recorded, exit 130, then apply converges', async () => {
    const first = portal.start(['apply', config, '--auto-approve', '--parallelism', '2']);
    await waitFor(async () => (await writeCount()) >= 12, 'some writes', first.done);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/interrupted/i);
    expect(interrupted.stdout).toMatch(/Apply finished: \d+ applied, 0 failed, \d+ skipped/);
    expect(await portal.store.currentLock()).toBeUndefined();
    await expectAcceptedWritesRecorded();
    const accepted = await writeCount();
    expect(accepted).toBeLessThan(ITEM_COUNT + INVITE_COUNT);

    // Every accepted write was reported applied: the ones in flight at the interrupt finished.
    expect(interrupted.stdout).toContain(`Apply finished: ${accepted} applied`);
    // Then it stopped: the portal was not read again to check convergence (the next plan does).
    const log = await portal.requests();
    const lastWrite = log.map((entry) => entry.access).lastIndexOf('write');
    expect(log.slice(lastWrite + 1).map((entry) => `${entry.method} ${entry.path}`)).toEqual([]);
    await portal.latency(0);
    const second = await portal.run(['apply', config, '--auto-approve']);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    await expectConvergedWithoutDuplicates();
  });

  it('a second SIGINT stops at once; apply again converges', async () => {
    const first = portal.start(['apply', config, '--auto-approve', '--parallelism', '2']);
    await waitFor(async () => (await writeCount()) >= 12, 'some writes', first.done);
    // A write held by the portal is still in flight after the first Ctrl-C, so the second one cuts it off.
    await portal.fault({ path: '/content/items/*/setContentStatus', method: 'POST', hold: true });
    await waitFor(async () => (await portal.requests({ writesOnly: true })).some((entry) => entry.response === undefined), 'a write to be held', first.done);
    first.child.kill('SIGINT');
    await waitFor(() => first.output().stderr.includes('Interrupted'), 'the first interrupt to be acknowledged', first.done);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('\nStopped at once. Operations in flight may or may not have completed; run plan to see.\n');
    await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
    // Even stopped at once, the lock is released.
    expect(stopped.stderr).toContain('Released the state lock');
    expect(await portal.store.currentLock()).toBeUndefined();
    await portal.clearFaults();

    await portal.latency(0);
    const second = await portal.run(['apply', config, '--auto-approve']);
    expect(second.code).toBe(0);
    await expectConvergedWithoutDuplicates();
  });
});
