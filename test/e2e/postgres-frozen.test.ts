/**
 * The database as a fault source: a PostgreSQL server that stops answering (every process of it
 * SIGSTOPped: connections are accepted, nothing is answered) fails each call within its bound
 * (`connect_timeout`, `query_timeout` in the state URL), with a message naming the bound and no
 * password; mid-apply, no portal write is sent while the state has not taken the last one, what
 * was applied and not recorded goes to the recovery file, and once the server answers again the
 * next apply records it first. SIGTERM while the database is frozen still ends the apply. Uses a
 * server of its own, since it freezes it; every test resumes it in its cleanup.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { PostgresStateStore } from '../../src/state/index.js';
import { CONFIG_HEADER, SAMPLE_ORG, startCliPortal, THREE_CHANGES, waitFor, type CliPortal } from '../support/cli.js';
import { startEmbeddedPostgres } from '../support/postgres.mjs';

type TestPostgres = Awaited<ReturnType<typeof startEmbeddedPostgres>>;

const ITEMS = 6;
const itemId = (n: number): string => `f0e2e${n.toString(16).padStart(27, '0')}`;
const CONFIG = `${CONFIG_HEADER}safety:\n  item.status: { maxUpdates: 1 }\nitems:\n${Array.from({ length: ITEMS }, (_, n) => `  - { id: ${itemId(n)}, status: deprecated }\n`).join('')}`;

async function organization(): Promise<EmulatorState> {
  const sample = parse(await readFile(SAMPLE_ORG, 'utf8')) as EmulatorState & { items: unknown[] };
  const items = Array.from({ length: ITEMS }, (_, n) => ({ id: itemId(n), title: `Layer ${n}`, owner: 'publisher1', access: 'org' }));
  return { ...sample, items: [...sample.items, ...items] } as EmulatorState;
}

describe('a PostgreSQL server that stops answering', () => {
  let database: TestPostgres;
  let portal: CliPortal;
  /** The URL with short bounds, so that each test waits seconds, not the defaults. */
  let bounded: string;
  let password: string;

  beforeAll(async () => {
    database = await startEmbeddedPostgres();
    portal = await startCliPortal({ data: await organization() });
    const url = new URL(database.url);
    password = url.password;
    url.searchParams.set('connect_timeout', '2');
    url.searchParams.set('query_timeout', '2');
    bounded = url.toString();
  }, 60_000);
  afterEach(async () => {
    database.thaw();
    await portal.latency(0);
    await portal.clearRequests();
  });
  afterAll(async () => {
    database?.thaw();
    await portal?.dispose();
    await database?.dispose();
  });

  it('connecting to it fails within connect_timeout, naming the bound, for a read and for an apply', async () => {
    const config = await portal.writeConfig(THREE_CHANGES, 'connect');
    database.freeze();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run([...args, '--state-name', 'frozen-connect'], { state: bounded });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/Could not connect to the PostgreSQL state at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?connect_timeout=2&query_timeout=2 state "frozen-connect" within 2 s/);
      expect(result.stderr).toContain('connect_timeout=SECONDS');
      expect(result.stderr).not.toContain(password);
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('mid-apply: no write is sent after the one whose record is waiting; the rest goes to the recovery file and is recorded first next time', { timeout: 60_000 }, async () => {
    const config = await portal.writeConfig(CONFIG, 'mid-apply');
    const args = ['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', 'frozen-apply'];
    await portal.latency(300);
    const store = new PostgresStateStore({ url: database.url, name: 'frozen-apply' });
    const running = portal.start(args, { state: bounded });
    // Frozen once the first operation is recorded and the second is on its way to the portal.
    await waitFor(async () => ((await store.read().catch(() => undefined))?.serial ?? 0) >= 1 && (await portal.requests({ writesOnly: true })).length >= 2, 'a recorded write and another in flight');
    await store.close();
    database.freeze();
    const failed = await running.done;
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(/did not answer (the commit of a write )?within 2 s/);
    expect(failed.stderr).toContain('query_timeout=SECONDS');
    expect(failed.stderr + failed.stdout).not.toContain(password);
    // The second write's record never came: no third write was sent.
    expect(await portal.requests({ writesOnly: true })).toHaveLength(2);
    const recoveryFile = join(portal.dir, 'portalctl-frozen-apply.recovery.json');
    const recovery = JSON.parse(await readFile(recoveryFile, 'utf8')) as { resources: Record<string, unknown> };
    expect(Object.keys(recovery.resources)).toHaveLength(1);
    expect(failed.stdout).toMatch(/NOT RECORDED/);

    database.thaw();
    await portal.latency(0);
    const again = await portal.run(args, { state: bounded });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Recorded 1 operation kept in the recovery file ${recoveryFile}`);
    // Every item's write was sent exactly once.
    const writes = await portal.requests({ writesOnly: true });
    expect(writes).toHaveLength(ITEMS);
    expect(new Set(writes.map((write) => write.path)).size).toBe(ITEMS);
  });

  it('SIGTERM while the database is frozen mid-apply ends the apply: exit 130, what was not recorded is kept', { timeout: 60_000 }, async () => {
    const config = await portal.writeConfig(CONFIG.replaceAll('deprecated', 'org_authoritative'), 'sigterm');
    const args = ['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', 'frozen-sigterm'];
    await portal.latency(300);
    const store = new PostgresStateStore({ url: database.url, name: 'frozen-sigterm' });
    const running = portal.start(args, { state: bounded });
    await waitFor(async () => ((await store.read().catch(() => undefined))?.serial ?? 0) >= 1 && (await portal.requests({ writesOnly: true })).length >= 2, 'a recorded write and another in flight');
    await store.close();
    database.freeze();
    running.child.kill('SIGTERM');
    const result = await running.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('Interrupted: finishing the operations in flight');
    expect(result.stderr).not.toContain(password);
    const recoveryFile = join(portal.dir, 'portalctl-frozen-sigterm.recovery.json');
    expect(result.stderr).toContain(recoveryFile);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(2);
  });
});
