/**
 * The database stopped in the middle of an apply: a clear error (no password, no stack), the
 * recorded state stays a whole committed state, and once the database is back the next apply
 * converges. Uses a server of its own, since it stops it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/state/index.js';
import { startEmbeddedPostgres } from '../support/postgres.mjs';

type TestPostgres = Awaited<ReturnType<typeof startEmbeddedPostgres>>;
import { CONFIG_HEADER, startCliPortal, waitFor, type CliPortal } from '../support/cli.js';

const CONFIG = `${CONFIG_HEADER}
organization:
  securityPolicy:
    minLength: 12
items:
  - { id: 1105a1562c9c4dd98e557595bf8a2617, status: deprecated }
users:
  - username: jsmith
    tasks:
      - { id: a1b2c3, enabled: true }
`;

describe('PostgreSQL stopped mid-apply', () => {
  let database: TestPostgres;
  let portal: CliPortal;

  beforeAll(async () => {
    database = await startEmbeddedPostgres();
    portal = await startCliPortal();
  }, 60_000);
  afterAll(async () => {
    await portal?.dispose();
    await database?.dispose();
  });

  it('fails clearly, leaves a consistent state, and the next apply converges', { timeout: 120_000 }, async () => {
    const password = new URL(database.url).password;
    const config = await portal.writeConfig(CONFIG);
    const args = ['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', 'outage'];
    await portal.latency(500);
    const store = new PostgresStateStore({ url: database.url, name: 'outage' });
    const running = portal.start(args, { state: database.url });
    // Stop the server once the first operation is recorded and the next one is on its way.
    await waitFor(async () => ((await store.read().catch(() => undefined))?.serial ?? 0) >= 1 && (await portal.requests({ writesOnly: true })).length >= 2, 'a recorded write and another in flight');
    await store.close();
    await database.stop();
    const failed = await running.done;
    expect(failed.code).toBe(1);
    expect(failed.signal).toBeNull();
    const output = failed.stdout + failed.stderr;
    expect(output).toMatch(/PostgreSQL state at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres state "outage"/);
    expect(output).not.toContain(password);
    expect(output).not.toMatch(/\n\s+at /);

    await database.start();
    await portal.latency(0);
    const reopened = new PostgresStateStore({ url: database.url, name: 'outage' });
    try {
      // What was committed is a whole state: readable, with its history up to its serial.
      const recorded = await reopened.read();
      expect(recorded?.serial).toBeGreaterThanOrEqual(1);
      expect((await reopened.history())[0]?.serial).toBe(recorded?.serial);
      expect(await reopened.currentLock()).toBeUndefined();

      const again = await portal.run(args, { state: database.url });
      expect(again.code, again.stderr).toBe(0);
      // Either it applies what was left, or (the writes having reached the portal) finds nothing to do.
      expect(again.stdout).toMatch(/The portal (now )?matches the configuration\./);
      const plan = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', 'outage'], { state: database.url });
      expect(plan.code).toBe(0);
      const writes = await portal.requests({ writesOnly: true });
      expect(new Set(writes.map((write) => write.path)).size).toBe(3);
    } finally {
      await reopened.close();
    }
  });
});
