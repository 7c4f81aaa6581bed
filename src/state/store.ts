/**
 * The state store contract: a file or a PostgreSQL database behind the same interface. Writes
 * are atomic and bump the serial; every serial is kept in a bounded history; a lock naming its
 * holder keeps two runs from applying at once.
 */
import { errorMessage } from '../core/errors.js';
import type { StateDocument } from './format.js';
import type { LockInfo, LockRequest, LockStatus, StateLock } from './lock.js';

export type { LockInfo, LockRequest, LockStatus, StateLock } from './lock.js';

/** One recorded serial, newest first in `history()`. */
export interface HistoryEntry {
  serial: number;
  lineage: string;
  /** ISO 8601 time of the write. */
  writtenAt: string;
  /** The command that wrote it, e.g. "portalctl apply --auto-approve". */
  command: string;
  /** Addresses in that state. */
  resources: number;
  /** Addresses added, changed or removed since the serial before it, or whose unknown-outcome mark was. */
  changed: number;
}

/** How many serials a store keeps by default. */
export const DEFAULT_HISTORY_KEEP = 100;

/**
 * What a store tells its user while it works: waiting for another run's lock, taking over a
 * stale one, or setting aside the history another state left behind.
 */
export type StoreNoticeKind = 'waiting' | 'takeover' | 'history';

export interface StateStore {
  /** Human description of where the state lives, never with a password. */
  describe(): string;
  /** The recorded state, or undefined when none exists yet. Never waits for a lock. */
  read(): Promise<StateDocument | undefined>;
  /**
   * Write atomically with serial+1 and return what was written. Refuses when the stored
   * state has another lineage or another serial than `state` (someone else wrote meanwhile).
   */
  write(state: StateDocument): Promise<StateDocument>;
  /**
   * Store a state as it is, keeping its lineage and serial (`state push`, `state pull`).
   * Refused when the stored state has another lineage or a newer serial.
   */
  importState(state: StateDocument): Promise<StateDocument>;
  /** Recorded serials, newest first (at most the store's keep count). */
  history(): Promise<HistoryEntry[]>;
  /** The state as it was at `serial`, when that serial is still kept. */
  readSerial(serial: number): Promise<StateDocument | undefined>;
  /** Where to look when there is no recorded state but a copy of one is left (a file's `.backup`), as a sentence; undefined when there is none. */
  leftCopyHint(): Promise<string | undefined>;
  /** Take the lock, waiting up to `timeoutMs`; throws StateLockedError naming the holder. */
  lock(request: LockRequest): Promise<StateLock>;
  /** Release a lock taken by `lock`; a no-op when it is already gone. */
  unlock(lock: StateLock): Promise<void>;
  /**
   * Whether a lock this process holds goes when the process ends without `unlock` (a database
   * session's lock, released by the server as the connection closes), so that stopping at once
   * need not wait for a release queued behind a write in flight. A lock file stays behind.
   */
  readonly lockEndsWithProcess: boolean;
  /** The command that removes lock `lockId` of this state, with the flags that name it (messages print it). */
  unlockCommand(lockId: string): string;
  /** Remove whatever lock is held (`portalctl state unlock`); with an id, only that lock. */
  forceUnlock(lockId?: string): Promise<LockInfo | undefined>;
  /** The lock currently held, if any. */
  currentLock(): Promise<LockInfo | undefined>;
  /** The lock as `state unlock` sees it, including a lock record that cannot be read. */
  lockStatus(): Promise<LockStatus>;
  /** Release connections; the store is not used afterwards. */
  close(): Promise<void>;
}

function notReleased(store: StateStore, lock: StateLock, error: unknown): string {
  return `The state lock ${lock.info.id} of ${store.describe()} could not be released: ${errorMessage(error)}. A later run takes it over once this process is gone; \`${store.unlockCommand(lock.info.id)}\` releases it now.`;
}

/** Run `action` under the lock and release it on success and on failure. */
export async function withStateLock<T>(
  store: StateStore,
  request: LockRequest,
  action: (lock: StateLock) => Promise<T>,
): Promise<T> {
  const lock = await store.lock(request);
  let result: T;
  try {
    result = await action(lock);
  } catch (error) {
    // The action's failure is what the user needs; a failed release must not hide it.
    await store.unlock(lock).catch((release: unknown) => request.onReleaseFailure?.(notReleased(store, lock, release)));
    throw error;
  }
  try {
    await store.unlock(lock);
  } catch (error) {
    if (!request.onReleaseFailure) throw error;
    request.onReleaseFailure(notReleased(store, lock, error));
  }
  return result;
}

/** How many addresses differ between two states (added, changed or removed). */
export function countChanged(before: StateDocument | undefined, after: StateDocument): number {
  const previous = before?.resources ?? {};
  let changed = 0;
  for (const [address, entry] of Object.entries(after.resources)) {
    const earlier = previous[address];
    // Entries a write did not touch are the same objects: only the others are compared.
    if (earlier !== entry && JSON.stringify(earlier) !== JSON.stringify(entry)) changed += 1;
  }
  for (const address of Object.keys(previous)) if (!(address in after.resources)) changed += 1;
  return changed;
}
