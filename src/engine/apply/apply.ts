/**
 * The apply use case, start to end: lock -> prepare -> check the saved plan -> safety checks ->
 * confirm -> execute -> record -> re-plan. It returns an ApplyResult value; the CLI renders it
 * and maps its failures to exit codes. The plan shown for confirmation is the plan executed.
 * Its refresh-only variant (`apply --refresh-only`) records live values and sends nothing.
 */
import { counted, listed } from '../../core/words.js';
import { createLiveReader, ReadingStoppedError, type ApiClient } from '../../api/index.js';
import { InterruptedError, PortalctlError } from '../../core/errors.js';
import { deepEqual, type JsonValue } from '../../core/json.js';
import { markUnknownOutcome, newState, recordOperation, StateWriter, withStateLock, type StateDocument, type LockRequest, type StateEntry, type StateStore } from '../../state/index.js';
import { readRecovery, removeRecovery, RECOVERY_FORMAT, writeRecovery } from '../../state/recovery.js';
import { checkUnknownOutcomes, type UnknownOutcomeCheck } from '../plan/unknown-outcomes.js';
import { concealer } from '../plan/recorded-values.js';
import type { LoadedConfig } from '../config/index.js';
import { executePlan, type ExecuteOptions, type ExecuteResult, type SaveInvitation } from './execute.js';
import type { ApplyResult } from './apply-result.js';
import { preparePlan, type PlanRequest, type PreparedPlan } from '../plan/prepare.js';
import { assertPlanCurrent } from '../plan/saved-plan.js';
import { describeDestructive, refuseOverThresholds } from '../plan/safety.js';
import { isTargeted, type Plan, type PlanAbout } from '../plan/plan.js';
import { liveRecords, observedEntry, recordLive, type LiveRecord } from '../record/record-live.js';
import { PhaseTracker, type ProgressObserver } from '../progress.js';

export class DestructiveRefusedError extends PortalctlError {}
export class ApplyFailedError extends PortalctlError {}
export class NotConvergedError extends PortalctlError {}
export class ApplyCancelledError extends PortalctlError {}
/** Operations were applied on the portal but the state could not record them. */
export class NotRecordedError extends PortalctlError {}

export type { ApplyResult, SaveInvitation };

/**
 * Where an apply is, for what a stop (Ctrl-C) does there: `recording` what an earlier apply
 * left (a recovery file, unknown outcomes the portal shows performed, with their invitation
 * files got again) is small and finished before stopping, for a recording cut half-way could
 * lose an invitation file the portal just made again; `reading` the portal stops at once;
 * `adopting`, the one state write of the live values just read (adopt-on-match, and
 * `--refresh-only`), is finished before stopping, so that what a stop says was recorded is what
 * the state holds; `writing` lets the operations in flight finish; `checking` the result
 * abandons its reads at once and reports what was applied; `recordingObserved`, the one state
 * write of what the check's reads saw once they are done, is finished before stopping (the check
 * is then complete, and what it found is reported).
 */
export type ApplyPhase = 'recording' | 'reading' | 'adopting' | 'writing' | 'checking' | 'recordingObserved';

/** What the apply changed so far: what it recorded before writing, and its execution's result once it wrote. */
export interface ApplyProgressSoFar {
  /** Sentences, each saying what was recorded in the state (and saved) before any write. */
  recorded: readonly string[];
  result?: ExecuteResult;
}

/** What a stop before any write leaves behind, completing "Interrupted: ...". */
export function recordedBeforeWriting(recorded: readonly string[]): string {
  return recorded.length === 0 ? 'nothing was changed' : `${recorded.join('; ')}; nothing was sent to the portal`;
}

/** Addresses named in a stop's message: the first ten, then how many more (a first apply may adopt thousands). */
const NAMED_ADDRESSES = 10;

/** What a write of live values (recordLive) recorded, as a sentence for `recordedBeforeWriting`; undefined when it wrote nothing. */
function liveRecordedSentence(records: readonly LiveRecord[], wrote: boolean, what: string): string | undefined {
  if (!wrote) return undefined;
  if (records.length === 0) return 'the names the configuration gives were recorded in the state, as the portal resolved them';
  const one = records.length === 1;
  return `the live value of ${counted(records.length, 'object')} ${what} ${one ? 'was' : 'were'} recorded in the state (${listed(records.map((record) => record.address), NAMED_ADDRESSES)})`;
}

/**
 * Writes the live values just read (recordLive) as phase `adopting`: a stop requested meanwhile
 * lets that one write finish, then ends the run, saying what it recorded.
 */
async function recordLiveThenStop(
  prepared: PreparedPlan,
  records: readonly LiveRecord[],
  request: Pick<ApplyRequest, 'store' | 'url' | 'onPhase' | 'stopRequested'>,
  soFar: string[],
  { what, stopped }: { what: string; stopped: string },
): Promise<StateDocument | undefined> {
  request.onPhase?.('adopting', { recorded: soFar });
  const state = await recordLive(prepared, records, request);
  const sentence = liveRecordedSentence(records, state !== prepared.recorded, what);
  if (sentence !== undefined) soFar.push(sentence);
  if (request.stopRequested?.()) throw new InterruptedError(`${stopped}: ${recordedBeforeWriting(soFar)}.`);
  return state;
}

/** How to execute: everything but where requests go and where successes are recorded. */
export type ExecutionOptions = Omit<ExecuteOptions, 'client' | 'recorder' | 'idsOf'> & {
  /** Told as the apply enters each phase (ApplyPhase), with what it changed so far. */
  onPhase?: (phase: ApplyPhase, soFar: ApplyProgressSoFar) => void;
  /**
   * Where operations applied but not recorded are kept when the state cannot be written (the
   * system's temporary directory when this place cannot take it either); read back first by the
   * next apply. Absent: no recovery file.
   */
  recoveryFile?: string;
  /** Told, in a sentence, what was recovered (a recovery file recorded, an unknown outcome settled). */
  onNotice?: (message: string) => void;
  /** Told how the apply goes: reading, applying (with the operation in flight), verifying. */
  progress?: ProgressObserver;
};

export interface ApplyRequest extends ExecutionOptions {
  config: LoadedConfig;
  url: string;
  client: ApiClient;
  store: StateStore;
  lockTimeoutMs: number;
  /** `apply --plan`: the saved plan, applied only when it is still the plan made now. */
  saved?: Plan;
  targets: readonly string[];
  allowDestructive: boolean;
  /** `--force`: apply even when a kind's updates or removals exceed its change thresholds (safety.ts). */
  force?: boolean;
  /** Asked with the plan once it is known to be safe and non-empty; false cancels. Absent: approved. */
  confirm?: (prepared: PreparedPlan) => Promise<boolean>;
  /** What the plan is about (config paths, state, release), for its reports. */
  about?: PlanAbout;
}

const nothingExecuted = (): ExecuteResult => ({ applied: [], failed: [], skipped: [], unrecorded: [], interrupted: false, invitations: {} });

function refuseUnapprovedDestruction(plan: Plan, allowDestructive: boolean): void {
  const destructive = plan.operations.filter((op) => op.destructive);
  if (destructive.length && !allowDestructive) {
    throw new DestructiveRefusedError(`${describeDestructive(destructive.map((op) => op.address))}; nothing was applied. Review them and run apply again with --allow-destructive.`);
  }
}

/** A lock that could not be released after the apply is said beside its report, not in its place. */
const releaseNotice = ({ onNotice }: Pick<ApplyRequest, 'onNotice'>): Pick<LockRequest, 'onReleaseFailure'> => (onNotice ? { onReleaseFailure: onNotice } : {});

export async function applyConfig(request: ApplyRequest): Promise<ApplyResult> {
  const { config, url, client, store, saved } = request;
  return withStateLock(store, { operation: 'apply', timeoutMs: request.lockTimeoutMs, ...releaseNotice(request) }, async () => {
    const soFar: string[] = [];
    const prepared = await recordThenRead(request, soFar, 'Apply was interrupted', {
      config,
      url,
      client,
      targets: saved?.targets ?? request.targets,
      parallelism: request.parallelism,
      digest: saved !== undefined,
      ...(request.progress ? { progress: request.progress } : {}),
      ...(request.about ? { about: request.about } : {}),
    });
    if (saved) assertPlanCurrent(saved, prepared.plan, config.redact);
    const settled = await settleUnknownOutcomes(prepared, request, soFar);
    stopAfterRecording(request, soFar);
    if (prepared.plan.operations.length === 0) {
      // Nothing to send; what the configuration already matches is recorded (adopt-on-match).
      const adopted = liveRecords(prepared, { adoptOnly: true });
      const state = await recordLiveThenStop({ ...prepared, recorded: settled.state }, adopted, request, soFar, {
        what: 'the configuration matches',
        stopped: 'Apply was interrupted',
      });
      const namesRecorded = adopted.length === 0 && state !== settled.state;
      return { prepared, result: { ...nothingExecuted(), invitations: settled.invitations }, invitations: settled.invitations, after: prepared, state, adopted, namesRecorded };
    }
    refuseUnapprovedDestruction(prepared.plan, request.allowDestructive);
    refuseOverThresholds(prepared.plan, prepared.objects, config.safety, Boolean(request.force));
    if (request.confirm && !(await request.confirm(prepared))) throw new ApplyCancelledError('Apply cancelled; nothing was changed.');
    // Asked to stop once the reads were done (a fleet's environment): no write is started.
    if (request.stopRequested?.()) throw new InterruptedError(`Apply was interrupted before writing: ${recordedBeforeWriting(soFar)}.`);
    const applied = await applyPlan({ ...request, prepared: { ...prepared, recorded: settled.state } });
    return { ...applied, invitations: { ...settled.invitations, ...applied.invitations } };
  });
}

/**
 * After a recording (ApplyPhase `recording`), reading starts: a stop requested meanwhile, which
 * let the recording finish, stops the apply here, saying what was recorded.
 */
function stopAfterRecording(request: Pick<ApplyRequest, 'onPhase' | 'stopRequested'>, soFar: readonly string[], stopped = 'Apply was interrupted'): void {
  request.onPhase?.('reading', { recorded: soFar });
  if (request.stopRequested?.()) throw new InterruptedError(`${stopped}: ${recordedBeforeWriting(soFar)}.`);
}

/**
 * The start of apply and of refresh-only: a recovery file recorded first (ApplyPhase
 * `recording`), then the portal read (`reading`); a stop in either ends the run (`stopped`),
 * saying what `soFar` holds of what was recorded.
 */
async function recordThenRead(
  request: Pick<ApplyRequest, 'store' | 'recoveryFile' | 'onNotice' | 'onPhase' | 'stopRequested'>,
  soFar: string[],
  stopped: string,
  plan: Omit<PlanRequest, 'recorded'>,
): Promise<PreparedPlan> {
  const recorded = await recordRecoveryFile(request.store, await request.store.read(), { ...request, onRecorded: (sentence) => soFar.push(sentence) });
  stopAfterRecording(request, soFar, stopped);
  return stoppedReading(soFar, () => preparePlan({ ...plan, recorded }));
}

/** A read stopped (an interrupted fleet) ends the run as interrupted, saying what it recorded before. */
async function stoppedReading<T>(soFar: readonly string[], read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ReadingStoppedError) throw new InterruptedError(`Interrupted while reading the portal: ${recordedBeforeWriting(soFar)}.`, { cause: error });
    throw error;
  }
}

/**
 * A recovery file left by an apply that could not write the state is recorded first (the same
 * state, of the same lineage or none yet), then removed. A file of another state is left alone and named.
 * `onPhase` is told `recording` before the state is written, `onRecorded` what was recorded.
 */
export async function recordRecoveryFile(
  store: StateStore,
  recorded: StateDocument | undefined,
  request: Pick<ApplyRequest, 'recoveryFile' | 'onNotice' | 'onPhase'> & { onRecorded?: (sentence: string) => void },
): Promise<StateDocument | undefined> {
  if (!request.recoveryFile) return recorded;
  const found = await readRecovery(request.recoveryFile).catch((error: unknown) => {
    throw new PortalctlError(error instanceof Error ? error.message : String(error), { cause: error });
  });
  if (!found) return recorded;
  const { path, document } = found;
  // Named after the state's name alone, it may be another database's or schema's: recorded only
  // into the state it was written for (one with no state yet took it, and its lineage with it).
  if (document.state !== store.describe()) {
    request.onNotice?.(`The recovery file ${path} belongs to the state ${document.state}, not ${store.describe()}; it was left as it is (an apply with that state records it).`);
    return recorded;
  }
  if (recorded && recorded.lineage !== document.lineage) {
    request.onNotice?.(`The recovery file ${path} belongs to another state (lineage ${document.lineage}, not ${recorded.lineage}); it was left as it is.`);
    return recorded;
  }
  let state: StateDocument = recorded ?? { ...newState(document.portal), lineage: document.lineage };
  for (const [address, entry] of Object.entries(document.resources)) state = recordOperation(state, address, entry);
  for (const [address, mark] of Object.entries(document.unknownOutcomes)) state = markUnknownOutcome(state, address, mark);
  request.onPhase?.('recording', { recorded: [] });
  const written = await store.write(state);
  await removeRecovery(path);
  const count = Object.keys(document.resources).length + Object.keys(document.unknownOutcomes).length;
  request.onRecorded?.(`the ${counted(count, 'operation')} kept in the recovery file ${path} ${count === 1 ? 'was' : 'were'} recorded in the state`);
  request.onNotice?.(`Recorded ${counted(count, 'operation')} kept in the recovery file ${path} by an earlier apply that could not write the state; the file was removed.`);
  return written;
}

/**
 * Unknown outcomes the live portal shows performed are recorded (the mark is cleared), and a
 * lost answer is got again (E13: the invitation file, into the invites directory). Nothing is
 * sent again; the operations to retry are in the plan.
 */
async function settleUnknownOutcomes(
  prepared: PreparedPlan,
  request: Pick<ApplyRequest, 'client' | 'store' | 'saveInvitation' | 'onNotice' | 'url' | 'onPhase'>,
  soFar: string[],
): Promise<{ state: StateDocument | undefined; invitations: Record<string, string> }> {
  const checks = checkUnknownOutcomes(prepared.plan, prepared.objects, prepared.basis, prepared.recorded).filter(
    (check): check is UnknownOutcomeCheck & { object: NonNullable<UnknownOutcomeCheck['object']> } => check.verdict === 'performed' && check.object !== undefined,
  );
  const invitations: Record<string, string> = {};
  if (checks.length === 0 || !prepared.recorded) return { state: prepared.recorded, invitations };
  request.onPhase?.('recording', { recorded: soFar });
  const writer = new StateWriter(request.store, prepared.recorded, { conceal: concealer(prepared.config.redact) });
  const reader = createLiveReader(request.client);
  const settled: string[] = [];
  const recovered: string[] = [];
  for (const { address, mark, object } of checks) {
    const kind = prepared.config.kinds.byName.get(object.kind);
    const answer = kind?.recoverAnswer ? await kind.recoverAnswer(object, reader) : undefined;
    let saved: string | undefined;
    if (answer && request.saveInvitation) {
      if ('file' in answer) {
        saved = await request.saveInvitation(answer.file.filename, new TextEncoder().encode(answer.file.content));
      } else {
        const response = await request.client.send(answer.request);
        if (response?.type === 'file') saved = await request.saveInvitation(response.filename ?? 'collaboration.invite', response.content);
      }
    }
    if (saved !== undefined) invitations[address] = saved;
    if (saved !== undefined) recovered.push(saved);
    await writer.record(address, { kind: object.kind, ids: { ...object.ids }, value: object.value, status: 'present', appliedAt: mark.since });
    settled.push(address);
    request.onNotice?.(
      `${address}: the outcome of ${mark.operation} was unknown (${mark.reason}); the portal shows it performed, so it was recorded and not sent again` +
        (saved !== undefined ? `. Recovered its invitation file from the portal: ${saved}` : '') +
        '.',
    );
  }
  await writer.idle();
  soFar.push(
    `${counted(settled.length, 'operation')} whose outcome was unknown and that the portal shows performed ${settled.length === 1 ? 'was' : 'were'} recorded in the state (${settled.join(', ')})` +
      (recovered.length ? `, and ${recovered.length === 1 ? 'its invitation file was' : 'their invitation files were'} saved: ${recovered.join(', ')}` : ''),
  );
  return { state: writer.state, invitations };
}

/**
 * Executes a prepared, approved plan and records every success at once; then reads the portal
 * again, records what it saw for every declared object, and re-plans. A non-empty second plan
 * means the portal did not converge. The caller holds the lock.
 */
export async function applyPlan(request: ExecutionOptions & { prepared: PreparedPlan; client: ApiClient; store: StateStore; url: string }): Promise<ApplyResult> {
  const { prepared, client, store, url } = request;
  const byAddress = new Map(prepared.objects.map((obj) => [obj.address, obj]));
  // Recorded with everything the re-plan reads (withObserved), and reported as adopted then.
  const adoptable = liveRecords(prepared, { adoptOnly: true });
  const conceal = concealer(prepared.config.redact);
  const writer = new StateWriter(store, prepared.recorded ?? newState(prepared.portal?.id ? { url, id: prepared.portal.id } : { url }), { conceal });
  request.onPhase?.('writing', { recorded: [] });
  const applying = new PhaseTracker(request.progress, 'applying', 'operation', prepared.plan.operations.length);
  const result = await executePlan(prepared.plan.operations, {
    ...request,
    client,
    recorder: writer,
    idsOf: (address) => byAddress.get(address)?.ids,
    onStart: (op) => applying.started(op.label === undefined ? { address: op.address } : { address: op.address, label: op.label }),
    onDone: (outcome, invitation) => {
      applying.step(outcome.op.address);
      request.onDone?.(outcome, invitation);
    },
  }).finally(() => applying.end());
  await writer.idle();
  // Asked to stop during the last writes: nothing was left unstarted, but the check is not started either.
  if (request.stopRequested?.()) result.interrupted = true;
  request.onPhase?.('checking', { recorded: [], result });

  if (result.recordingFailure !== undefined) {
    // The state cannot be written: no re-plan (it would record too); keep what was applied.
    const recovery = await keepUnrecorded(result, writer.state, store, request.recoveryFile, conceal);
    return { prepared, result, invitations: result.invitations, after: prepared, state: writer.state, recovery, adopted: [] };
  }
  // Interrupted: asked to stop, so the portal is not read again; the next plan shows what is left.
  if (result.interrupted) return { prepared, result, invitations: result.invitations, after: prepared, state: writer.state, adopted: [] };

  // The same targets: operations left out on purpose are not a failure to converge. Only what was
  // written (or tried) and what depends on it is read again; the rest was just read and not touched.
  let after: PreparedPlan;
  try {
    after = await preparePlan({
      config: prepared.config,
      url,
      recorded: writer.state,
      client,
      targets: prepared.plan.targets,
      parallelism: request.parallelism,
      verify: { addresses: touchedBy(prepared, result), previous: prepared },
      digest: false,
      ...(request.progress ? { progress: request.progress } : {}),
    });
  } catch (error) {
    // Stopped while checking (Ctrl-C): what was applied is recorded; the next plan shows what is left.
    if (!(error instanceof ReadingStoppedError)) throw error;
    return { prepared, result: { ...result, interrupted: true }, invitations: result.invitations, after: prepared, state: writer.state, adopted: [], checkStopped: true };
  }
  const observed = observedEntries(writer.state, after, conceal, notApplied(prepared, result));
  if (observed.size > 0) {
    // No read is left to abandon: a stop now lets this one write finish (what a stop says was recorded is what the state holds).
    request.onPhase?.('recordingObserved', { recorded: [], result });
    await writer.update((state) => ({ ...state, resources: { ...state.resources, ...Object.fromEntries(observed) } }));
  }
  // Asked to stop once the check's reads were done: its record was let finish, and the run still ends as interrupted.
  if (request.stopRequested?.()) result.interrupted = true;
  return { prepared, result, invitations: result.invitations, after, state: writer.state, adopted: adoptable };
}

/** The addresses an execution wrote or tried to write, and the objects that depend on them. */
function touchedBy(prepared: PreparedPlan, result: ExecuteResult): Set<string> {
  const touched = new Set([...result.applied, ...result.failed.map(({ op }) => op)].map((op) => op.address));
  for (const obj of prepared.objects) {
    const kind = prepared.config.kinds.byName.get(obj.kind);
    if (kind?.dependsOn(obj, prepared.objects, prepared.basis).some((address) => touched.has(address))) touched.add(obj.address);
  }
  return touched;
}

/** Writes the operations applied but not recorded (and unknown outcomes the state could not take) to the recovery file. */
async function keepUnrecorded(
  result: ExecuteResult,
  state: StateDocument,
  store: StateStore,
  recoveryFile: string | undefined,
  conceal: (value: JsonValue) => JsonValue,
): Promise<ApplyResult['recovery']> {
  const addresses = result.unrecorded.map(({ op }) => op.address);
  if (addresses.length === 0 || !recoveryFile) return addresses.length ? { file: undefined, addresses } : undefined;
  const file = await writeRecovery(recoveryFile, {
    format: RECOVERY_FORMAT,
    state: store.describe(),
    lineage: state.lineage,
    portal: state.portal,
    createdAt: new Date().toISOString(),
    resources: Object.fromEntries(result.unrecorded.map(({ op, entry }) => [op.address, { ...entry, value: conceal(entry.value) }])),
    unknownOutcomes: {},
  });
  return { file, addresses };
}

/** The addresses of the planned operations that were not applied: failed, skipped or never started. */
function notApplied(prepared: PreparedPlan, result: ExecuteResult): Set<string> {
  const applied = new Set(result.applied.map((op) => op.address));
  return new Set(prepared.plan.operations.map((op) => op.address).filter((address) => !applied.has(address)));
}

/**
 * The entries to record from what the re-plan read, for every targeted object whose record it
 * changes. Objects left out by --target keep their record, and so do recorded objects whose
 * operation was not applied (it failed, or did not run): recording their live value would
 * silently accept drift on them, and the next `drift` would no longer show what changed outside
 * portalctl. A record the read only confirms is not written again (`observedAt` says when its
 * value was read): on a large organization that would rewrite, and keep in the history, every
 * entry at every apply.
 */
function observedEntries(state: StateDocument, after: PreparedPlan, conceal: (value: JsonValue) => JsonValue, notApplied: ReadonlySet<string>): Map<string, StateEntry> {
  const observedAt = new Date().toISOString();
  const changed = new Map<string, StateEntry>();
  for (const obj of after.objects) {
    // A read object's basis value is never undefined (a missing object is null).
    const observed = after.basis.get(obj.address);
    if (observed === undefined || !isTargeted(obj.address, after.plan.targets)) continue;
    const previous = state.resources[obj.address];
    if (previous !== undefined && notApplied.has(obj.address)) continue;
    const entry = observedEntry(previous, obj.kind, obj.ids, conceal(observed), observedAt, after.names.get(obj.address));
    if (previous === undefined || !sameRecord(previous, entry)) changed.set(obj.address, entry);
  }
  return changed;
}

/** Whether two entries record the same, whenever each was read. */
function sameRecord(previous: StateEntry, next: StateEntry): boolean {
  const { observedAt: _previousRead, ...before } = previous;
  const { observedAt: _nextRead, ...after } = next;
  return deepEqual(before, after);
}

/** The error an apply ends with, or undefined when it applied everything and converged. */
export function applyFailure({ prepared, result, after, recovery, checkStopped }: ApplyResult): PortalctlError | undefined {
  if (result.recordingFailure !== undefined) {
    // The store's error speaks for a command it stopped ("Nothing was changed."): here writes were sent.
    const cause = (result.recordingFailure instanceof Error ? result.recordingFailure.message : String(result.recordingFailure)).replace(/\.?\s*Nothing was changed\.$/, '');
    const unrecorded = result.unrecorded.map(({ op }) => op.address);
    const one = unrecorded.length === 1;
    const kept = recovery?.file
      ? ` ${one ? 'It is' : 'They are'} kept in ${recovery.file}; the next apply records ${one ? 'it' : 'them'} first.`
      : unrecorded.length
        ? ` No recovery file could be written either: the next apply reads the portal and finds ${one ? 'it' : 'them'} applied.`
        : '';
    const message =
      `The state could not be written (${cause}), so no further write was sent.` +
      (unrecorded.length ? ` ${counted(unrecorded.length, 'operation')} ${one ? 'was' : 'were'} applied on the portal but not recorded: ${unrecorded.join(', ')}.${kept}` : '') +
      ' Fix what kept the state from being written and run apply again.';
    // Interrupted meanwhile: the interrupt's exit code, with what it left behind.
    return result.interrupted ? new InterruptedError(`Apply was interrupted. ${message}`, { cause: result.recordingFailure }) : new NotRecordedError(message, { cause: result.recordingFailure });
  }
  if (result.interrupted && result.skipped.length === 0 && result.failed.length === 0) {
    const done = `${result.applied.length} applied and recorded`;
    if (after === prepared) {
      return new InterruptedError(`Apply was interrupted: ${done}; the check that the portal converged did not ${checkStopped ? 'finish' : 'run'} (run plan to see what is left).`);
    }
    // The stop came once the check had read the portal: it finished, and says what it found.
    const left = after.plan.operations;
    return new InterruptedError(
      `Apply was interrupted as it ended: ${done}; ${left.length ? `the portal did not converge: a new plan still has ${counted(left.length, 'operation')} (${left.map((op) => op.address).join(', ')})` : 'the portal converged'}.`,
    );
  }
  if (result.interrupted) return new InterruptedError(`Apply was interrupted: ${result.applied.length} applied and recorded, ${result.skipped.length} not started. Run apply again to finish.`);
  if (result.failed.length) {
    return new ApplyFailedError(`${counted(result.failed.length, 'operation')} failed: ${result.failed.map(({ op }) => op.address).join(', ')}. Successful ones are recorded; fix the cause and run apply again.`);
  }
  if (after.plan.operations.length) {
    return new NotConvergedError(`The portal did not converge: a new plan still has ${counted(after.plan.operations.length, 'operation')} (${after.plan.operations.map((op) => op.address).join(', ')}).`);
  }
  return undefined;
}

export interface RefreshOnlyRequest
  extends Pick<ApplyRequest, 'config' | 'url' | 'client' | 'store' | 'lockTimeoutMs' | 'targets' | 'parallelism' | 'recoveryFile' | 'onNotice' | 'about' | 'onPhase' | 'stopRequested'> {
  /** Asked with what will be recorded, when there is something; false cancels. Absent: approved. */
  confirm?: (records: readonly LiveRecord[], prepared: PreparedPlan) => Promise<boolean>;
}

export interface RefreshOnlyResult {
  prepared: PreparedPlan;
  /** What was recorded (empty: the state already held what the portal has). */
  records: LiveRecord[];
  /** The state afterwards. */
  state: StateDocument | undefined;
  /** With no value to record, the names the plan resolved were written where the state held others. */
  namesRecorded: boolean;
}

/**
 * `apply --refresh-only`: under the lock, reads the portal, shows what would be recorded, asks,
 * and records it in one write. Sends nothing to the portal. A stop (Ctrl-C) goes as apply's
 * phases do (ApplyPhase): `recording` a recovery file and `adopting` the live values finish
 * first, then the run stops, saying what they recorded; `reading` stops at once.
 */
export async function refreshOnly(request: RefreshOnlyRequest): Promise<RefreshOnlyResult> {
  const { config, url, client, store } = request;
  return withStateLock(store, { operation: 'apply --refresh-only', timeoutMs: request.lockTimeoutMs, ...releaseNotice(request) }, async () => {
    const soFar: string[] = [];
    const prepared = await recordThenRead(request, soFar, 'Refresh-only was interrupted', {
      config,
      url,
      client,
      targets: request.targets,
      parallelism: request.parallelism,
      digest: false,
      ...(request.about ? { about: request.about } : {}),
    });
    const records = liveRecords(prepared, { adoptOnly: false });
    if (records.length > 0 && request.confirm && !(await request.confirm(records, prepared))) throw new ApplyCancelledError('Refresh-only cancelled; nothing was recorded.');
    // Asked to stop once the reads were done (a fleet's environment): nothing is recorded.
    if (request.stopRequested?.()) throw new InterruptedError(`Refresh-only was interrupted before recording: ${recordedBeforeWriting(soFar)}.`);
    // Names alone are written unasked, as apply writes them: the read resolved them, and the next
    // `plan --refresh=false` needs them.
    const state = await recordLiveThenStop(prepared, records, request, soFar, { what: 'read from the portal', stopped: 'Refresh-only was interrupted' });
    return { prepared, records, state, namesRecorded: records.length === 0 && state !== prepared.recorded };
  });
}
