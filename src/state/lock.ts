/**
 * What a state lock is, for every store. A leaf of src/state: the errors, the stores and the
 * store contract all import it, and it imports nothing of the room (only core's errors), so the
 * room has no import circle.
 */
import { InterruptedError } from '../core/errors.js';

export interface LockInfo {
  /** Random id of this lock, shown to the user for `portalctl state unlock <id>`. */
  id: string;
  /** user@host */
  owner: string;
  host: string;
  pid: number;
  /** What the holder is doing, e.g. "apply". */
  operation: string;
  /** ISO 8601 time the lock was taken. */
  created: string;
  /** ISO 8601 time after which a file lock may be taken over; absent for a lock the database releases itself. */
  expires?: string;
  /** The holder's command line (with any password removed). */
  command?: string;
}

export interface LockRequest {
  /** What the locker is about to do, e.g. "apply"; shown to whoever waits. */
  operation: string;
  /** How long to wait for a held lock before failing. Default 0: fail at once. */
  timeoutMs?: number;
  /** How long a file lock stays valid if its holder never releases it. Default one hour. */
  ttlMs?: number;
  /** Poll interval while waiting. Default 100 ms. */
  pollMs?: number;
  /** Stops waiting for a held lock (an interrupt): the attempt fails, or ends with the lock it already took. */
  signal?: AbortSignal;
  /**
   * Told of a release that failed after the work succeeded, which then returns its result (an
   * apply's report, with what it could not record, must not give way to the lock's error).
   * Absent: the release's error is thrown.
   */
  onReleaseFailure?: (message: string) => void;
}

/** The error of a lock attempt stopped by its `signal` while it waited: an interrupt, nothing was changed. */
export function stoppedWaiting(where: string): InterruptedError {
  return new InterruptedError(`Interrupted while waiting for the state lock of ${where}: nothing was changed.`);
}

export interface StateLock {
  readonly info: LockInfo;
  /** Set when a stale lock (expired, or its holder gone) was taken over. */
  readonly takenOver?: { lock: LockInfo; reason: string };
}

/** What `state unlock` would find: no lock, a lock with its holder, or a lock record that cannot be read. */
export type LockStatus = { state: 'none' } | { state: 'held'; lock: LockInfo } | { state: 'unreadable'; where: string };

/** One line naming a lock's holder, the same in every message. */
export function describeHolder(lock: LockInfo): string {
  const command = lock.command ? `"${lock.command}"` : `"${lock.operation}"`;
  return `${lock.owner} (pid ${lock.pid} on ${lock.host}, running ${command}) since ${lock.created}${lock.expires ? `, until ${lock.expires}` : ''}; lock id ${lock.id}`;
}

/** A wait as the user wrote it, roughly: 300ms, 30s, 5m. */
export function formatWait(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)}s`;
  return `${Math.round(ms / 60_000)}m`;
}
