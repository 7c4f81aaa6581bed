/**
 * Runs a plan's operations: dependencies first, independent ones concurrently (up to
 * `parallelism`), a failure skips only its dependents, and every success is recorded at once.
 * A stop request (first Ctrl-C) lets the operations in flight finish and starts no new one.
 * The order, the places and the skips are the Walker's (walker.ts); this module says what
 * running one operation is, as plain steps: mark it in flight, send it, mark a lost answer,
 * record it, file its outcome.
 *
 * Unknown outcomes: a request that must not be repeated (E13 creates one more invitation per
 * call) is marked "in flight" in the state before it is sent, so a crash leaves the mark; a
 * request whose answer never came (timeout, dropped connection) is marked at once, and so is one
 * of those answered with a server failure (5xx) or a page in place of the portal's answer, either
 * of which may come after the portal acted. The next
 * run checks the live portal for those addresses before planning them (unknown-outcomes.ts).
 *
 * The state is the only record of what was applied: at the first failure to record one (full
 * disk, database gone), no new write is sent; the operations applied but not recorded are
 * returned as `unrecorded` for the recovery file.
 * It sends through the API client and records through the state writer it is given: nothing
 * calls back up into the apply use case.
 *
 * `parallelism` bounds the requests in flight. An answered operation frees its place at once
 * and its record finishes in the background (its dependents still wait for it), so the pace is
 * the portal's, not the state's commits'; and no new write is sent while `parallelism` answered
 * operations still wait for their record (RecordBacklog).
 */
import { ApiNetworkError, isNotFound, isServerFailure, leavesOutcomeUnknown, type ApiClient } from '../../api/index.js';
import { PortalctlError } from '../../core/errors.js';
import type { StateEntry, UnknownOutcome } from '../../state/index.js';
import type { PlannedOperation } from '../plan/plan.js';
import { Walker } from './walker.js';

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
  /** Each operation as it is sent (for progress). */
  onStart?: (op: PlannedOperation) => void;
}

export type OperationOutcome =
  | { status: 'applied'; op: PlannedOperation }
  | { status: 'failed'; op: PlannedOperation; error: unknown }
  | { status: 'skipped'; op: PlannedOperation; reason: string }
  /** Applied on the portal, but the state could not record it. */
  | { status: 'unrecorded'; op: PlannedOperation; error: unknown; entry: StateEntry };

/** The request was sent and no answer came: the portal may or may not have performed it. */
export class UnknownOutcomeError extends PortalctlError {}

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

/** Why the operations left were not sent, when the execution stopped starting new ones. */
const INTERRUPTED = 'apply was interrupted';
const STATE_NOT_WRITABLE = 'not sent: the state could not be written';

/** What the steps of one execution share. */
interface Execution {
  readonly options: ExecuteOptions;
  readonly result: ExecuteResult;
  readonly recording: RecordingHealth;
  readonly backlog: RecordBacklog;
}

/** Whether the state still takes writes: the first failure to write it is kept, and no new write is sent after it. */
class RecordingHealth {
  failed = false;
  firstError: unknown;

  fail(error: unknown): void {
    if (!this.failed) this.firstError = error;
    this.failed = true;
  }
}

/**
 * Answered operations whose record is not yet written. Records are group-committed in the
 * background, so an answered operation frees its place at once; but no new write is sent while
 * `parallelism` of them wait: a state that keeps up has far fewer waiting, and one that stopped
 * taking records (full disk, a database that does not answer) must not be sent more writes than
 * it could not record. An answer is counted before its place is freed, so the next write
 * already waits for it.
 */
class RecordBacklog {
  private size = 0;

  constructor(private readonly limit: number) {}

  hasRoom(): boolean {
    return this.size < this.limit;
  }

  /** An answered operation, from before its place is freed until its record is written (or failed). */
  answered(): void {
    this.size += 1;
  }

  async recorded<T>(record: () => Promise<T>): Promise<T> {
    try {
      return await record();
    } finally {
      this.size -= 1;
    }
  }
}

/** Walks the plan's operations, each run by `runOperation`, and files every outcome. */
export async function executePlan(operations: readonly PlannedOperation[], options: ExecuteOptions): Promise<ExecuteResult> {
  const run: Execution = {
    options,
    result: { applied: [], failed: [], skipped: [], unrecorded: [], interrupted: false, invitations: {} },
    recording: new RecordingHealth(),
    backlog: new RecordBacklog(Math.max(1, options.parallelism)),
  };
  const walker = new Walker<PlannedOperation>(operations, {
    parallelism: options.parallelism,
    visit: async (op, release) => {
      options.onStart?.(op);
      const outcome = await runOperation(op, release, run);
      finish(run, outcome);
      return outcome.status === 'applied' ? 'succeeded' : 'failed';
    },
    skip: (op, blocker, blockerFailed) => finish(run, { status: 'skipped', op, reason: `depends on ${blocker}, which ${blockerFailed ? 'failed' : 'was skipped'}` }),
    mayStart: () => run.backlog.hasRoom(),
    halt: () => (run.recording.failed ? STATE_NOT_WRITABLE : options.stopRequested?.() ? INTERRUPTED : undefined),
  });
  const { notStarted, halted } = await walker.walk();
  run.result.interrupted = halted === INTERRUPTED && notStarted.length > 0;
  for (const op of notStarted) finish(run, { status: 'skipped', op, reason: halted ?? 'a dependency did not complete' });
  if (run.recording.failed) run.result.recordingFailure = run.recording.firstError;
  return run.result;
}

/** One operation from its in-flight mark to its record; frees its place once the portal answered. */
async function runOperation(op: PlannedOperation, release: () => void, run: Execution): Promise<OperationOutcome> {
  let invitation: string | undefined;
  try {
    if (!(await markInFlight(op, run))) {
      return { status: 'skipped', op, reason: `not sent: the state could not record that it was in flight (${describeError(run.recording.firstError)})` };
    }
    invitation = await send(op, run.options);
    run.backlog.answered();
  } catch (error) {
    if (error instanceof AnswerNotKeptError) return answerNotKept(op, error, run);
    if (outcomeUnknown(error)) return markOutcomeUnknown(op, error, 'no answer', run);
    // A server failure, or a page in place of the answer, does not say the request was not performed: one that must not be repeated keeps its mark.
    if (op.request.idempotent === false && leavesOutcomeUnknown(error)) {
      return markOutcomeUnknown(op, error, isServerFailure(error) ? 'answered with a server failure' : 'its answer could not be read', run);
    }
    return refused(op, error, run);
  } finally {
    release();
  }
  if (invitation !== undefined) run.result.invitations[op.address] = invitation;
  return recordApplied(op, run);
}

/** Marks a request that must not be repeated as in flight; false (and the apply stops) when the state cannot take the mark. */
async function markInFlight(op: PlannedOperation, run: Execution): Promise<boolean> {
  const { recorder } = run.options;
  if (op.request.idempotent !== false || !recorder.markUnknown) return true;
  try {
    await recorder.markUnknown(op.address, unknownMark(op, run.options, 'in flight'));
    return true;
  } catch (error) {
    run.recording.fail(error);
    return false;
  }
}

/** Records `op`'s outcome as unknown, saying why; false when the recorder cannot take it (its failure is kept for the result). */
async function markUnknown(op: PlannedOperation, why: string, run: Execution): Promise<boolean> {
  const marking = run.options.recorder.markUnknown?.(op.address, unknownMark(op, run.options, why));
  if (!marking) return false;
  return marking.then(
    () => true,
    (recordError: unknown) => (run.recording.fail(recordError), false),
  );
}

/**
 * No answer came, or one that does not say whether the request was performed: recorded at once,
 * so the next run checks the portal before planning this address again.
 */
async function markOutcomeUnknown(op: PlannedOperation, error: Error, why: string, run: Execution): Promise<OperationOutcome> {
  // The first line: the client's advice below it ("check the portal") is this function's to give.
  const reason = describeError(error).split('\n')[0] ?? why;
  const kept = await markUnknown(op, `${why}: ${reason}`, run);
  const advice = kept
    ? 'It is recorded as such; the next apply checks the portal before doing anything for this address.'
    : 'Check the portal before running apply again.';
  return {
    status: 'failed',
    op,
    error: new UnknownOutcomeError(`${reason}. The outcome is unknown: the portal may or may not have performed it. ${advice}`, { cause: error }),
  };
}

/** Performed, its file lost: the mark (set before sending) stays, saying why, for the next run to recover the file. */
async function answerNotKept(op: PlannedOperation, error: AnswerNotKeptError, run: Execution): Promise<OperationOutcome> {
  const kept = await markUnknown(op, `performed, but its file could not be saved: ${error.message}`, run);
  const advice = kept
    ? 'It is recorded as an unknown outcome: the next apply finds it on the portal and saves its file from there, without sending it again.'
    : 'Check the portal for the invitation before running apply again.';
  return {
    status: 'failed',
    op,
    error: new AnswerNotKeptError(`the portal performed it, but its invitation file could not be saved (${error.message.replace(/\.$/, '')}). ${advice}`, { cause: error }),
  };
}

/** The portal answered with a refusal: nothing was done, so an in-flight mark is cleared. */
async function refused(op: PlannedOperation, error: unknown, run: Execution): Promise<OperationOutcome> {
  if (op.request.idempotent === false) await run.options.recorder.clearUnknown?.(op.address).catch((clearError: unknown) => run.recording.fail(clearError));
  return { status: 'failed', op, error };
}

/** Records an applied operation; when the state cannot take it, the operation is applied but unrecorded. */
async function recordApplied(op: PlannedOperation, run: Execution): Promise<OperationOutcome> {
  const entry = stateEntryOf(op, run.options);
  try {
    await run.backlog.recorded(() => run.options.recorder.record(op.address, entry));
    return { status: 'applied', op };
  } catch (error) {
    run.recording.fail(error);
    return { status: 'unrecorded', op, error, entry };
  }
}

/** Tells the caller and files the outcome in the result. */
function finish(run: Execution, outcome: OperationOutcome): void {
  const { result } = run;
  run.options.onDone?.(outcome, outcome.status === 'applied' ? result.invitations[outcome.op.address] : undefined);
  if (outcome.status === 'applied') result.applied.push(outcome.op);
  else if (outcome.status === 'failed') result.failed.push({ op: outcome.op, error: outcome.error });
  else if (outcome.status === 'unrecorded') result.unrecorded.push({ op: outcome.op, error: outcome.error, entry: outcome.entry });
  else result.skipped.push({ op: outcome.op, reason: outcome.reason });
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

function stateEntryOf(op: PlannedOperation, options: ExecuteOptions): StateEntry {
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
