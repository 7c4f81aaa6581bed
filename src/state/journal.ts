/**
 * The history as changes, shared by both stores: a write records what it changed, not a copy of
 * the state. A change holds, per address the write added, changed or removed, the entry as it
 * was before (null when the write added it), and the rest of the document (portal, unknown
 * outcomes) as it was when that changed too. The store keeps the current state whole; any kept
 * serial is rebuilt from it by undoing the later changes, newest first.
 *
 * So what a write stores grows with what it changed, not with the state: recording one
 * operation stores one entry in the history however large the state (README "The state").
 */
import { deepEqual, isObject, type JsonValue } from '../core/json.js';
import { StateCorruptError, StateError } from './errors.js';
import { validateState, type StateDocument, type StateEntry } from './format.js';

/** The document without its serial and resources: what a change records when it differs. */
export interface StateHead {
  formatVersion: StateDocument['formatVersion'];
  lineage: string;
  portal: StateDocument['portal'];
  unknownOutcomes?: StateDocument['unknownOutcomes'];
}

/** One write, as the history keeps it: enough to undo it. */
export interface StateChange {
  /** The serial the write started from; null when there was no state before it. */
  from: number | null;
  /** Per address the write touched: the entry before it, or null when the write added the address. */
  resources: Record<string, StateEntry | null>;
  /** The head before the write, when the write changed it. */
  head?: StateHead;
}

/** What a write must store: the entries to put and remove, and the change for the history. */
export interface StateDiff {
  change: StateChange;
  /** Entries added or changed, by address. */
  put: Record<string, StateEntry>;
  /** Addresses removed. */
  removed: string[];
  /** Addresses added, changed or removed, or whose unknown-outcome mark was (the history's `changed`). */
  changed: number;
  /** Addresses in the state written. */
  resources: number;
}

/**
 * The entries a StateWriter changed in a state it made, with what they were at the serial it
 * made it from (undefined: not there). Set on the state the writer hands to the store, which
 * then stores what changed without comparing every entry: a write of a large state costs what
 * it changed. (A side table, like format.ts's fingerprint hints, so the store interface stays
 * one `write(state)`.)
 */
const writerChanges = new WeakMap<StateDocument, ReadonlyMap<string, StateEntry | undefined>>();

export function withWriterChanges(state: StateDocument, before: ReadonlyMap<string, StateEntry | undefined>): StateDocument {
  writerChanges.set(state, before);
  return state;
}

/** `next`, made from `state` by a store (the serial added), with the writer's account of `state`. */
export function carryWriterChanges(state: StateDocument, next: StateDocument): StateDocument {
  const changes = writerChanges.get(state);
  if (changes !== undefined) writerChanges.set(next, changes);
  return next;
}

/** Whether `state` comes with the writer's account of what it changed (its entries may then change further in the writer's hands). */
export function hasWriterChanges(state: StateDocument): boolean {
  return writerChanges.has(state);
}

export function headOf(state: StateDocument): StateHead {
  const head: StateHead = { formatVersion: state.formatVersion, lineage: state.lineage, portal: state.portal };
  if (state.unknownOutcomes && Object.keys(state.unknownOutcomes).length > 0) head.unknownOutcomes = state.unknownOutcomes;
  return head;
}

/** Entries and heads are JSON by contract (validateState checks them before any write); these give them as such for deepEqual. */
function entryJson(entry: StateEntry): JsonValue {
  const { kind, ids, value, status, appliedAt, observedAt, names } = entry;
  const json: Record<string, JsonValue> = { kind, ids, value };
  if (status !== undefined) json['status'] = status;
  if (appliedAt !== undefined) json['appliedAt'] = appliedAt;
  if (observedAt !== undefined) json['observedAt'] = observedAt;
  if (names !== undefined) json['names'] = names.map(({ noun, name, id, field }) => ({ noun, name, id, ...(field === undefined ? {} : { field }) }));
  return json;
}

function headJson(head: StateHead): JsonValue {
  const portal: Record<string, JsonValue> = { url: head.portal.url };
  if (head.portal.id !== undefined) portal['id'] = head.portal.id;
  const json: Record<string, JsonValue> = { formatVersion: head.formatVersion, lineage: head.lineage, portal };
  if (head.unknownOutcomes) {
    const marks: Record<string, JsonValue> = {};
    for (const [address, mark] of Object.entries(head.unknownOutcomes)) marks[address] = { ...mark };
    json['unknownOutcomes'] = marks;
  }
  return json;
}

function sameEntry(left: StateEntry, right: StateEntry): boolean {
  // Entries a write did not touch are the same objects: only the others are compared.
  return left === right || deepEqual(entryJson(left), entryJson(right));
}

/**
 * What changes from `before` (the stored state, or undefined when there is none) to `after`.
 * Unchanged entries are usually the very same objects (the writer copies only what it
 * records), so this costs one look per address and a comparison per changed one.
 */
export function diffStates(before: StateDocument | undefined, after: StateDocument): StateDiff {
  const put: Record<string, StateEntry> = {};
  const removed: string[] = [];
  const undo: Record<string, StateEntry | null> = {};
  let changed = 0;
  const previous = before?.resources;
  for (const address in after.resources) {
    const entry = after.resources[address];
    if (entry === undefined) continue;
    const earlier = previous !== undefined && Object.prototype.hasOwnProperty.call(previous, address) ? previous[address] : undefined;
    if (earlier !== undefined && sameEntry(earlier, entry)) continue;
    put[address] = entry;
    changed += 1;
    // The first state of a store is undone as a whole (there was nothing): no entry to keep.
    if (before !== undefined) undo[address] = earlier ?? null;
  }
  if (previous !== undefined) {
    for (const address in previous) {
      if (Object.prototype.hasOwnProperty.call(after.resources, address)) continue;
      const earlier = previous[address];
      if (earlier === undefined) continue;
      removed.push(address);
      changed += 1;
      undo[address] = earlier;
    }
  }
  changed += marksChangedBesides(before, after, (address) => Object.prototype.hasOwnProperty.call(put, address) || removed.includes(address));
  return { change: withHead({ from: before === undefined ? null : before.serial, resources: undo }, before, after), put, removed, changed, resources: Object.keys(after.resources).length };
}

/**
 * Addresses whose unknown-outcome mark the write set, changed or cleared while their entry stayed
 * as it was (`counted`: whether the address's entry changed): they count as changed in the
 * history, so a write that only marks a request in flight does not read `changed 0`. Marks are
 * few (requests in flight), so this costs nothing for a large state.
 */
function marksChangedBesides(before: StateDocument | undefined, after: StateDocument, counted: (address: string) => boolean): number {
  const earlier = before?.unknownOutcomes ?? {};
  const now = after.unknownOutcomes ?? {};
  let changed = 0;
  for (const address of new Set([...Object.keys(earlier), ...Object.keys(now)])) {
    if (counted(address)) continue;
    if (!deepEqual(earlier[address] ?? null, now[address] ?? null)) changed += 1;
  }
  return changed;
}

/** The change with the head before it, when the write changed the head. */
function withHead(change: StateChange, before: StateDocument | undefined, after: StateDocument): StateChange {
  if (before !== undefined) {
    const head = headOf(before);
    if (!deepEqual(headJson(head), headJson(headOf(after)))) change.head = head;
  }
  return change;
}

/**
 * The diff of a write from what the writer says it changed (withWriterChanges): a look at each
 * changed address only. `before` is the stored state it was made from (its head and serial are
 * used, not its entries); `count` the number of entries stored, when the store knows it.
 */
function diffFromWriter(changes: ReadonlyMap<string, StateEntry | undefined>, before: StateDocument, after: StateDocument, count: number | undefined): StateDiff {
  const put: Record<string, StateEntry> = {};
  const removed: string[] = [];
  const undo: Record<string, StateEntry | null> = {};
  let changed = 0;
  let added = 0;
  for (const [address, earlier] of changes) {
    const entry = Object.prototype.hasOwnProperty.call(after.resources, address) ? after.resources[address] : undefined;
    if (entry === undefined) {
      if (earlier === undefined) continue;
      removed.push(address);
      added -= 1;
    } else {
      if (earlier !== undefined && sameEntry(earlier, entry)) continue;
      put[address] = entry;
      if (earlier === undefined) added += 1;
    }
    changed += 1;
    undo[address] = earlier ?? null;
  }
  changed += marksChangedBesides(before, after, (address) => Object.prototype.hasOwnProperty.call(undo, address));
  const change = withHead({ from: before.serial, resources: undo }, before, after);
  return { change, put, removed, changed, resources: count === undefined ? Object.keys(after.resources).length : count + added };
}

/** What is wrong with a stored change read back (JSON), if anything. */
function changeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'the change is not an object';
  const from = value['from'];
  if (from !== null && (typeof from !== 'number' || !Number.isInteger(from) || from < 0)) return '"from" is not a serial';
  const resources = value['resources'];
  if (!isObject(resources)) return '"resources" is not an object';
  for (const address in resources) {
    const entry = resources[address];
    if (entry !== null && (!isObject(entry) || typeof entry['kind'] !== 'string' || !isObject(entry['ids']) || !('value' in entry))) {
      return `the entry before the change at ${JSON.stringify(address)} is not a state entry`;
    }
  }
  const head = value['head'];
  if (head !== undefined && (!isObject(head) || typeof head['lineage'] !== 'string' || !isObject(head['portal']))) return '"head" is not a state head';
  return undefined;
}

function isStateChange(value: unknown): value is StateChange {
  return changeProblem(value) === undefined;
}

/**
 * The diff of a write, with the entries it puts checked by validateState (the others were
 * checked when they were stored): checking every entry of a large state cost more than the
 * write. `before` is the stored state (for a writer's state, only its head and serial are read);
 * `count`, its number of entries when known. Throws StateError naming `where`.
 */
export function checkedDiff(before: StateDocument | undefined, after: StateDocument, where: string, count?: number): StateDiff {
  const changes = writerChanges.get(after);
  const diff = changes !== undefined && before !== undefined ? diffFromWriter(changes, before, after, count) : diffStates(before, after);
  const problem = validateState(after, { entries: Object.keys(diff.put) });
  if (problem) throw new StateError(`Refusing to write an invalid state to ${where}: ${problem}.`);
  return diff;
}

/** A stored change read back (JSON), checked for the shape this module writes; throws StateCorruptError naming `where`. */
export function changeFromValue(value: unknown, where: string): StateChange {
  if (isStateChange(value)) return value;
  throw new StateCorruptError(where, changeProblem(value) ?? 'the change cannot be read', { what: 'History entry' });
}

/**
 * The state at `serial`, rebuilt from `current` by undoing the changes after it, newest first.
 * `changeAt(n)` gives the change that wrote serial n (undefined when it is not kept). Returns
 * undefined when the chain of changes does not reach `serial` (it was never written: a pushed
 * state can skip serials); throws StateCorruptError when a change it needs is missing.
 */
export async function rebuildSerial(
  current: StateDocument,
  serial: number,
  changeAt: (serial: number) => Promise<StateChange | undefined>,
  where: string,
): Promise<StateDocument | undefined> {
  if (serial === current.serial) return current;
  if (serial > current.serial) return undefined;
  // One working copy, changed in place: a copy per step made rebuilding an old serial of a
  // large state cost a copy of it per write since.
  const resources: Record<string, StateEntry> = { ...current.resources };
  let head = headOf(current);
  let at = current.serial;
  while (at > serial) {
    const change = await changeAt(at);
    if (!change) throw new StateCorruptError(where, `the history holds no change for serial ${at}, which rebuilding serial ${serial} needs`, { what: 'History of' });
    for (const address in change.resources) {
      const before = change.resources[address];
      if (before === null || before === undefined) delete resources[address];
      else resources[address] = before;
    }
    if (change.head) head = change.head;
    if (change.from === null) return undefined;
    at = change.from;
  }
  if (at !== serial) return undefined;
  const { unknownOutcomes, ...rest } = head;
  return { ...rest, serial, resources, ...(unknownOutcomes && Object.keys(unknownOutcomes).length > 0 ? { unknownOutcomes } : {}) };
}
