/**
 * The emulator's state and clock. Every request runs against a copied draft; a write commits
 * the draft only when its handler returns, so a rejected or crashed request leaves the state
 * exactly as it was.
 */
import type { EmulatorState } from './model.js';

/**
 * A deep copy of JSON-shaped data (the state holds nothing else: model.ts). About ten times
 * faster than structuredClone, which matters because every request copies the whole state:
 * with structuredClone a 2,000-object organization cost several milliseconds per request, and
 * the emulator, not the client, set the pace of benchmarks.
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
    return handler(lazyDraft(this.current).draft);
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
    const { draft, commit } = lazyDraft(this.current);
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
 * A draft of the state whose top-level parts (organization, users, items, ...) are copied on
 * first access: a request touches two or three of them, and copying the whole state for each
 * request made the emulator, not the client, the bottleneck of benchmarks. Untouched parts are
 * shared with the current state, which nothing can change through the draft.
 */
function lazyDraft(current: EmulatorState): { draft: EmulatorState; commit(): EmulatorState } {
  const source = current as unknown as Record<string | symbol, unknown>;
  const copies: Record<string | symbol, unknown> = {};
  const removed = new Set<string | symbol>();
  const has = (key: string | symbol): boolean => !removed.has(key) && (key in copies || Object.prototype.hasOwnProperty.call(source, key));
  const value = (key: string | symbol): unknown => {
    if (removed.has(key)) return undefined;
    if (!(key in copies) && Object.prototype.hasOwnProperty.call(source, key)) copies[key] = copyState(source[key]);
    return copies[key];
  };
  const keys = (): (string | symbol)[] => [...new Set([...Reflect.ownKeys(source), ...Reflect.ownKeys(copies)])].filter(has);
  const draft = new Proxy(copies, {
    get: (_target, key) => value(key),
    set: (_target, key, next) => {
      removed.delete(key);
      copies[key] = next;
      return true;
    },
    deleteProperty: (_target, key) => {
      removed.add(key);
      delete copies[key];
      return true;
    },
    has: (_target, key) => has(key),
    ownKeys: () => keys(),
    getOwnPropertyDescriptor: (_target, key) => (has(key) ? { value: value(key), writable: true, enumerable: true, configurable: true } : undefined),
  }) as unknown as EmulatorState;
  const commit = (): EmulatorState => {
    const next: Record<string | symbol, unknown> = {};
    for (const key of keys()) next[key] = key in copies ? copies[key] : source[key];
    return next as unknown as EmulatorState;
  };
  return { draft, commit };
}
