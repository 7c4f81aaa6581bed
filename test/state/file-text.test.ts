/**
 * The file store keeps a written state's text in blocks between writes and encodes again only
 * the blocks a write changed (src/state/file-text.ts). Whatever the writes, the file must be
 * serializeState's text of the state written, byte for byte.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateFileText } from '../../src/state/file-text.js';
import { FileStateStore, StateWriter, forgetResource, markUnknownOutcome, newState, serializeState, type StateDocument, type StateEntry } from '../../src/state/index.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portalctl-file-text-'));
  file = join(dir, 'portalctl.state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };

/** A small deterministic generator (mulberry32), so a failure names a seed that repeats it. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const entry = (id: string, value: StateEntry['value']): StateEntry => ({ kind: 'item.status', ids: { itemId: id }, value, status: 'present', appliedAt: '2025-01-01T00:00:00.000Z' });
// Addresses crowd into a few prefixes, so some blocks grow past twice their size and split while others empty.
const addressOf = (next: () => number): string => `${['group', 'item', 'role'][Math.floor(next() * 3)]}[${Math.floor(next() * 4000)
  .toString(16)
  .padStart(4, '0')}${next() < 0.05 ? ' "é☃"' : ''}].status`;

function textOf(text: StateFileText, state: StateDocument): string {
  return Buffer.concat(text.bytes(state)).toString('utf8');
}

describe('the state file text kept in blocks', () => {
  it('is serializeState byte for byte through adds, changes, removals, splits and emptied blocks', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      let state: StateDocument = newState(PORTAL);
      // Unsorted at first: the blocks sort what they are given.
      for (let index = 0; index < 1500; index++) state.resources[addressOf(next)] = entry(`i${index}`, 'deprecated');
      const text = StateFileText.of(state);
      expect(textOf(text, state), `seed ${seed}`).toBe(serializeState(state));
      for (let round = 0; round < 60; round++) {
        const resources = { ...state.resources };
        const put: string[] = [];
        const removed: string[] = [];
        const crowded = Math.floor(next() * 3);
        for (let change = Math.floor(next() * (round % 10 === 0 ? 1200 : 40)); change > 0; change--) {
          const address = round % 10 === 0 ? `${['group', 'item', 'role'][crowded]}[zz${Math.floor(next() * 1e6)}].status` : addressOf(next);
          if (next() < 0.3 && resources[address] !== undefined) {
            delete resources[address];
            removed.push(address);
          } else {
            resources[address] = entry(address, next() < 0.5 ? null : `v${round}`);
            put.push(address);
          }
        }
        state = { ...state, serial: state.serial + 1, resources };
        if (round % 7 === 3) state = markUnknownOutcome(state, addressOf(next), { kind: 'role', ids: {}, operation: 'E1', value: null, reason: 'in flight', since: '2025-01-01T00:00:00.000Z' });
        // As a store's diff gives them: what is there after the write, and what was there before and is not.
        text.update(
          put.filter((address) => resources[address] !== undefined),
          removed.filter((address) => resources[address] === undefined),
        );
        expect(text.size).toBe(Object.keys(resources).length);
        expect(textOf(text, state), `seed ${seed}, round ${round}`).toBe(serializeState(state));
      }
      // Everything removed: the compact empty form.
      const everything = Object.keys(state.resources);
      state = { ...state, resources: {} };
      text.update([], everything);
      expect(textOf(text, state)).toBe(serializeState(state));
    }
  });

  it('refuses to write a line for an address the state does not hold', () => {
    const state = newState(PORTAL);
    state.resources['item[a].status'] = entry('a', 'deprecated');
    const text = StateFileText.of(state);
    text.update(['item[b].status'], []);
    expect(() => text.bytes(state)).toThrow('internal error: the state file\'s text names item[b].status');
  });
});

describe('the file store writing through a StateWriter', () => {
  it('leaves serializeState of every state written, also after a bad batch and a write by another store', async () => {
    const store = new FileStateStore({ path: file });
    let initial: StateDocument = newState(PORTAL);
    for (let index = 0; index < 3000; index++) initial.resources[`item[${String(index).padStart(5, '0')}].status`] = entry(`i${index}`, 'deprecated');
    initial = await store.write(initial);
    const writer = new StateWriter(store, initial);
    const next = random(7);
    const check = async (what: string): Promise<void> => expect(await readFile(file, 'utf8'), what).toBe(serializeState(writer.state));
    for (let round = 0; round < 20; round++) {
      // Operations that finish together: one group commit, as in an apply.
      await Promise.all(
        Array.from({ length: 1 + Math.floor(next() * 30) }, (_, index) => writer.record(`item[${String(Math.floor(next() * 4000)).padStart(5, '0')}].status`, entry(`r${round}.${index}`, `v${round}`))),
      );
      await check(`round ${round}`);
      if (round === 5) {
        await writer.forget('item[00001].status');
        await check('after forget');
      }
      if (round === 10) {
        // One bad entry in a batch: the writer writes the others one by one.
        const bad = writer.record('item[bad].status', { ...entry('bad', null), status: 'gone' as StateEntry['status'] });
        const good = writer.record('item[good].status', entry('good', 'deprecated'));
        await expect(bad).rejects.toThrow(/invalid state/);
        await good;
        await check('after a bad batch');
      }
      if (round === 15) {
        // Another store writes the file; this one reads it again and makes its text afresh.
        const other = new FileStateStore({ path: file });
        const theirs = await other.write(forgetResource((await other.read()) as StateDocument, 'item[00002].status'));
        await writeFile(join(dir, 'theirs.json'), serializeState(theirs));
        const fresh = new StateWriter(store, theirs);
        await fresh.record('item[after].status', entry('after', 'deprecated'));
        expect(await readFile(file, 'utf8')).toBe(serializeState(fresh.state));
        return;
      }
    }
  });
});
