/**
 * The history as changes (src/state/journal.ts) on both stores: every kept serial is rebuilt
 * exactly, whatever the writes were; states and history written by the previous release are
 * read and carried forward; copies between the stores keep their history rebuildable; and what
 * a write stores does not grow with the state.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { sql, uniqueSchema, withSchema } from '../support/postgres-sql.js';
import {
  FileStateStore,
  PostgresStateStore,
  StateWriter,
  POSTGRES_SCHEMA_VERSION,
  clearUnknownOutcome,
  forgetResource,
  markUnknownOutcome,
  migrateSchema,
  newState,
  recordOperation,
  serializeState,
  type StateDocument,
  type StateEntry,
  type StateStore,
} from '../../src/state/index.js';

const url = inject('postgresUrl');
const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };
const entry = (value: StateEntry['value'], kind = 'role'): StateEntry => ({ kind, ids: { roleId: 'r' }, value, status: 'present', appliedAt: '2025-01-01T00:00:00.000Z' });

async function tempFile(): Promise<{ path: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-journal-'));
  return { path: join(dir, 'portalctl.state.json'), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** One write of the generated sequences: what it does to the state before it. */
type Step =
  | { op: 'record'; address: number; value: number }
  | { op: 'records'; addresses: number[]; value: number }
  | { op: 'forget'; address: number }
  | { op: 'mark'; address: number }
  | { op: 'clear'; address: number }
  | { op: 'portal'; id: string }
  | { op: 'push'; skip: number };

const address = (index: number) => `role[r${index}]`;

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('record' as const), address: fc.nat(7), value: fc.integer() }),
  fc.record({ op: fc.constant('records' as const), addresses: fc.array(fc.nat(7), { minLength: 1, maxLength: 4 }), value: fc.integer() }),
  fc.record({ op: fc.constant('forget' as const), address: fc.nat(7) }),
  fc.record({ op: fc.constant('mark' as const), address: fc.nat(7) }),
  fc.record({ op: fc.constant('clear' as const), address: fc.nat(7) }),
  fc.record({ op: fc.constant('portal' as const), id: fc.constantFrom('org123', 'org456') }),
  fc.record({ op: fc.constant('push' as const), skip: fc.integer({ min: 0, max: 3 }) }),
);

function apply(state: StateDocument, step: Exclude<Step, { op: 'push' }>): StateDocument {
  switch (step.op) {
    case 'record':
      return recordOperation(state, address(step.address), entry({ value: step.value, nested: [step.value, { text: 'x' }] }));
    case 'records':
      return step.addresses.reduce((next, index) => recordOperation(next, address(index), entry(step.value + index)), state);
    case 'forget':
      return forgetResource(state, address(step.address));
    case 'mark':
      return markUnknownOutcome(state, address(step.address), { kind: 'role', ids: {}, operation: 'E13', value: step.address, reason: 'in flight', since: '2025-01-01T00:00:00.000Z' });
    case 'clear':
      return clearUnknownOutcome(state, address(step.address));
    case 'portal':
      return { ...state, portal: { ...state.portal, id: step.id } };
  }
}

/** Runs the steps on `store`, returning every state written by serial. */
async function runSteps(store: StateStore, steps: readonly Step[]): Promise<Map<number, StateDocument>> {
  const written = new Map<number, StateDocument>();
  let state = await store.write(newState(PORTAL));
  written.set(state.serial, state);
  for (const item of steps) {
    // A copy from elsewhere (state push) can skip serials: those are never in this store's history.
    state = item.op === 'push' ? await store.importState({ ...state, serial: state.serial + 1 + item.skip, resources: { ...state.resources, [address(9)]: entry(item.skip) } }) : await store.write(apply(state, item));
    written.set(state.serial, state);
  }
  return written;
}

async function expectEveryKeptSerialRebuilt(store: StateStore, written: Map<number, StateDocument>, keep: number): Promise<void> {
  const history = await store.history();
  const newest = Math.max(...written.keys());
  // Exactly the serials written within the keep window are listed, newest first.
  expect(history.map((item) => item.serial)).toEqual([...written.keys()].filter((serial) => serial > newest - keep).sort((a, b) => b - a));
  for (const serial of written.keys()) {
    const rebuilt = await store.readSerial(serial);
    if (serial > newest - keep) expect(rebuilt, `serial ${serial}`).toEqual(written.get(serial));
    else expect(rebuilt, `serial ${serial}`).toBeUndefined();
  }
}

/** A value with its object keys sorted, so that two states compare by content alone. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(Reflect.get(value, key))]));
  return value;
}

describe('history as changes', () => {
  it('file store: every kept serial of any sequence of writes is rebuilt exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), fc.integer({ min: 3, max: 30 }), async (steps, keep) => {
        const place = await tempFile();
        try {
          const store = new FileStateStore({ path: place.path, keepHistory: keep });
          await expectEveryKeptSerialRebuilt(store, await runSteps(store, steps), keep);
        } finally {
          await place.dispose();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('PostgreSQL: every kept serial of any sequence of writes is rebuilt exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), fc.integer({ min: 3, max: 30 }), async (steps, keep) => {
        const store = new PostgresStateStore({ url, name: `journal-${randomUUID()}`, keepHistory: keep });
        try {
          await expectEveryKeptSerialRebuilt(store, await runSteps(store, steps), keep);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 12 },
    );
  });

  it('through the StateWriter (group commits, changes made in place): every kept serial is a state the operations passed through', async () => {
    type WriterStep = { op: 'record'; address: number; value: number } | { op: 'forget'; address: number } | { op: 'mark'; address: number } | { op: 'clear'; address: number };
    const writerStep: fc.Arbitrary<WriterStep> = fc.oneof(
      { weight: 4, arbitrary: fc.record({ op: fc.constant('record' as const), address: fc.nat(9), value: fc.integer() }) },
      fc.record({ op: fc.constant('forget' as const), address: fc.nat(9) }),
      fc.record({ op: fc.constant('mark' as const), address: fc.nat(9) }),
      fc.record({ op: fc.constant('clear' as const), address: fc.nat(9) }),
    );
    const pure = (state: StateDocument, item: WriterStep): StateDocument => (item.op === 'record' ? apply(state, { ...item }) : apply(state, item));
    const stores = [
      { label: 'file', open: async () => { const place = await tempFile(); return { store: new FileStateStore({ path: place.path, keepHistory: 1000 }), dispose: place.dispose }; } },
      { label: 'postgres', open: async () => { const store = new PostgresStateStore({ url, name: `writer-${randomUUID()}`, keepHistory: 1000 }); return { store, dispose: () => store.close() }; } },
    ];
    for (const { label, open } of stores) {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(writerStep, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }), async (waves) => {
          const { store, dispose } = await open();
          try {
            const initial = await store.write(recordOperation(newState(PORTAL), address(0), entry('initial')));
            const writer = new StateWriter(store, initial);
            // Every state the operations pass through, in order (the writer's order is the order of the calls).
            const passed: StateDocument[] = [initial];
            for (const wave of waves) {
              // A wave's operations are called together, so the writer batches them.
              const calls = wave.map((item) => {
                passed.push(pure(passed[passed.length - 1] as StateDocument, item));
                if (item.op === 'record') return writer.record(address(item.address), entry({ value: item.value, nested: [item.value, { text: 'x' }] }));
                if (item.op === 'forget') return writer.forget(address(item.address));
                if (item.op === 'mark') return writer.markUnknown(address(item.address), { kind: 'role', ids: {}, operation: 'E13', value: item.address, reason: 'in flight', since: '2025-01-01T00:00:00.000Z' });
                return writer.clearUnknown(address(item.address));
              });
              await Promise.all(calls);
            }
            const final = await store.read();
            const { serial: _serial, ...expected } = passed[passed.length - 1] as StateDocument;
            expect(final, label).toMatchObject(expected);
            expect(Object.keys(final?.resources ?? {}).sort()).toEqual(Object.keys(expected.resources).sort());
            // Each serial is one of the states passed through, later serials never earlier ones.
            let at = 0;
            for (let serial = initial.serial; serial <= (final?.serial ?? 0); serial++) {
              const rebuilt = await store.readSerial(serial);
              if (!rebuilt) throw new Error(`${label}: serial ${serial} not rebuilt`);
              const { serial: _s, ...content } = rebuilt;
              const found = passed.findIndex((state, index) => index >= at && JSON.stringify(sorted({ ...state, serial: 0 })) === JSON.stringify(sorted({ ...content, serial: 0 })));
              expect(found, `${label}: serial ${serial}`).toBeGreaterThanOrEqual(at);
              at = found;
            }
          } finally {
            await dispose();
          }
        }),
        { numRuns: label === 'file' ? 20 : 10 },
      );
    }
  });

  it('copies between the stores (push, pull) keep lineage, serial and a history that rebuilds', async () => {
    const place = await tempFile();
    const database = new PostgresStateStore({ url, name: `copies-${randomUUID()}` });
    try {
      const file = new FileStateStore({ path: place.path });
      const written = await runSteps(file, [
        { op: 'record', address: 1, value: 1 },
        { op: 'record', address: 2, value: 2 },
        { op: 'mark', address: 3 },
      ]);
      const pushed = await file.read();
      if (!pushed) throw new Error('nothing written');
      expect(await database.importState(pushed)).toEqual(pushed);
      let remote = pushed;
      for (const value of [10, 11]) {
        remote = await database.write(recordOperation(remote, address(1), entry(value)));
        written.set(remote.serial, remote);
      }
      // Pulled back onto the file at serial 4: the file's history goes from 4 straight to 6.
      expect(await file.importState(remote)).toEqual(remote);
      expect((await file.history()).map((item) => item.serial)).toEqual([6, 4, 3, 2, 1]);
      for (const serial of [1, 2, 3, 4, 6]) expect(await file.readSerial(serial), `file serial ${serial}`).toEqual(written.get(serial));
      expect(await file.readSerial(5)).toBeUndefined();
      // The database has 4 (the push), 5 and 6.
      expect((await database.history()).map((item) => item.serial)).toEqual([6, 5, 4]);
      for (const serial of [4, 5, 6]) expect(await database.readSerial(serial), `database serial ${serial}`).toEqual(written.get(serial));
      // Pushing the file's newer state again stores only what changed.
      const local = await file.write(recordOperation(remote, address(2), entry(20)));
      await database.importState(local);
      const [newest] = await sql<{ changed: number; change: { from: number; resources: Record<string, unknown> } }>(
        'SELECT changed, change FROM portalctl.history WHERE name = $1 ORDER BY serial DESC LIMIT 1',
        [database.name],
      );
      expect(newest?.changed).toBe(1);
      expect(newest?.change.from).toBe(6);
      expect(Object.keys(newest?.change.resources ?? {})).toEqual([address(2)]);
      expect(await database.readSerial(6)).toEqual(written.get(6));
    } finally {
      await database.close();
      await place.dispose();
    }
  });
});

describe('states of the previous release', () => {
  it('PostgreSQL tables version 2 (whole documents) are migrated: the state, its old serials and new ones all read back', async () => {
    const schema = uniqueSchema('j');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // Written exactly as the previous release wrote them: the whole document in states and in every history row.
    const old: StateDocument[] = [];
    let state = newState(PORTAL);
    try {
      await migrateSchema(client, schema, 2);
      for (let serial = 1; serial <= 3; serial++) {
        state = { ...recordOperation(state, address(serial), entry(serial)), serial };
        old.push(state);
        await client.query(`INSERT INTO "${schema}".history (name, serial, lineage, document, command, resources, changed) VALUES ('default', $1, $2, $3::jsonb, 'portalctl apply', $4, 1)`, [
          serial,
          state.lineage,
          serializeState(state),
          Object.keys(state.resources).length,
        ]);
      }
      await client.query(`INSERT INTO "${schema}".states (name, lineage, serial, document) VALUES ('default', $1, 3, $2::jsonb)`, [state.lineage, serializeState(state)]);
    } finally {
      await client.end();
    }
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'default' });
    try {
      expect(await store.read()).toEqual(state);
      expect(await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
      const next = await store.write(recordOperation(state, address(1), entry('changed')));
      const newest = await store.write(forgetResource(next, address(2)));
      expect((await store.history()).map((item) => [item.serial, item.changed])).toEqual([[5, 1], [4, 1], [3, 1], [2, 1], [1, 1]]);
      for (const earlier of old) expect(await store.readSerial(earlier.serial)).toEqual(earlier);
      expect(await store.readSerial(4)).toEqual(next);
      expect(await store.readSerial(5)).toEqual(newest);
      // The entries moved out of the document into rows.
      expect((await sql<{ address: string }>(`SELECT address FROM "${schema}".resources ORDER BY address`)).map((row) => row.address)).toEqual([address(1), address(3)]);
    } finally {
      await store.close();
    }
  });

  it('file history of the previous release (whole copies) reads on beside the new changes', async () => {
    const place = await tempFile();
    try {
      const old: StateDocument[] = [];
      let state = newState(PORTAL);
      await mkdir(`${place.path}.history`);
      for (let serial = 1; serial <= 3; serial++) {
        state = { ...recordOperation(state, address(serial), entry(serial)), serial };
        old.push(state);
        // As the previous release wrote it: the history entry with the state's text spliced in.
        const record = { serial, lineage: state.lineage, writtenAt: '2025-01-01T00:00:00.000Z', command: 'portalctl apply', resources: serial, changed: 1 };
        await writeFile(join(`${place.path}.history`, `${String(serial).padStart(10, '0')}.json`), `${JSON.stringify(record).slice(0, -1)},"state":${serializeState(state).trimEnd()}}\n`);
      }
      await writeFile(place.path, serializeState(state));
      const store = new FileStateStore({ path: place.path });
      expect(await store.read()).toEqual(state);
      const next = await store.write(recordOperation(state, address(1), entry('changed')));
      const newest = await store.write(forgetResource(next, address(2)));
      expect((await store.history()).map((item) => [item.serial, item.resources, item.changed])).toEqual([[5, 2, 1], [4, 3, 1], [3, 3, 1], [2, 2, 1], [1, 1, 1]]);
      for (const earlier of old) expect(await store.readSerial(earlier.serial)).toEqual(earlier);
      expect(await store.readSerial(4)).toEqual(next);
      expect(await store.readSerial(5)).toEqual(newest);
    } finally {
      await place.dispose();
    }
  });
});

describe('what a write stores', () => {
  /** A state of `size` addresses, written once; returns the store and the state. */
  async function large(store: StateStore, size: number): Promise<StateDocument> {
    const resources: Record<string, StateEntry> = {};
    for (let index = 0; index < size; index++) resources[`item[i${index}].status`] = entry(index % 2 ? 'deprecated' : null, 'item.status');
    return store.write({ ...newState(PORTAL), resources });
  }

  it('PostgreSQL: a one-field change rewrites no other row, and its history row does not grow with the state', async () => {
    const sizes: Record<number, number> = {};
    for (const size of [100, 20_000]) {
      const store = new PostgresStateStore({ url, name: `bytes-${size}-${randomUUID()}` });
      try {
        const state = await large(store, size);
        const versions = async () => new Map((await sql<{ address: string; xmin: string }>('SELECT address, xmin::text FROM portalctl.resources WHERE name = $1', [store.name])).map((row) => [row.address, row.xmin]));
        const before = await versions();
        const changed = 'item[i7].status';
        await store.write(recordOperation(state, changed, entry('org_authoritative', 'item.status')));
        const after = await versions();
        // Only the changed entry's row is a new row version.
        expect([...after].filter(([address, xmin]) => before.get(address) !== xmin).map(([address]) => address)).toEqual([changed]);
        const [row] = await sql<{ bytes: number }>('SELECT octet_length(change::text) AS bytes FROM portalctl.history WHERE name = $1 AND serial = 2', [store.name]);
        sizes[size] = row?.bytes ?? Number.NaN;
      } finally {
        await store.close();
      }
    }
    expect(sizes[20_000]).toBe(sizes[100]);
    expect(sizes[100]).toBeLessThan(1024);
  });

  it('file store: the history of a one-field change does not grow with the state, and the backup is the previous file itself', async () => {
    const sizes: number[] = [];
    for (const size of [100, 20_000]) {
      const place = await tempFile();
      try {
        const store = new FileStateStore({ path: place.path });
        const state = await large(store, size);
        const previous = await stat(place.path);
        await store.write(recordOperation(state, 'item[i7].status', entry('org_authoritative', 'item.status')));
        const record = JSON.parse(await readFile(join(`${place.path}.history`, '0000000002.json'), 'utf8')) as { change: unknown };
        sizes.push(JSON.stringify(record.change).length);
        // Kept as a second link to the file the write replaced: nothing copied.
        const backup = await stat(`${place.path}.backup`);
        expect([backup.ino, backup.size]).toEqual([previous.ino, previous.size]);
        expect(JSON.parse(await readFile(`${place.path}.backup`, 'utf8'))).toEqual(state);
      } finally {
        await place.dispose();
      }
    }
    expect(sizes[1]).toBe(sizes[0]);
    expect(sizes[0]).toBeLessThan(1024);
  });

  it('both stores: a write checks the entries it changes, and an invalid one changes nothing', async () => {
    const place = await tempFile();
    const stores: StateStore[] = [new FileStateStore({ path: place.path }), new PostgresStateStore({ url, name: `invalid-${randomUUID()}` })];
    try {
      for (const store of stores) {
        const first = await store.write(recordOperation(newState(PORTAL), address(1), entry(1)));
        await expect(store.write(recordOperation(first, address(2), entry(Number.POSITIVE_INFINITY)))).rejects.toThrow(
          `Refusing to write an invalid state to ${store.describe().replace(/^file /, '')}: resources["${address(2)}"].value is missing or not JSON.`,
        );
        expect(await store.read()).toEqual(first);
        expect((await store.history()).map((item) => item.serial)).toEqual([1]);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await place.dispose();
    }
  });

  it('file store: a state file replaced behind its back is read again before the next write', async () => {
    const place = await tempFile();
    try {
      const store = new FileStateStore({ path: place.path });
      const first = await store.write(recordOperation(newState(PORTAL), address(1), entry(1)));
      // Another process writes serial 2 (its own store), then this store's stale write is refused.
      const other = new FileStateStore({ path: place.path });
      const second = await other.write(recordOperation(first, address(2), entry(2)));
      await expect(store.write(recordOperation(first, address(3), entry(3)))).rejects.toThrow(/serial 2, but this run started from serial 1/);
      // A hand-made copy in place (same content, new file) is read, and the write goes on from it.
      await link(place.path, `${place.path}.copy`);
      await writeFile(place.path, await readFile(`${place.path}.copy`, 'utf8'));
      const third = await store.write(recordOperation(second, address(3), entry(3)));
      expect(await store.readSerial(2)).toEqual(second);
      expect(await new FileStateStore({ path: place.path }).read()).toEqual(third);
    } finally {
      await place.dispose();
    }
  });
});
