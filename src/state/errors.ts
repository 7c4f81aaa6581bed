/** Errors of the recorded-state stores; each names the state and what the user can do. */
import { PortalctlError } from '../core/errors.js';
import { describeHolder, type LockInfo } from './lock.js';

export class StateError extends PortalctlError {}

/** `state unlock ID` where there is no lock: named from a lock message, it is on another state (another --state or --state-name). */
export function noSuchLock(where: string, lockId: string): StateError {
  return new StateError(`There is no lock ${lockId} on the state ${where}: it is not locked. Name the state the lock's message names (its --state and --state-name).`);
}

/** The stored state cannot be read as a state (truncated, not JSON, wrong structure). */
export class StateCorruptError extends StateError {
  /** What is corrupt, as the message begins: `State file` (default), `State`, `History entry of`. */
  readonly what: string | undefined;

  constructor(
    /** The file, or the database state, e.g. `postgres://u@h/db state "prod"`. */
    readonly where: string,
    readonly reason: string,
    /** What can be done: the store knows whether an earlier version exists. */
    options?: { cause?: unknown; hint?: string; what?: string },
  ) {
    super(
      `${options?.what ?? 'State file'} ${where} is corrupt: ${reason}. Nothing was changed.${options?.hint ? ` ${options.hint}` : ''}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.what = options?.what;
  }

  /** The same error (naming the same thing, unless `what` is given) with the store's advice added. */
  withHint(hint: string, what = this.what): StateCorruptError {
    return new StateCorruptError(this.where, this.reason, { cause: this.cause, hint, ...(what ? { what } : {}) });
  }
}

/**
 * The file named as the state holds something else (a config, a saved plan, another program's
 * JSON): not corrupt, so the advice for a damaged state (move it aside, start a new one) is not
 * given, since it would move that file away.
 */
export class NotAStateFileError extends StateError {
  constructor(
    readonly file: string,
    /** What the file holds instead, e.g. "it is a saved plan (`portalctl plan --out`)". */
    readonly what: string,
    advice = "name the state's own file (a file that does not exist yet starts a new state)",
  ) {
    super(`${file} is not a portalctl state file: ${what}. Nothing was changed; ${advice}.`);
  }
}

/**
 * The stored state is in a later format than this portalctl reads: written by a later release.
 * Not corrupt, so nothing is offered in its place (a backup, an earlier serial, a new state).
 */
export class StateFromLaterVersionError extends StateError {
  constructor(where: string, version: number, reads: number, what = 'State file') {
    super(`${what} ${where} was written by a later portalctl (state format version ${version}; this one reads version ${reads}): run that portalctl, or a later one. Nothing was changed.`);
  }
}

/** A write would overwrite a state it did not start from (another lineage, or a newer serial). */
export class StateConflictError extends StateError {}

/** The state belongs to another portal than the one targeted. */
export class StatePortalMismatchError extends StateError {}

/** The database holds state tables of a newer portalctl, or cannot be used for state. */
export class StateBackendError extends StateError {}

/** Someone else holds the state lock and the wait timed out. */
export class StateLockedError extends StateError {
  constructor(
    readonly where: string,
    readonly lock: LockInfo,
    /** What to do: wait, or remove the lock with the command that names this state. */
    advice: string,
  ) {
    super(`The state ${where} is locked by ${describeHolder(lock)}. ${advice}`);
  }
}
