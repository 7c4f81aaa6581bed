/**
 * Runs a plan's operations: dependencies first, independent ones concurrently (up to
 * `parallelism`), a failure skips only its dependents, and every success is recorded at once.
 * A stop request (first Ctrl-C) lets the operations in flight finish and starts no new one.
 *
 * Unknown outcomes: a request that must not be repeated (E13 creates one more invitation per
 * call) is marked "in flight" in the state before it is sent, so a crash leaves the mark; a
 * request whose answer never came (timeout, dropped connection) is marked at once. The next
 * run checks the live portal for those addresses before planning them (unknown-outcomes.ts).
 *
 * The state is the only record of what was applied: at the first failure to record one (full
 * disk, database gone), no new write is sent; the operations applied but not recorded are
 * returned as `unrecorded` for the recovery file.
 * It sends through the API client and records through the state writer it is given: nothing
 * calls back up into the apply use case.
 *
 * `parallelism` bounds the requests in flight. An answered operation frees its place at once
 * and its record finishes in the background (its dependents still wait for it): holding the
 * place until the state write was on disk made every write wait for a file commit as well as
 * for the portal, and a 1,000-write apply ran at a third of the speed the portal allowed.
 */
import { ApiNetworkError, isNotFound, type ApiClient } from '../api/index.js';
import { PortalctlError } from '../core/errors.js';
import type { StateEntry, UnknownOutcome } from '../state/index.js';
import type { PlannedOperation } from './plan.js';

/** Stores an invitation file (E13's answer) and returns where; supplied by the CLI, which owns the file system. */
export type SaveInvitation = (filename: string, content: Uint8Array) => Promise<string>;

export interface ExecuteOptions {
  /** Where requests go: the API client. */
  client: Pick<ApiClient, 'send'>;
  /** Where successes (and unknown outcomes) are recorded: the state writer. */
  recorder: {
    record(address: string, entry: StateEntry): Promise<unknown>;
    markUnknown?(address: string, mark: UnknownOutcome): Promise<unknown>;
    clearUnknown?(address: string): Promise<unknown>;
  };
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
  | { status: 'skipped'; op: PlannedOperation; reason: string }
  /** Applied on the portal, but the state could not record it. */
  | { status: 'unrecorded'; op: PlannedOperation; error: unknown; entry: StateEntry };

/** The request was sent and no answer came: the portal may or may not have performed it. */
export class UnknownOutcomeError extends PortalctlError {}

/** The state could not record an operation (or its in-flight mark): no new write is sent. */
export class RecordingError extends PortalctlError {}

/**
 * The portal performed the operation, but its answer (an invitation file) could not be kept:
 * like an unknown outcome, the mark stays, and the next run gets the answer again from the portal.
 */
export class AnswerNotKeptError extends PortalctlError {}

export interface ExecuteResult {
  applied: PlannedOperation[];
  failed: { op: PlannedOperation; error: unknown }[];
  skipped: { op: PlannedOperation; reason: string }[];
  /** Applied on the portal but not recorded in the state, with what the record would have been. */
  unrecorded: { op: PlannedOperation; error: unknown; entry: StateEntry }[];
  /** The first failure to write the state, when there was one: it stopped the apply. */
  recordingFailure?: unknown;
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
  try {
    if (!options.saveInvitation) throw new PortalctlError('no place to save it was given');
    return await options.saveInvitation(response.filename ?? 'collaboration.invite', response.content);
  } catch (error) {
    throw new AnswerNotKeptError(describeError(error), { cause: error });
  }
}

function entryOf(op: PlannedOperation, options: ExecuteOptions): StateEntry {
  return {
    kind: op.kind,
    ids: { ...(options.idsOf?.(op.address) ?? {}) },
    value: op.after,
    status: op.action === 'delete' ? 'absent' : 'present',
    appliedAt: new Date().toISOString(),
  };
}

function unknownMark(op: PlannedOperation, options: ExecuteOptions, reason: string): UnknownOutcome {
  return {
    kind: op.kind,
    ids: { ...(options.idsOf?.(op.address) ?? {}) },
    operation: `${op.operation.id} ${op.operation.name}`,
    value: op.after,
    reason,
    since: new Date().toISOString(),
  };
}

/** No answer came to a request that reached the portal (or may have): its outcome is unknown. */
function outcomeUnknown(error: unknown): error is ApiNetworkError {
  return error instanceof ApiNetworkError && error.failure !== 'unreachable';
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function executePlan(operations: readonly PlannedOperation[], options: ExecuteOptions): Promise<ExecuteResult> {
  const result: ExecuteResult = { applied: [], failed: [], skipped: [], unrecorded: [], interrupted: false, invitations: {} };
  /** Set at the first failure to write the state: no new write is sent after it. */
  let recordingFailed = false;
  const recordingFailure = (error: unknown): void => {
    if (!recordingFailed) result.recordingFailure = error;
    recordingFailed = true;
  };
  const inPlan = new Set(operations.map((op) => op.address));
  const done = new Set<string>();
  const blockedBy = new Map<string, string>();
  const pending = [...operations];
  /** Requests in flight: what `parallelism` limits. */
  const sending = new Set<Promise<void>>();
  /** Operations not yet finished (request in flight, or answered and being recorded). */
  const running = new Set<Promise<void>>();
  /**
   * Answered operations whose record is not yet written. Records are group-committed in the
   * background (holding each place until its record was on disk made applies three times
   * slower), but no new write is sent while `parallelism` of them wait: a state that keeps up
   * has far fewer waiting, and one that stopped taking records (full disk, a database that does
   * not answer) must not be sent more writes than it could not record.
   */
  let awaitingRecord = 0;
  const recordBacklog = Math.max(1, options.parallelism);

  const finish = (outcome: OperationOutcome): void => {
    options.onDone?.(outcome, outcome.status === 'applied' ? result.invitations[outcome.op.address] : undefined);
    if (outcome.status === 'applied') result.applied.push(outcome.op);
    else if (outcome.status === 'failed') result.failed.push({ op: outcome.op, error: outcome.error });
    else if (outcome.status === 'unrecorded') result.unrecorded.push({ op: outcome.op, error: outcome.error, entry: outcome.entry });
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

  /** Marks a request that must not be repeated as in flight; false (and the apply stops) when the state cannot take the mark. */
  const markInFlight = async (op: PlannedOperation): Promise<boolean> => {
    if (op.request.idempotent !== false || !options.recorder.markUnknown) return true;
    try {
      await options.recorder.markUnknown(op.address, unknownMark(op, options, 'in flight'));
      return true;
    } catch (error) {
      recordingFailure(error);
      return false;
    }
  };

  const start = (op: PlannedOperation): void => {
    let marked: Promise<boolean> | undefined;
    const sent = (async () => {
      marked = markInFlight(op);
      if (!(await marked)) throw new RecordingError(`not sent: the state could not record that it was in flight (${describeError(result.recordingFailure)})`);
      const invitation = await send(op, options);
      // Counted before its place is freed, so the next write already waits for it.
      awaitingRecord += 1;
      return invitation;
    })();
    const slot = sent.then(
      () => undefined,
      () => undefined,
    );
    sending.add(slot);
    void slot.finally(() => sending.delete(slot));
    const task = (async () => {
      let invitation: string | undefined;
      try {
        invitation = await sent;
      } catch (error) {
        blockedBy.set(op.address, op.address);
        if (error instanceof RecordingError) {
          finish({ status: 'skipped', op, reason: error.message });
          return;
        }
        if (error instanceof AnswerNotKeptError) {
          // Performed, its file lost: the mark (set before sending) stays, saying why, for the next run to recover it.
          const kept = await options.recorder.markUnknown?.(op.address, unknownMark(op, options, `performed, but its file could not be saved: ${error.message}`)).then(
            () => true,
            (recordError: unknown) => (recordingFailure(recordError), false),
          );
          finish({
            status: 'failed',
            op,
            error: new AnswerNotKeptError(
              `the portal performed it, but its invitation file could not be saved (${error.message.replace(/\.$/, '')}). ` +
                (kept ? 'It is recorded as an unknown outcome: the next apply finds it on the portal and saves its file from there, without sending it again.' : 'Check the portal for the invitation before running apply again.'),
              { cause: error },
            ),
          });
          return;
        }
        if (outcomeUnknown(error)) {
          // Recorded at once: the next run checks the portal before planning this address again.
          const reason = describeError(error).split('\n')[0] ?? 'no answer';
          const recorded = options.recorder.markUnknown?.(op.address, unknownMark(op, options, `no answer: ${reason}`)).then(
            () => true,
            (recordError: unknown) => (recordingFailure(recordError), false),
          );
          const kept = recorded ? await recorded : false;
          finish({
            status: 'failed',
            op,
            error: new UnknownOutcomeError(
              `${reason}. The outcome is unknown: the portal may or may not have performed it. ` +
                (kept ? 'It is recorded as such; the next apply checks the portal before doing anything for this address.' : 'Check the portal before running apply again.'),
              { cause: error },
            ),
          });
          return;
        }
        // The portal answered: nothing was done, so an in-flight mark is cleared.
        if (marked && op.request.idempotent === false) await options.recorder.clearUnknown?.(op.address).catch(recordingFailure);
        finish({ status: 'failed', op, error });
        return;
      }
      if (invitation !== undefined) result.invitations[op.address] = invitation;
      const entry = entryOf(op, options);
      try {
        await options.recorder.record(op.address, entry);
      } catch (error) {
        recordingFailure(error);
        blockedBy.set(op.address, op.address);
        finish({ status: 'unrecorded', op, error, entry });
        return;
      } finally {
        awaitingRecord -= 1;
      }
      done.add(op.address);
      finish({ status: 'applied', op });
    })();
    running.add(task);
    void task.finally(() => running.delete(task));
  };

  for (;;) {
    if (recordingFailed) break;
    if (options.stopRequested?.()) {
      result.interrupted = pending.length > 0;
      break;
    }
    while (sending.size < Math.max(1, options.parallelism) && awaitingRecord < recordBacklog) {
      const op = takeReady();
      if (!op) break;
      start(op);
    }
    if (running.size === 0) break;
    await Promise.race([...sending, ...running]);
  }
  await Promise.all(running);
  for (const op of pending.splice(0)) {
    const reason = result.interrupted
      ? 'apply was interrupted'
      : recordingFailed
        ? 'not sent: the state could not be written'
        : 'a dependency did not complete';
    finish({ status: 'skipped', op, reason });
  }
  return result;
}
