/**
 * One conformance suite for every state store (in the spirit of Terraform's statemgr.TestFull):
 * lineage, serial, refusal of another portal's state, atomic recording, locking, history,
 * copying and corruption. `conformance.test.ts` runs it on the file store and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import {
  StateConflictError,
  StateCorruptError,
  StateError,
  StateLockedError,
  StatePortalMismatchError,
  StateWriter,
  assertSamePortal,
  markUnknownOutcome,
  newState,
  recordOperation,
  withStateLock,
  type StateEntry,
  type StateStore,
} from '../../src/state/index.js';

export interface StoreOptions {
  command?: string;
  keepHistory?: number;
  /** Who this store's locks name: another process's pid, another user and host. */
  pid?: number;
  user?: string;
  host?: string;
}

/** A fresh, empty place for one state; stores opened on it share that state. */
export interface StoreHarness {
  open(options?: StoreOptions): StateStore;
  /** Replaces the stored state by something that is not a valid state. */
  corrupt(): Promise<void>;
  dispose(): Promise<void>;
}

const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };
export const entry = (value: StateEntry['value']): StateEntry => ({ kind: 'role', ids: { roleId: String(value) }, value, status: 'present', appliedAt: '2025-01-01T00:00:00.000Z' });

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function stateStoreConformance(label: string, makeHarness: () => Promise<StoreHarness>): void {
  describe(`${label}: state store conformance`, () => {
    const withHarness = (test: (harness: StoreHarness) => Promise<void>) => async () => {
      const harness = await makeHarness();
      try {
        await test(harness);
      } finally {
        await harness.dispose();
      }
    };

    it('starts empty, keeps the lineage and adds one to the serial on every write', withHarness(async (harness) => {
      const store = harness.open();
      expect(await store.read()).toBeUndefined();
      expect(await store.history()).toEqual([]);
      const initial = newState(PORTAL);
      const first = await store.write(recordOperation(initial, 'role[a]', entry(1)));
      expect(first).toMatchObject({ lineage: initial.lineage, serial: 1 });
      const second = await store.write(recordOperation(first, 'role[b]', entry(2)));
      expect(second.serial).toBe(2);
      // Another store on the same place (another process) reads exactly what was written.
      expect(await harness.open().read()).toEqual(second);
      await store.close();
    }));

    it("writes a change of an entry's recorded names alone, reads it back and rebuilds it from history", withHarness(async (harness) => {
      const store = harness.open();
      const first = await store.write(recordOperation(newState(PORTAL), 'role[a]', entry(1)));
      const analyst = { noun: 'role', name: { name: 'Field Analyst' }, id: '1' };
      const names = [analyst];
      const named = await store.write({ ...first, resources: { ...first.resources, 'role[a]': { ...entry(1), names } } });
      expect((await harness.open().read())?.resources['role[a]']?.names).toEqual(names);
      const renamed = await store.write({ ...named, resources: { ...named.resources, 'role[a]': { ...entry(1), names: [{ ...analyst, name: { name: 'Analyst' } }] } } });
      expect((await harness.open().read())?.resources).toEqual(renamed.resources);
      expect((await store.readSerial(named.serial))?.resources['role[a]']?.names).toEqual(names);
      // Names that are not a list of {noun, name, id} are refused before anything is written.
      await expect(store.write({ ...renamed, resources: { 'role[a]': { ...entry(1), names: [{ noun: 'role', name: 'Field Analyst', id: '1' }] as never } } })).rejects.toThrow(
        'resources["role[a]"].names is not a list of {noun, name, id, field?}',
      );
      expect((await harness.open().read())?.serial).toBe(renamed.serial);
      await store.close();
    }));

    it('refuses another lineage and a stale serial in the shared words, and keeps what is stored', withHarness(async (harness) => {
      const store = harness.open();
      const written = await store.write(newState(PORTAL));
      const stranger = newState(PORTAL);
      const otherLineage = await store.write(stranger).catch((error: unknown) => error);
      expect(otherLineage).toBeInstanceOf(StateConflictError);
      expect((otherLineage as Error).message).toMatch(
        new RegExp(`^The state ${escape(store.describe())} has lineage ${written.lineage}, not ${stranger.lineage}: it is another state\\. Refusing to overwrite it; use another `),
      );
      const other = harness.open();
      const ahead = await other.write(recordOperation(written, 'role[a]', entry(1)));
      await expect(store.write(recordOperation(written, 'role[b]', entry(2)))).rejects.toThrow(
        `The state ${store.describe()} is at serial 2, but this run started from serial 1: another run wrote it meanwhile. Run the command again.`,
      );
      expect(await store.read()).toEqual(ahead);
      await Promise.all([store.close(), other.close()]);
    }));

    it("refuses another portal's state when it is read back", withHarness(async (harness) => {
      const store = harness.open();
      await store.write(newState(PORTAL));
      const stored = await store.read();
      if (!stored) throw new Error('nothing stored');
      expect(() => assertSamePortal(stored, PORTAL.url, PORTAL.id)).not.toThrow();
      expect(() => assertSamePortal(stored, 'https://other.example.com/portal/sharing/rest', 'org999')).toThrow(StatePortalMismatchError);
      await store.close();
    }));

    it('records concurrent operations atomically: a reader only ever sees whole states with rising serials', withHarness(async (harness) => {
      const store = harness.open();
      const reader = harness.open();
      const writer = new StateWriter(store, newState(PORTAL));
      const addresses = Array.from({ length: 30 }, (_, index) => `role[r${index}]`);
      let writing = true;
      const seen: number[] = [];
      const reading = (async () => {
        while (writing) {
          const state = await reader.read();
          if (state) {
            // Every address recorded up to a serial is there with its value: never half a write.
            for (const [address, recorded] of Object.entries(state.resources)) expect(recorded.value).toBe(Number(address.slice(6, -1)));
            seen.push(state.serial);
          }
        }
      })();
      const results = await Promise.all(addresses.map((address, index) => writer.record(address, entry(index))));
      writing = false;
      await reading;
      results.forEach((state, index) => expect(state.resources[addresses[index] as string]).toBeDefined());
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const stored = await reader.read();
      expect(Object.keys(stored?.resources ?? {}).sort()).toEqual([...addresses].sort());
      // A refused write changes nothing.
      await expect(store.write({ ...writer.state, lineage: '' })).rejects.toThrow(/invalid state/);
      expect(await reader.read()).toEqual(stored);
      await Promise.all([store.close(), reader.close()]);
    }));

    it('locks: the holder is named, a waiter gets it after release, reads never wait, unlock by id', withHarness(async (harness) => {
      const holder = harness.open({ command: 'portalctl apply --auto-approve', user: 'alice', host: 'build-7.example' });
      const other = harness.open({ pid: 424242 });
      await holder.write(newState(PORTAL));
      const lock = await holder.lock({ operation: 'apply' });
      const refused = await other.lock({ operation: 'apply' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StateLockedError);
      const message = (refused as Error).message;
      for (const part of [lock.info.id, lock.info.owner, `pid ${process.pid}`, 'portalctl apply --auto-approve', lock.info.created]) expect(message).toContain(part);
      // The unlock it advises names this state (a state other than the default one was "not locked").
      expect(message).toContain(`\`${other.unlockCommand(lock.info.id)}\``);
      expect(other.unlockCommand(lock.info.id)).toMatch(new RegExp(`^(PGPASSWORD=… )?portalctl state unlock ${lock.info.id} --state \\S+`));
      expect(lock.info).toMatchObject({ owner: 'alice@build-7.example', host: 'build-7.example', pid: process.pid, operation: 'apply' });
      expect(Date.parse(lock.info.created)).not.toBeNaN();
      expect(await other.currentLock()).toMatchObject({
        id: lock.info.id,
        owner: 'alice@build-7.example',
        host: 'build-7.example',
        pid: process.pid,
        operation: 'apply',
        command: 'portalctl apply --auto-approve',
      });
      // Reads do not wait for the writer's lock.
      expect((await other.read())?.serial).toBe(1);
      // A waiter gets the lock once it is released.
      const waiting = other.lock({ operation: 'apply', timeoutMs: 60_000, pollMs: 20 });
      await holder.unlock(lock);
      const next = await waiting;
      expect(next.info.id).not.toBe(lock.info.id);
      await expect(holder.forceUnlock('not-the-id')).rejects.toThrow(next.info.id);
      expect(await holder.forceUnlock(next.info.id)).toMatchObject({ id: next.info.id });
      expect(await holder.currentLock()).toBeUndefined();
      expect(await holder.forceUnlock()).toBeUndefined();
      // Named by an id where there is no lock: said, on either store (a file's said all was well).
      await expect(holder.forceUnlock('gone-id')).rejects.toThrow(`There is no lock gone-id on the state ${holder.describe()}: it is not locked.`);
      await other.unlock(next);
      // withStateLock releases on failure too.
      await expect(withStateLock(holder, { operation: 'state rm' }, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await other.currentLock()).toBeUndefined();
      await Promise.all([holder.close(), other.close()]);
    }));

    it('unlock without an id leaves the lock of a process running on this host; named by its id, it is removed', withHarness(async (harness) => {
      // The holder: another live process of this host (the test runner's parent).
      const holder = harness.open({ pid: process.ppid });
      const admin = harness.open();
      await holder.write(newState(PORTAL));
      const lock = await holder.lock({ operation: 'apply' });
      const refused = await admin.forceUnlock().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StateError);
      expect((refused as Error).message).toContain('is held by a running process');
      expect((refused as Error).message).toContain(`\`${admin.unlockCommand(lock.info.id)}\``);
      expect(await admin.currentLock()).toMatchObject({ id: lock.info.id });
      expect(await admin.forceUnlock(lock.info.id)).toMatchObject({ id: lock.info.id });
      expect(await admin.currentLock()).toBeUndefined();
      await Promise.all([holder.close(), admin.close()]);
    }));

    it("counts an address whose unknown-outcome mark alone changed, once with its entry", withHarness(async (harness) => {
      const store = harness.open({ command: 'portalctl apply' });
      const mark = { kind: 'role', ids: {}, operation: 'E13', value: null, reason: 'in flight', since: '2025-01-01T00:00:00.000Z' };
      let state = await store.write(recordOperation(newState(PORTAL), 'role[r0]', entry(0)));
      state = await store.write(markUnknownOutcome(state, 'role[r1]', mark));
      // Recorded: the entry added and the mark cleared are one address.
      await store.write(recordOperation(state, 'role[r1]', entry(1)));
      expect((await store.history()).map((item) => [item.serial, item.changed])).toEqual([[3, 1], [2, 1], [1, 1]]);
      expect((await store.readSerial(2))?.unknownOutcomes).toEqual({ 'role[r1]': mark });
      await store.close();
    }));

    it('keeps a history of every serial with time, command and counts, bounded by the keep count', withHarness(async (harness) => {
      const store = harness.open({ command: 'portalctl apply', keepHistory: 3 });
      let state = newState(PORTAL);
      const before = Date.now();
      for (let index = 0; index < 5; index++) state = await store.write(recordOperation(state, `role[r${index}]`, entry(index)));
      const history = await store.history();
      expect(history.map((item) => item.serial)).toEqual([5, 4, 3]);
      expect(history[0]).toMatchObject({ lineage: state.lineage, command: 'portalctl apply', resources: 5, changed: 1 });
      expect(Date.parse(history[0]?.writtenAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
      const third = await store.readSerial(3);
      expect(third?.serial).toBe(3);
      expect(Object.keys(third?.resources ?? {}).sort()).toEqual(['role[r0]', 'role[r1]', 'role[r2]']);
      expect(await store.readSerial(1)).toBeUndefined();
      await store.close();
    }));

    it('copies a state keeping lineage and serial, and refuses another lineage or an older serial', withHarness(async (harness) => {
      const store = harness.open();
      let source = newState(PORTAL);
      source = { ...recordOperation(source, 'role[a]', entry(1)), serial: 7 };
      expect(await store.importState(source)).toEqual(source);
      expect(await store.read()).toEqual(source);
      expect((await store.history())[0]).toMatchObject({ serial: 7, lineage: source.lineage });
      // The same again is a no-op; a different lineage or an older serial is refused.
      expect(await store.importState(source)).toEqual(source);
      await expect(store.importState({ ...newState(PORTAL), serial: 9 })).rejects.toThrow(/another state/);
      await expect(store.importState({ ...source, serial: 3 })).rejects.toThrow(/newer than the serial 3/);
      // The same serial with other content is another history: refused, and nothing changes.
      await expect(store.importState(recordOperation(source, 'role[b]', entry(2)))).rejects.toThrow(/at the same serial 7 with other content\. Nothing was copied\./);
      expect(await store.read()).toEqual(source);
      const next = await store.write(source);
      expect(next.serial).toBe(8);
      await store.close();
    }));

    it('reports a corrupt state clearly and changes nothing', withHarness(async (harness) => {
      const store = harness.open();
      const first = await store.write(newState(PORTAL));
      await harness.corrupt();
      const error = await store.read().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StateCorruptError);
      expect((error as Error).message).toMatch(/is corrupt: .*Nothing was changed/);
      expect((error as Error).message).toContain(store.describe().replace(/^file /, ''));
      await expect(store.write(first)).rejects.toThrow(StateCorruptError);
      await expect(harness.open().read()).rejects.toThrow(StateCorruptError);
      await store.close();
    }));
  });
}
