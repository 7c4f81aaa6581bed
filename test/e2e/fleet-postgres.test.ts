/**
 * Fleet runs on a PostgreSQL state (README "Environments"): each environment's state is its own
 * state name in the one database, with its own lock. Two fleet applies at once converge without
 * a write sent twice; a lock held on one environment stops that environment alone.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { PostgresStateStore } from '../../src/state/index.js';
import { startFleet, type Fleet } from '../support/fleet.js';

const base = inject('postgresUrl');
let fleet: Fleet;
let url: string;
beforeEach(async () => {
  fleet = await startFleet();
  // A schema of its own: the state names (development, test, prod) are the example's.
  const withSchema = new URL(base);
  withSchema.searchParams.set('schema', `fleet_${randomUUID().slice(0, 8)}`);
  url = withSchema.toString();
});
afterEach(async () => {
  await fleet.dispose();
});

const row = (environment: string, changes: string, outcome: string) => new RegExp(`^${environment} +${changes} +\\d+ +${outcome}`, 'm');

describe('fleet runs on PostgreSQL state', () => {
  it('two fleet applies at once: every environment applied once, each state under its own name', async () => {
    const [first, second] = await Promise.all([
      fleet.run(['apply', 'config', '--all-envs', '--auto-approve', '--state', url, '--lock-timeout', '2m']),
      fleet.run(['apply', 'config', '--all-envs', '--auto-approve', '--state', url, '--lock-timeout', '2m', '--env-parallelism', '1']),
    ]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // Whichever came second to an environment found it done: no write was sent twice.
    expect((await fleet.portals.development.requests({ writesOnly: true })).length).toBe(4);
    expect((await fleet.portals.test.requests({ writesOnly: true })).length).toBe(5);
    expect((await fleet.portals.production.requests({ writesOnly: true })).length).toBe(6);
    for (const [name, addresses] of [['development', 4], ['test', 5], ['prod', 6]] as const) {
      const store = new PostgresStateStore({ url, name });
      try {
        const state = await store.read();
        expect(Object.keys(state?.resources ?? {}).length).toBeGreaterThanOrEqual(addresses);
        expect(await store.currentLock()).toBeUndefined();
      } finally {
        await store.close();
      }
    }
    const plan = await fleet.run(['plan', 'config', '--all-envs', '--state', url, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it("a lock held on one environment's state stops that environment alone; the others apply", async () => {
    const holder = new PostgresStateStore({ url, name: 'prod', command: 'the test holding the lock' });
    const lock = await holder.lock({ operation: 'apply', timeoutMs: 0 });
    try {
      const result = await fleet.run(['apply', 'config', '--all-envs', '--auto-approve', '--state', url]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(row('development', '4', 'applied'));
      expect(result.stdout).toMatch(row('test', '5', 'applied'));
      expect(result.stdout).toMatch(/^production +- +- +failed: The state .*state "prod".* is locked by .*the test holding the lock/m);
      expect(await fleet.portals.production.requests({ writesOnly: true })).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(new URL(base).password || 'no password in the URL');
    } finally {
      await holder.unlock(lock);
      await holder.close();
    }
  });
});
