/**
 * The emulator's state and clock. Every request runs against a copied draft; a write commits
 * the draft only when its handler returns, so a rejected or crashed request leaves the state
 * exactly as it was.
 */
import { isRecord } from './json.js';
import type { EmulatorState } from './model.js';

/**
 * A deep copy of JSON-shaped data (the state holds nothing else: model.ts), written out rather
 * than structuredClone, which is far slower on the parts a request copies: the emulator must not
 * set the pace of a benchmark of the client. A spread of a `T` is a `T`, so objects keep their
 * type; an array does not (Array.isArray narrows to any[], and Object.assign, which would keep
 * the type, copies a small array several times slower than this loop): its copy is asserted.
 */
export function copyState<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyState(value[index]);
    return copy as T;
  }
  const copy = { ...value };
  for (const key in copy) copy[key] = copyState(copy[key]);
  return copy;
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
 * the list was materialised, in which case the new list replaces it. Assigning a part replaces it.
 */
function lazyDraft(current: EmulatorState, work: StoreWork): { draft: EmulatorState; commit(): EmulatorState } {
  const organization = plainPart(current.organization);
  const roles = listPart(current.roles, work);
  const users = listPart(current.users, work);
  const tokens = listPart(current.tokens, work);
  const oauthClients = listPart(current.oauthClients, work);
  const groups = listPart(current.groups, work);
  const items = listPart(current.items, work);
  const federation = plainPart(current.federation);
  const collaborations = listPart(current.collaborations, work);
  const draft: EmulatorState = {
    get organization() { return organization.value; },
    set organization(next) { organization.value = next; },
    get roles() { return roles.value; },
    set roles(next) { roles.value = next; },
    get users() { return users.value; },
    set users(next) { users.value = next; },
    get tokens() { return tokens.value; },
    set tokens(next) { tokens.value = next; },
    get oauthClients() { return oauthClients.value; },
    set oauthClients(next) { oauthClients.value = next; },
    get groups() { return groups.value; },
    set groups(next) { groups.value = next; },
    get items() { return items.value; },
    set items(next) { items.value = next; },
    get federation() { return federation.value; },
    set federation(next) { federation.value = next; },
    get collaborations() { return collaborations.value; },
    set collaborations(next) { collaborations.value = next; },
  };
  const commit = (): EmulatorState => ({
    organization: organization.commit(),
    roles: roles.commit(),
    users: users.commit(),
    tokens: tokens.commit(),
    oauthClients: oauthClients.commit(),
    groups: groups.commit(),
    items: items.commit(),
    federation: federation.commit(),
    collaborations: collaborations.commit(),
  });
  return { draft, commit };
}

/** One top-level part of a draft: opened on first read (a copy, or a copy-on-write list); an assignment replaces it. */
class DraftPart<T> {
  private opened: { value: T; commit: () => T } | undefined;

  constructor(
    private readonly original: T,
    private readonly open: (original: T) => { value: T; commit: () => T },
  ) {}

  get value(): T {
    return (this.opened ??= this.open(this.original)).value;
  }

  set value(next: T) {
    this.opened = { value: next, commit: () => next };
  }

  commit(): T {
    return this.opened ? this.opened.commit() : this.original;
  }
}

function plainPart<T>(original: T): DraftPart<T> {
  return new DraftPart(original, (value) => {
    const copy = copyState(value);
    return { value: copy, commit: () => copy };
  });
}

function listPart<E>(original: E[], work: StoreWork): DraftPart<E[]> {
  return new DraftPart(original, (list) => {
    const draft = new CopyOnWriteList(list, work);
    return { value: draft.proxy, commit: () => draft.commit() };
  });
}

/** What the indexes need to know of a draft list: the committed list it reads, and whether it left it. */
interface DraftList {
  readonly original: readonly unknown[];
  readonly isMaterialised: boolean;
}

const listTargets = new WeakMap<object, DraftList>();

/** See lazyDraft. */
class CopyOnWriteList<E> implements DraftList {
  readonly proxy: E[];
  private readonly touched = new Map<number, E>();
  /** Elements pushed onto the end: committed by appending, so the list's indexes stay valid. */
  private readonly appended: E[] = [];
  private materialised: E[] | undefined;

  constructor(
    readonly original: E[],
    private readonly work: StoreWork,
  ) {
    this.proxy = new Proxy(original, {
      get: (target, key, receiver) => {
        if (this.materialised) return Reflect.get(this.materialised, key);
        if (key === 'length') return this.length;
        const index = arrayIndex(key);
        // Array methods run on the proxy (`this`), so their element reads come back through here.
        return index === undefined ? Reflect.get(target, key, receiver) : this.element(index);
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

  private get length(): number {
    return this.original.length + this.appended.length;
  }

  private element(index: number): E | undefined {
    if (index >= this.original.length) return this.appended[index - this.original.length];
    const touched = this.touched.get(index);
    if (touched !== undefined) return touched;
    const original = this.original[index];
    if (original === undefined) return undefined;
    this.work.elementCopies += 1;
    const copy = copyState(original);
    this.touched.set(index, copy);
    return copy;
  }

  private materialise(): E[] {
    if (!this.materialised) {
      const elements: E[] = [];
      this.original.forEach((_, index) => {
        const element = this.element(index);
        if (element !== undefined) elements.push(element);
      });
      this.materialised = [...elements, ...this.appended];
    }
    return this.materialised;
  }

  /** The committed list: the original with touched elements written back and appends added, or the new list. */
  commit(): E[] {
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

/** A field of a list element (elements are records: model.ts). */
function fieldOf(element: unknown, key: string): unknown {
  return isRecord(element) ? element[key] : undefined;
}

/** The fields indexes are built on; an element whose fields change invalidates its list's indexes. */
const INDEXED_FIELDS = ['id', 'username', 'token', 'clientId', 'owner', 'access'] as const;

function sameIndexedKeys(before: unknown, after: unknown): boolean {
  return INDEXED_FIELDS.every((field) => fieldOf(before, field) === fieldOf(after, field));
}

/** findBy's positions of each committed list, by key: extended by appends, dropped when an indexed field changes. */
const positionIndexes = new WeakMap<readonly unknown[], Map<string, Map<string, number>>>();

/** How often each committed list's other indexes (ListIndex) were invalidated; an index built at an older version is rebuilt. */
const listVersions = new WeakMap<readonly unknown[], number>();

function invalidateListIndexes(list: readonly unknown[]): void {
  listVersions.set(list, (listVersions.get(list) ?? 0) + 1);
}

function dropIndexes(list: readonly unknown[]): void {
  positionIndexes.delete(list);
  invalidateListIndexes(list);
}

/** After appends from position `from`: findBy's positions take the new elements; other indexes are rebuilt when next used. */
function extendIndexes(list: readonly unknown[], from: number): void {
  invalidateListIndexes(list);
  for (const [key, positions] of positionIndexes.get(list) ?? []) {
    for (let position = from; position < list.length; position += 1) {
      const id = fieldOf(list[position], key);
      if (typeof id === 'string' && !positions.has(id)) positions.set(id, position);
    }
  }
}

/**
 * The committed list a list's indexes are built on: the list itself, or the committed list a
 * draft list reads. Undefined for a materialised draft list, whose element order may have
 * changed: its indexes are built afresh each time.
 */
function committedOf(list: readonly unknown[]): readonly unknown[] | undefined {
  const draft = listTargets.get(list);
  if (!draft) return list;
  return draft.isMaterialised ? undefined : draft.original;
}

/**
 * An index of committed lists (one per kind of index, e.g. the items each owner sees), built
 * once per list and kept until the list changes structurally (a new list) or an element's
 * indexed field changes. `build` reads the committed list's elements as stored (not copied):
 * it must not change them. Positions stay valid for a draft list, because element order only
 * changes by materialising.
 */
export class ListIndex<T> {
  private readonly built = new WeakMap<readonly unknown[], { version: number; index: T }>();

  constructor(private readonly build: (committed: readonly unknown[]) => T) {}

  of(list: readonly unknown[]): T {
    const committed = committedOf(list);
    if (!committed) return this.build(list);
    const version = listVersions.get(committed) ?? 0;
    const known = this.built.get(committed);
    if (known && known.version === version) return known.index;
    const index = this.build(committed);
    this.built.set(committed, { version, index });
    return index;
  }
}

/** Position of each element by `key` (its first occurrence). */
function positionsOf(list: readonly unknown[], key: string): Map<string, number> {
  const positions = new Map<string, number>();
  list.forEach((element, position) => {
    const id = fieldOf(element, key);
    if (typeof id === 'string' && !positions.has(id)) positions.set(id, position);
  });
  return positions;
}

function positionsBy(list: readonly unknown[], key: string): Map<string, number> {
  const committed = committedOf(list);
  if (!committed) return positionsOf(list, key);
  let byKey = positionIndexes.get(committed);
  if (!byKey) positionIndexes.set(committed, (byKey = new Map()));
  let positions = byKey.get(key);
  if (!positions) byKey.set(key, (positions = positionsOf(committed, key)));
  return positions;
}

/** The first element whose `key` is `value`, through an index of the committed list. */
export function findBy<T extends object>(list: readonly T[], key: keyof T & string, value: string): T | undefined {
  const position = positionsBy(list, key).get(value);
  if (position === undefined) {
    // Elements pushed in this draft are not in the committed list's index yet.
    const draft = listTargets.get(list);
    if (!draft || draft.isMaterialised) return undefined;
    for (let index = draft.original.length; index < list.length; index++) {
      const candidate = list[index];
      if (candidate !== undefined && candidate[key] === value) return candidate;
    }
    return undefined;
  }
  const element = list[position];
  // A materialised draft list may have moved elements: confirm, and fall back to a scan.
  if (element !== undefined && element[key] === value) return element;
  return list.find((candidate) => candidate[key] === value);
}
