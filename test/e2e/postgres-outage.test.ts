/**
 * The database stopped in the middle of an apply: a clear error (no password, no stack), no
 * write is sent after the first one that could not be recorded, what was applied but not
 * recorded is kept in a recovery file, the recorded state stays a whole committed state, and
 * once the database is back the next apply records the recovery file and converges without
 * repeating a write. Uses a server of its own, since it stops it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/state/index.js';
import { startEmbeddedPostgres } from '../support/postgres.mjs';

type TestPostgres = Awaited<ReturnType<typeof startEmbeddedPostgres>>;
import { CONFIG_HEADER, SAMPLE_ORG, startCliPortal, waitFor, whilePaused, type CliPortal } from '../support/cli.js';
import { parse } from 'yaml';
import type { EmulatorState } from '../../src/emulator/index.js';

const ITEMS = 10;
const itemId = (n: number): string => `0a7a9e${n.toString(16).padStart(26, '0')}`;
const OPERATIONS = ITEMS + 3;
const CONFIG = `${CONFIG_HEADER}
organization:
  securityPolicy:
    minLength: 12
items:
  - { id: 1105a1562c9c4dd98e557595bf8a2617, status: deprecated }
${Array.from({ length: ITEMS }, (_, n) => `  - { id: ${itemId(n)}, status: deprecated }\n`).join('')}users:
  - username: jsmith
    tasks:
      - { id: a1b2c3, enabled: true }
`;

async function organization(): Promise<EmulatorState> {
  const sample = parse(await readFile(SAMPLE_ORG, 'utf8')) as EmulatorState & { items: unknown[] };
  const items = Array.from({ length: ITEMS }, (_, n) => ({ id: itemId(n), title: `Layer ${n}`, owner: 'publisher1', access: 'org' }));
  return { ...sample, items: [...sample.items, ...items] } as EmulatorState;
}

describe('PostgreSQL stopped mid-apply', () => {
  let database: TestPostgres;
  let portal: CliPortal;

  beforeAll(async () => {
    database = await startEmbeddedPostgres();
    portal = await startCliPortal({ data: await organization() });
  });
  afterAll(async () => {
    await portal?.dispose();
    await database?.dispose();
  });

  it('fails clearly, leaves a consistent state, and the next apply converges', async () => {
    const password = new URL(database.url).password;
    const config = await portal.writeConfig(CONFIG);
    // --force: changing every one of these items is over the default change threshold, on purpose.
    const args = ['apply', config, '--auto-approve', '--force', '--parallelism', '1', '--state-name', 'outage'];
    await portal.latency(500);
    const store = new PostgresStateStore({ url: database.url, name: 'outage' });
    const running = portal.start(args, { state: database.url });
    // Stop the server once the first operation is recorded and the next one is on its way, with
    // the apply paused meanwhile: the database is gone before its next record, however slow the stop.
    await waitFor(async () => ((await store.read().catch(() => undefined))?.serial ?? 0) >= 1 && (await portal.requests({ writesOnly: true })).length >= 2, 'a recorded write and another in flight', running.done);
    await whilePaused(running.child, async () => {
      await store.close();
      await database.stop();
    });
    const failed = await running.done;
    expect(failed.code).toBe(1);
    expect(failed.signal).toBeNull();
    const output = failed.stdout + failed.stderr;
    expect(output).toMatch(/PostgreSQL state at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres state "outage"/);
    expect(output).not.toContain(password);
    expect(output).not.toMatch(/\n\s+at /);
    // The writes in flight when the database went away were answered; no new one was sent after the failure.
    const sentBeforeRestart = await portal.requests({ writesOnly: true });
    expect(sentBeforeRestart.length).toBeLessThan(OPERATIONS);
    expect(failed.stderr).toContain('so no further write was sent');
    const recoveryFile = join(portal.dir, 'portalctl-outage.recovery.json');
    const notRecorded = /(\d+) operations? (?:was|were) applied on the portal but not recorded: (.*?)\. (?:It is|They are) kept in (\S+);/.exec(failed.stderr);
    expect(notRecorded, failed.stderr).not.toBeNull();
    expect(notRecorded?.[3]).toBe(recoveryFile);
    expect(failed.stdout).toMatch(/NOT RECORDED/);
    expect(failed.stdout).not.toMatch(/FAILED/);
    const recovery = JSON.parse(await readFile(recoveryFile, 'utf8')) as { resources: Record<string, unknown>; state: string };
    expect(Object.keys(recovery.resources).sort()).toEqual((notRecorded?.[2] ?? '').split(', ').sort());
    expect(JSON.stringify(recovery)).not.toContain(password);

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
      expect(again.stderr).toContain(`Recorded ${Object.keys(recovery.resources).length} operation${Object.keys(recovery.resources).length === 1 ? '' : 's'} kept in the recovery file ${recoveryFile}`);
      expect(again.stdout).toMatch(/The portal (now )?matches the configuration\./);
      const plan = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', 'outage'], { state: database.url });
      expect(plan.code).toBe(0);
      // Every write was sent exactly once.
      const writes = await portal.requests({ writesOnly: true });
      expect(writes).toHaveLength(OPERATIONS);
      expect(new Set(writes.map((write) => `${write.path} ${JSON.stringify(write.params)}`)).size).toBe(OPERATIONS);
    } finally {
      await reopened.close();
    }
  });
});
