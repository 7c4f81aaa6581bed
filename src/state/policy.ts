/**
 * What every state store refuses before it stores a state, and who its lock names: the policy
 * is written once here, and a store only keeps documents and locks (as Terraform's statemgr
 * composes a full state manager of small parts, so a backend implements storage and locking and
 * not the rules). test/state/conformance.ts checks every store against it.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { deepEqual } from '../core/json.js';
import { StateConflictError } from './errors.js';
import type { StateDocument } from './format.js';
import type { LockInfo, LockRequest } from './lock.js';

/** What a stored state is checked by: its lineage and serial. */
export type StoredVersion = Pick<StateDocument, 'lineage' | 'serial'>;

/**
 * Refuses to write `state` (made from serial `state.serial`) over `stored`: another lineage is
 * another state; another serial means another run wrote it meanwhile. `where` names the state
 * as the store describes it; `otherwise` says what to use instead of another state.
 */
export function refuseOverwrite(stored: StoredVersion | undefined, state: StoredVersion, where: string, otherwise: string): void {
  if (!stored) return;
  if (stored.lineage !== state.lineage) {
    throw new StateConflictError(
      `The state ${where} has lineage ${stored.lineage}, not ${state.lineage}: it is another state. Refusing to overwrite it; ${otherwise}.`,
    );
  }
  if (stored.serial !== state.serial) {
    throw new StateConflictError(
      `The state ${where} is at serial ${stored.serial}, but this run started from serial ${state.serial}: another run wrote it meanwhile. Run the command again.`,
    );
  }
}

/** The refusal of a copy (`state push`, `state pull`) of `incoming` over `stored`, by lineage and serial alone. */
export function copyRefusal(stored: StoredVersion | undefined, incoming: StoredVersion, where: string): string | undefined {
  if (!stored) return undefined;
  if (stored.lineage !== incoming.lineage) {
    return `The state at ${where} has lineage ${stored.lineage}, not ${incoming.lineage}: it is another state. Nothing was copied.`;
  }
  if (stored.serial > incoming.serial) {
    return `The state at ${where} is at serial ${stored.serial}, newer than the serial ${incoming.serial} being copied. Nothing was copied.`;
  }
  return undefined;
}

/**
 * Whether copying `incoming` over `stored` changes anything: false when `stored` is that very
 * state already. Refuses another lineage, a newer serial, and the same serial with other content.
 */
export function copyChanges(stored: StateDocument | undefined, incoming: StateDocument, where: string): boolean {
  const refusal = copyRefusal(stored, incoming, where);
  if (refusal) throw new StateConflictError(refusal);
  if (!stored || stored.serial !== incoming.serial) return true;
  if (deepEqual(stored, incoming)) return false;
  throw new StateConflictError(`The state at ${where} is at the same serial ${incoming.serial} with other content. Nothing was copied.`);
}

/**
 * This process as a state lock names it: user@host and pid (each given in tests). Host and user
 * are asked for when a lock is first taken: a command that only reads the state (a plan) does not
 * load node:os.
 */
export class HolderIdentity {
  readonly pid: number;
  #host: string | undefined;
  #user: string | undefined;

  constructor(options: { host?: string; pid?: number; user?: string }) {
    this.#host = options.host;
    this.pid = options.pid ?? process.pid;
    this.#user = options.user;
  }

  get host(): string {
    return (this.#host ??= hostname());
  }

  get user(): string {
    return (this.#user ??= currentUser());
  }

  /** A new lock record of this holder; `expiresAt` only for a lock that is taken over once it is old (a file's). */
  lockInfo(request: LockRequest, command: string | undefined, createdAt: number, expiresAt?: number): LockInfo {
    return {
      id: randomUUID(),
      owner: `${this.user}@${this.host}`,
      host: this.host,
      pid: this.pid,
      operation: request.operation,
      ...(command ? { command } : {}),
      created: new Date(createdAt).toISOString(),
      ...(expiresAt === undefined ? {} : { expires: new Date(expiresAt).toISOString() }),
    };
  }
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown';
  }
}
