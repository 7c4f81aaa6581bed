/** Errors of the recorded-state store; each names the file and what the user can do. */
import { PortalctlError } from '../core/errors.js';
import type { LockInfo } from './store.js';

export class StateError extends PortalctlError {}

/** The state file cannot be read as a state (truncated, not JSON, wrong structure). */
export class StateCorruptError extends StateError {
  constructor(
    readonly file: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `State file ${file} is corrupt: ${reason}. Nothing was changed. ` +
        `The previous version is kept in ${file}.backup; inspect it and copy it over ${file} if it is valid.`,
      options,
    );
  }
}

/** A write would overwrite a state it did not start from (another lineage, or a newer serial). */
export class StateConflictError extends StateError {}

/** The state belongs to another portal than the one targeted. */
export class StatePortalMismatchError extends StateError {}

/** Someone else holds the state lock and the wait timed out. */
export class StateLockedError extends StateError {
  constructor(
    readonly file: string,
    readonly lock: LockInfo,
  ) {
    super(
      `The state ${file} is locked by ${lock.owner} (pid ${lock.pid} on ${lock.host}, running "${lock.operation}") ` +
        `since ${lock.created}, until ${lock.expires}; lock id ${lock.id}. ` +
        `Wait for it to finish, or if that process is gone run \`portalctl state unlock ${lock.id}\`.`,
    );
  }
}
