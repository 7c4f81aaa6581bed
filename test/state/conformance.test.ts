/** The shared state store conformance suite, on the file store and on a real PostgreSQL server. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { FileStateStore, PostgresStateStore } from '../../src/state/index.js';
import { stateStoreConformance, type StoreHarness } from './conformance.js';

stateStoreConformance('file', async (): Promise<StoreHarness> => {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-conformance-'));
  const path = join(dir, 'portalctl.state.json');
  return {
    open: (options = {}) => new FileStateStore({ path, ...options }),
    corrupt: () => writeFile(path, '{"formatVersion": 1, "lineage": "x", "ser'),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
});

stateStoreConformance('postgres', async (): Promise<StoreHarness> => {
  const url = inject('postgresUrl');
  // Every test gets its own state name: names never share a lock or a row.
  const name = `conformance-${randomUUID()}`;
  const opened: PostgresStateStore[] = [];
  return {
    open: (options = {}) => {
      const store = new PostgresStateStore({ url, name, ...options });
      opened.push(store);
      return store;
    },
    async corrupt() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`UPDATE portalctl.states SET head = '{"formatVersion": 1, "lineage": "x"}'::jsonb WHERE name = $1`, [name]);
      } finally {
        await client.end();
      }
    },
    async dispose() {
      await Promise.all(opened.map((store) => store.close()));
    },
  };
});
