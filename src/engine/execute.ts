/**
 * Runs a plan's operations: dependencies first, independent ones concurrently (up to
 * `parallelism`), a failure skips only its dependents, and every success is recorded at once.
 * A stop request (first Ctrl-C) lets the operations in flight finish and starts no new one.
 * It sends through the API client and records through the state writer it is given: nothing
 * calls back up into the apply use case.
 *
 * `parallelism` bounds the requests in flight. An answered operation frees its place at once
 * and its record finishes in the background (its dependents still wait for it): holding the
 * place until the state write was on disk made every write wait for a file commit as well as
 * for the portal, and a 1,000-write apply ran at a third of the speed the portal allowed.
 */
import { isNotFound, type ApiClient } from '../api/index.js';
import { PortalctlError } from '../core/errors.js';
import type { StateEntry } from '../state/index.js';
import type { PlannedOperation } from './plan.js';

/** Stores an invitation file (E13's answer) and returns where; supplied by the CLI, which owns the file system. */
export type SaveInvitation = (filename: string, content: Uint8Array) => Promise<string>;

export interface ExecuteOptions {
  /** Where requests go: the API client. */
  client: Pick<ApiClient, 'send'>;
  /** Where successes are recorded: the state writer. */
  recorder: { record(address: string, entry: StateEntry): Promise<unknown> };
  parallelism: number;
  /** The ids of the object at an address, recorded with it. */
  idsOf?: (address: string) => Readonly<Record<string, string>> | undefined;
  saveInvitation?: SaveInvitation;
  /** True once a stop was requested. */
  stopRequested?: () => boolean;
  /** Each operation as it finishes, with the invitation file it saved. */
  onDone?: (outcome: OperationOutcome, invitation?: string) => void;
}

export type OperationOutcome =
  | { status: 'applied'; op: PlannedOperation }
  | { status: 'failed'; op: PlannedOperation; error: unknown }
  | { status: 'skipped'; op: PlannedOperation; reason: string };

export interface ExecuteResult {
  applied: PlannedOperation[];
  failed: { op: PlannedOperation; error: unknown }[];
  skipped: { op: PlannedOperation; reason: string }[];
  interrupted: boolean;
  /** Saved invitation files, by address. */
  invitations: Record<string, string>;
}

/** Sends one operation; returns the invitation file it saved, if any. */
async function send(op: PlannedOperation, options: ExecuteOptions): Promise<string | undefined> {
  const response = await options.client.send(op.request).catch((error: unknown) => {
    // A removal whose target is already gone (removed meanwhile) has reached its goal.
    if (op.action === 'delete' && isNotFound(error)) return undefined;
    throw error;
  });
  if (response?.type !== 'file') return undefined;
  if (!options.saveInvitation) throw new PortalctlError(`${op.address} answered with an invitation file, and no place to save it was given.`);
  return options.saveInvitation(response.filename ?? 'collaboration.invite', response.content);
}

function record(op: PlannedOperation, options: ExecuteOptions): Promise<unknown> {
  return options.recorder.record(op.address, {
    kind: op.kind,
    ids: { ...(options.idsOf?.(op.address) ?? {}) },
    value: op.after,
    status: op.action === 'delete' ? 'absent' : 'present',
    appliedAt: new Date().toISOString(),
  });
}

export async function executePlan(operations: readonly PlannedOperation[], options: ExecuteOptions): Promise<ExecuteResult> {
  const result: ExecuteResult = { applied: [], failed: [], skipped: [], interrupted: false, invitations: {} };
  const inPlan = new Set(operations.map((op) => op.address));
  const done = new Set<string>();
  const blockedBy = new Map<string, string>();
  const pending = [...operations];
  /** Requests in flight: what `parallelism` limits. */
  const sending = new Set<Promise<void>>();
  /** Operations not yet finished (request in flight, or answered and being recorded). */
  const running = new Set<Promise<void>>();

  const finish = (outcome: OperationOutcome): void => {
    options.onDone?.(outcome, outcome.status === 'applied' ? result.invitations[outcome.op.address] : undefined);
    if (outcome.status === 'applied') result.applied.push(outcome.op);
    else if (outcome.status === 'failed') result.failed.push({ op: outcome.op, error: outcome.error });
    else result.skipped.push({ op: outcome.op, reason: outcome.reason });
  };

  /** The first pending operation whose dependencies are all applied; skips the blocked ones on the way. */
  const takeReady = (): PlannedOperation | undefined => {
    for (let i = 0; i < pending.length; i++) {
      const op = pending[i] as PlannedOperation;
      const deps = op.dependsOn.filter((dep) => inPlan.has(dep));
      const blocker = deps.find((dep) => blockedBy.has(dep));
      if (blocker) {
        pending.splice(i--, 1);
        blockedBy.set(op.address, blockedBy.get(blocker) ?? blocker);
        finish({ status: 'skipped', op, reason: `depends on ${blocker}, which ${blocker === blockedBy.get(op.address) ? 'failed' : 'was skipped'}` });
        continue;
      }
      if (deps.every((dep) => done.has(dep))) {
        pending.splice(i, 1);
        return op;
      }
    }
    return undefined;
  };

  const start = (op: PlannedOperation): void => {
    const sent = send(op, options);
    const slot = sent.then(
      () => undefined,
      () => undefined,
    );
    sending.add(slot);
    void slot.finally(() => sending.delete(slot));
    const task = (async () => {
      try {
        const invitation = await sent;
        if (invitation !== undefined) result.invitations[op.address] = invitation;
        await record(op, options);
        done.add(op.address);
        finish({ status: 'applied', op });
      } catch (error) {
        blockedBy.set(op.address, op.address);
        finish({ status: 'failed', op, error });
      }
    })();
    running.add(task);
    void task.finally(() => running.delete(task));
  };

  for (;;) {
    if (options.stopRequested?.()) {
      result.interrupted = pending.length > 0;
      break;
    }
    while (sending.size < Math.max(1, options.parallelism)) {
      const op = takeReady();
      if (!op) break;
      start(op);
    }
    if (running.size === 0) break;
    await Promise.race([...sending, ...running]);
  }
  await Promise.all(running);
  for (const op of pending.splice(0)) {
    finish({ status: 'skipped', op, reason: result.interrupted ? 'apply was interrupted' : 'a dependency did not complete' });
  }
  return result;
}
