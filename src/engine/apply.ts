/**
 * The apply use case, start to end: lock -> prepare -> check the saved plan -> safety checks ->
 * confirm -> execute -> record -> re-plan. It returns an ApplyResult value; the CLI renders it
 * and maps its failures to exit codes. The plan shown for confirmation is the plan executed.
 */
import type { ApiClient } from '../api/index.js';
import { PortalctlError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import { newState, StateWriter, withStateLock, type StateDocument, type StateStore } from '../state/index.js';
import type { LoadedConfig } from './config/index.js';
import { executePlan, type ExecuteOptions, type ExecuteResult, type SaveInvitation } from './execute.js';
import { preparePlan, type PreparedPlan } from './pipeline.js';
import { assertPlanCurrent } from './plan-file.js';
import { refuseOverThresholds } from './safety.js';
import type { Plan } from './plan.js';

export class DestructiveRefusedError extends PortalctlError {}
export class ApplyFailedError extends PortalctlError {}
export class NotConvergedError extends PortalctlError {}
export class ApplyCancelledError extends PortalctlError {}

export type { SaveInvitation };

/** How to execute: everything but where requests go and where successes are recorded. */
export type ExecutionOptions = Omit<ExecuteOptions, 'client' | 'recorder' | 'idsOf'>;

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
}

export interface ApplyResult {
  /** The plan that was confirmed and executed. */
  prepared: PreparedPlan;
  result: ExecuteResult;
  /** Saved invitation files, by address. */
  invitations: Record<string, string>;
  /** The plan made after applying: empty when the portal converged (the same plan when there was nothing to do). */
  after: PreparedPlan;
  /** The recorded state afterwards (unchanged when there was nothing to do). */
  state: StateDocument | undefined;
}

const nothingExecuted = (): ExecuteResult => ({ applied: [], failed: [], skipped: [], interrupted: false, invitations: {} });

function refuseUnapprovedDestruction(plan: Plan, allowDestructive: boolean): void {
  const destructive = plan.operations.filter((op) => op.destructive);
  if (destructive.length && !allowDestructive) {
    throw new DestructiveRefusedError(
      `The plan has ${destructive.length} destructive operation(s) (${destructive.map((op) => op.address).join(', ')}); ` +
        'nothing was applied. Review them and run apply again with --allow-destructive.',
    );
  }
}

export async function applyConfig(request: ApplyRequest): Promise<ApplyResult> {
  const { config, url, client, store, saved } = request;
  return withStateLock(store, { operation: 'apply', timeoutMs: request.lockTimeoutMs }, async () => {
    const prepared = await preparePlan({ config, url, recorded: await store.read(), client, targets: saved?.targets ?? request.targets, parallelism: request.parallelism, digest: saved !== undefined });
    if (saved) assertPlanCurrent(saved, prepared.plan, config.redact);
    if (prepared.plan.operations.length === 0) {
      return { prepared, result: nothingExecuted(), invitations: {}, after: prepared, state: prepared.recorded };
    }
    refuseUnapprovedDestruction(prepared.plan, request.allowDestructive);
    refuseOverThresholds(prepared.plan, prepared.objects, config.safety, Boolean(request.force));
    if (request.confirm && !(await request.confirm(prepared))) throw new ApplyCancelledError('Apply cancelled; nothing was changed.');
    return applyPlan({ ...request, prepared });
  });
}

/**
 * Executes a prepared, approved plan and records every success at once; then reads the portal
 * again, records what it saw for every declared object, and re-plans. A non-empty second plan
 * means the portal did not converge. The caller holds the lock.
 */
export async function applyPlan(request: ExecutionOptions & { prepared: PreparedPlan; client: ApiClient; store: StateStore; url: string }): Promise<ApplyResult> {
  const { prepared, client, store, url } = request;
  const byAddress = new Map(prepared.objects.map((obj) => [obj.address, obj]));
  const writer = new StateWriter(store, prepared.recorded ?? newState(prepared.portal?.id ? { url, id: prepared.portal.id } : { url }));
  const result = await executePlan(prepared.plan.operations, {
    ...request,
    client,
    recorder: writer,
    idsOf: (address) => byAddress.get(address)?.ids,
  });
  await writer.idle();

  // The same targets: operations left out on purpose are not a failure to converge. Only what was
  // written (or tried) and what depends on it is read again; the rest was just read and not touched.
  const after = await preparePlan({
    config: prepared.config,
    url,
    recorded: writer.state,
    client,
    targets: prepared.plan.targets,
    parallelism: request.parallelism,
    verify: { addresses: touchedBy(prepared, result), previous: prepared },
    digest: false,
  });
  await writer.update((state) => withObserved(state, after));
  return { prepared, result, invitations: result.invitations, after, state: writer.state };
}

/** The addresses an execution wrote or tried to write, and the objects that depend on them. */
function touchedBy(prepared: PreparedPlan, result: ExecuteResult): Set<string> {
  const touched = new Set([...result.applied, ...result.failed.map(({ op }) => op)].map((op) => op.address));
  for (const obj of prepared.objects) {
    const kind = prepared.config.kinds.byName.get(obj.kind);
    if (kind?.dependsOn(obj, prepared.objects).some((address) => touched.has(address))) touched.add(obj.address);
  }
  return touched;
}

/** The state with what the re-plan read for every declared object. */
function withObserved(state: StateDocument, after: PreparedPlan): StateDocument {
  const observedAt = new Date().toISOString();
  const resources = { ...state.resources };
  for (const obj of after.objects) {
    if (!after.basis.has(obj.address)) continue;
    const live = after.basis.get(obj.address) as JsonValue;
    resources[obj.address] = { ...resources[obj.address], kind: obj.kind, ids: { ...obj.ids }, value: live, status: live === null ? 'absent' : 'present', observedAt };
  }
  return { ...state, resources };
}

/** The error an apply ends with, or undefined when it applied everything and converged. */
export function applyFailure({ result, after }: ApplyResult): PortalctlError | undefined {
  if (result.interrupted) return new ApplyFailedError(`Apply was interrupted: ${result.applied.length} applied and recorded, ${result.skipped.length} not started. Run apply again to finish.`);
  if (result.failed.length) {
    return new ApplyFailedError(`${result.failed.length} operation(s) failed: ${result.failed.map(({ op }) => op.address).join(', ')}. Successful ones are recorded; fix the cause and run apply again.`);
  }
  if (after.plan.operations.length) {
    return new NotConvergedError(`The portal did not converge: a new plan still has ${after.plan.operations.length} operation(s) (${after.plan.operations.map((op) => op.address).join(', ')}).`);
  }
  return undefined;
}
