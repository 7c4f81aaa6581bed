/**
 * The state store contract: the file store now, other backends later behind the same
 * interface. Writes are atomic and bump the serial; a lock with owner, host, pid, time and
 * expiry keeps two runs from applying at once.
 */
import type { StateDocument } from './format.js';

export interface LockInfo {
  /** Random id of this lock, shown to the user for `portalctl state unlock <id>`. */
  id: string;
  /** user@host */
  owner: string;
  host: string;
  pid: number;
  /** What the holder is doing, e.g. "apply". */
  operation: string;
  /** ISO 8601 times. */
  created: string;
  expires: string;
}

export interface LockRequest {
  /** What the locker is about to do, e.g. "apply"; shown to whoever waits. */
  operation: string;
  /** How long to wait for a held lock before failing. Default 0: fail at once. */
  timeoutMs?: number;
  /** How long the lock stays valid if its holder never releases it. Default one hour. */
  ttlMs?: number;
  /** Poll interval while waiting. Default 100 ms. */
  pollMs?: number;
}

export interface StateLock {
  readonly info: LockInfo;
  /** Set when a stale lock (expired, or its process gone on this host) was taken over. */
  readonly takenOver?: { lock: LockInfo; reason: string };
}

export interface StateStore {
  /** Human description of where the state lives, e.g. "file /path/portalctl.state.json". */
  describe(): string;
  /** The recorded state, or undefined when none exists yet. */
  read(): Promise<StateDocument | undefined>;
  /**
   * Write atomically with serial+1 and return what was written. Refuses when the stored
   * state has another lineage or another serial than `state` (someone else wrote meanwhile).
   */
  write(state: StateDocument): Promise<StateDocument>;
  /** Take the lock, waiting up to `timeoutMs`; throws StateLockedError naming the holder. */
  lock(request: LockRequest): Promise<StateLock>;
  /** Release a lock taken by `lock`; a no-op when it is already gone. */
  unlock(lock: StateLock): Promise<void>;
  /** Remove whatever lock is held (`portalctl state unlock`); with an id, only that lock. */
  forceUnlock(lockId?: string): Promise<LockInfo | undefined>;
  /** The lock currently held, if any. */
  currentLock(): Promise<LockInfo | undefined>;
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
    await store.unlock(lock).catch(() => undefined);
    throw error;
  }
  await store.unlock(lock);
  return result;
}
