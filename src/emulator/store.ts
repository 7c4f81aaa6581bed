/**
 * The emulator's state and clock. Every request runs against a copied draft; a write commits
 * the draft only when its handler returns, so a rejected or crashed request leaves the state
 * exactly as it was.
 */
import type { EmulatorState } from './model.js';

/**
 * A deep copy of JSON-shaped data (the state holds nothing else: model.ts), written out rather
 * than structuredClone, which is far slower on the parts a request copies: the emulator must not
 * set the pace of a benchmark of the client.
 */
export function copyState<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyState(value[index]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyState((value as Record<string, unknown>)[key]);
  return copy as T;
}

export class EmulatorStore {
  private current: EmulatorState;
  private readonly initial: EmulatorState;
  /** Work counters since the store was made (see StoreWork). */
  readonly work: StoreWork = { elementCopies: 0 };

  constructor(initial: EmulatorState) {
    this.initial = copyState(initial);
    this.current = copyState(initial);
  }

  /** A copy of the current state (callers cannot change the store through it). */
  snapshot(): EmulatorState {
    return copyState(this.current);
  }

  /** Runs a read against a throw-away draft, so even a careless read handler changes nothing. */
  read<T>(handler: (draft: EmulatorState) => T): T {
    return handler(lazyDraft(this.current, this.work).draft);
  }

  /**
   * Looks at the committed state itself, without a copy: for the server's own checks (who
   * calls), which must not pay for the organization's size on every request. `look` must not
   * change what it is given.
   */
  peek<T>(look: (state: Readonly<EmulatorState>) => T): T {
    return look(this.current);
  }

  /** Runs a write against a draft and commits it only when the handler returns. */
  write<T>(handler: (draft: EmulatorState) => T): T {
    const { draft, commit } = lazyDraft(this.current, this.work);
    const result = handler(draft);
    this.current = commit();
    return result;
  }

  replace(state: EmulatorState): void {
    this.current = copyState(state);
  }

  /** Back to the data the emulator was started with. */
  reset(): void {
    this.current = copyState(this.initial);
  }
}

/** Real time, optionally frozen or shifted by the control API (for token-expiry tests). */
export class EmulatorClock {
  private frozenAt: number | undefined;
  private offsetMs = 0;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  freeze(at: number): void {
    this.frozenAt = at;
    this.offsetMs = 0;
  }

  shift(offsetMs: number): void {
    this.frozenAt = undefined;
    this.offsetMs = offsetMs;
  }

  reset(): void {
    this.frozenAt = undefined;
    this.offsetMs = 0;
  }

  describe(): { now: number; frozen: boolean; offsetMs: number } {
    return { now: this.now(), frozen: this.frozenAt !== undefined, offsetMs: this.offsetMs };
  }
}

/**
 * How much of the organization requests copy: element copies (one per entity a request touches,
 * or that a scan visits). Indexed lookups keep this independent of the organization's size; the
 * scaling test reads it.
 */
export interface StoreWork {
  elementCopies: number;
}

/**
 * A draft of the state. Plain parts (organization, federation) are copied on first access.
 * Top-level lists (users, items, groups, ...) are copy-on-write per element: reading element i
 * copies that element only, so an indexed lookup costs O(1) whatever the organization's size.
 * A structural change (push, splice, a new length) materialises the whole list once. Commit puts
 * the touched elements back into the committed list in place (so its indexes stay valid) unless
 * the list was materialised, in which case the new list replaces it.
 */
function lazyDraft(current: EmulatorState, work: StoreWork): { draft: EmulatorState; commit(): EmulatorState } {
  const source = current as unknown as Record<string | symbol, unknown>;
  const copies: Record<string | symbol, unknown> = {};
  const lists = new Map<string | symbol, CopyOnWriteList>();
  const removed = new Set<string | symbol>();
  const has = (key: string | symbol): boolean => !removed.has(key) && (key in copies || Object.prototype.hasOwnProperty.call(source, key));
  const value = (key: string | symbol): unknown => {
    if (removed.has(key)) return undefined;
    if (!(key in copies) && Object.prototype.hasOwnProperty.call(source, key)) {
      const original = source[key];
      if (Array.isArray(original)) {
        const list = new CopyOnWriteList(original, work);
        lists.set(key, list);
        copies[key] = list.proxy;
      } else {
        copies[key] = copyState(original);
      }
    }
    return copies[key];
  };
  const keys = (): (string | symbol)[] => [...new Set([...Reflect.ownKeys(source), ...Reflect.ownKeys(copies)])].filter(has);
  const draft = new Proxy(copies, {
    get: (_target, key) => value(key),
    set: (_target, key, next) => {
      removed.delete(key);
      lists.delete(key);
      copies[key] = next;
      return true;
    },
    deleteProperty: (_target, key) => {
      removed.add(key);
      lists.delete(key);
      delete copies[key];
      return true;
    },
    has: (_target, key) => has(key),
    ownKeys: () => keys(),
    getOwnPropertyDescriptor: (_target, key) => (has(key) ? { value: value(key), writable: true, enumerable: true, configurable: true } : undefined),
  }) as unknown as EmulatorState;
  const commit = (): EmulatorState => {
    const next: Record<string | symbol, unknown> = {};
    for (const key of keys()) {
      const list = lists.get(key);
      next[key] = list ? list.commit() : key in copies ? copies[key] : source[key];
    }
    return next as unknown as EmulatorState;
  };
  return { draft, commit };
}

const listTargets = new WeakMap<object, CopyOnWriteList>();

/** See lazyDraft. */
class CopyOnWriteList {
  readonly proxy: unknown[];
  private readonly touched = new Map<number, unknown>();
  /** Elements pushed onto the end: committed by appending, so the list's indexes stay valid. */
  private readonly appended: unknown[] = [];
  private materialised: unknown[] | undefined;

  constructor(
    readonly original: unknown[],
    private readonly work: StoreWork,
  ) {
    this.proxy = new Proxy(original, {
      get: (target, key, receiver) => {
        if (this.materialised) return Reflect.get(this.materialised, key);
        if (key === 'length') return this.length;
        const index = arrayIndex(key);
        // Array methods run on the proxy (`this`), so their element reads come back through here.
        return index === undefined ? (Reflect.get(target, key, receiver) as unknown) : this.element(index);
      },
      set: (_target, key, next) => {
        if (!this.materialised) {
          if (arrayIndex(key) === this.length) {
            this.appended.push(next);
            return true;
          }
          if (key === 'length' && next === this.length) return true;
        }
        return Reflect.set(this.materialise(), key, next);
      },
      deleteProperty: (_target, key) => Reflect.deleteProperty(this.materialise(), key),
      has: (target, key) => {
        if (this.materialised) return Reflect.has(this.materialised, key);
        const index = arrayIndex(key);
        return index !== undefined ? index < this.length : Reflect.has(target, key);
      },
      ownKeys: () => Reflect.ownKeys(this.materialise()),
      getOwnPropertyDescriptor: (target, key) => {
        const index = arrayIndex(key);
        if (this.materialised || index === undefined) {
          if (key === 'length' && !this.materialised) return { value: this.length, writable: true, enumerable: false, configurable: false };
          return Reflect.getOwnPropertyDescriptor(this.materialised ?? target, key);
        }
        if (index >= this.length) return undefined;
        return { value: this.element(index), writable: true, enumerable: true, configurable: true };
      },
    });
    listTargets.set(this.proxy, this);
  }

  get isMaterialised(): boolean {
    return this.materialised !== undefined;
  }

  /** Elements pushed in this draft (not in the committed list's indexes yet). */
  get appendedElements(): readonly unknown[] {
    return this.appended;
  }

  private get length(): number {
    return this.original.length + this.appended.length;
  }

  private element(index: number): unknown {
    if (index >= this.original.length) return this.appended[index - this.original.length];
    if (!this.touched.has(index)) {
      this.work.elementCopies += 1;
      this.touched.set(index, copyState(this.original[index]));
    }
    return this.touched.get(index);
  }

  private materialise(): unknown[] {
    if (!this.materialised) {
      this.materialised = [...this.original.map((_, index) => this.element(index)), ...this.appended];
    }
    return this.materialised;
  }

  /** The committed list: the original with touched elements written back and appends added, or the new list. */
  commit(): unknown[] {
    if (this.materialised) return this.materialised;
    let keysChanged = false;
    for (const [index, element] of this.touched) {
      if (!sameIndexedKeys(this.original[index], element)) keysChanged = true;
      this.original[index] = element;
    }
    if (keysChanged) dropIndexes(this.original);
    if (this.appended.length > 0) {
      const from = this.original.length;
      this.original.push(...this.appended);
      extendIndexes(this.original, from);
    }
    return this.original;
  }
}

function arrayIndex(key: string | symbol): number | undefined {
  if (typeof key !== 'string' || !/^(0|[1-9]\d*)$/.test(key)) return undefined;
  return Number(key);
}

/** The fields indexes are built on; an element whose fields change invalidates its list's indexes. */
const INDEXED_FIELDS = ['id', 'username', 'token', 'clientId', 'owner', 'access'] as const;

function sameIndexedKeys(before: unknown, after: unknown): boolean {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return INDEXED_FIELDS.every((field) => a[field] === b[field]);
}

const indexCache = new WeakMap<readonly unknown[], Map<string, unknown>>();

function dropIndexes(list: readonly unknown[]): void {
  indexCache.delete(list);
}

/** After appends from position `from`: lookup indexes (`by:<key>`) take the new elements; other indexes are rebuilt when next used. */
function extendIndexes(list: readonly unknown[], from: number): void {
  const cache = indexCache.get(list);
  if (!cache) return;
  for (const [name, index] of cache) {
    if (!name.startsWith('by:') || !(index instanceof Map)) {
      cache.delete(name);
      continue;
    }
    const key = name.slice(3);
    for (let position = from; position < list.length; position += 1) {
      const id = (list[position] as Record<string, unknown>)[key];
      if (typeof id === 'string' && !index.has(id)) index.set(id, position);
    }
  }
}

/**
 * An index of a committed list, built once and kept until the list changes structurally (a new
 * list) or an element's indexed field changes. `list` may be a draft list: its committed list is
 * indexed, and positions stay valid because element order only changes by materialising.
 */
export function listIndex<T>(list: readonly unknown[], name: string, build: (committed: readonly unknown[]) => T): { index: T; positional: boolean } {
  const wrapper = listTargets.get(list);
  if (wrapper?.isMaterialised) return { index: build(list), positional: false };
  const committed = wrapper ? wrapper.original : list;
  let cache = indexCache.get(committed);
  if (!cache) {
    cache = new Map();
    indexCache.set(committed, cache);
  }
  if (!cache.has(name)) cache.set(name, build(committed));
  return { index: cache.get(name) as T, positional: true };
}

/** Position of each element by `key` (its first occurrence). */
export function findBy<T>(list: readonly T[], key: keyof T & string, value: string): T | undefined {
  const { index } = listIndex(list as readonly unknown[], `by:${key}`, (committed) => {
    const positions = new Map<string, number>();
    committed.forEach((element, position) => {
      const id = (element as Record<string, unknown>)[key];
      if (typeof id === 'string' && !positions.has(id)) positions.set(id, position);
    });
    return positions;
  });
  const position = index.get(value);
  if (position === undefined) {
    const pushed = listTargets.get(list)?.appendedElements ?? [];
    return pushed.find((candidate) => (candidate as Record<string, unknown>)[key] === value) as T | undefined;
  }
  const element = list[position];
  // A materialised draft list may have moved elements: confirm, and fall back to a scan.
  if (element !== undefined && (element as Record<string, unknown>)[key] === value) return element;
  return list.find((candidate) => (candidate as Record<string, unknown>)[key] === value);
}
