/**
 * Applying a prepared plan: refuse unapproved destruction, execute in dependency order with
 * every success recorded at once, then read the portal again, record what it has, and re-plan.
 */
import { isNotFound, type ApiClient } from '../api/index.js';
import { PortalctlError } from '../core/errors.js';
import { newState, StateWriter, type StateDocument, type StateStore } from '../state/index.js';
import { executePlan, type ExecuteResult, type OperationOutcome } from './execute.js';
import { saveInvitationFile } from './invites.js';
import type { JsonValue } from '../core/json.js';
import { preparePlan, type PreparedPlan } from './pipeline.js';
import type { Plan, PlannedOperation } from './plan.js';

export class DestructiveRefusedError extends PortalctlError {}
export class ApplyFailedError extends PortalctlError {}
export class NotConvergedError extends PortalctlError {}

export interface ApplyRequest {
  prepared: PreparedPlan;
  client: ApiClient;
  store: StateStore;
  url: string;
  parallelism: number;
  allowDestructive: boolean;
  invitesDir: string;
  stopRequested?: () => boolean;
  onOutcome?: (outcome: OperationOutcome, detail?: string) => void;
}

export interface ApplyReport {
  result: ExecuteResult;
  /** Saved invitation files, by address. */
  invitations: Record<string, string>;
  /** The plan made after applying: empty when the portal converged. */
  after: PreparedPlan;
  state: StateDocument;
}

export function refuseUnapprovedDestruction(plan: Plan, allowDestructive: boolean): void {
  const destructive = plan.operations.filter((op) => op.destructive);
  if (destructive.length && !allowDestructive) {
    throw new DestructiveRefusedError(
      `The plan has ${destructive.length} destructive operation(s) (${destructive.map((op) => op.address).join(', ')}); ` +
        'nothing was applied. Review them and run apply again with --allow-destructive.',
    );
  }
}

/**
 * Executes a prepared plan and records every success at once; then reads the portal again,
 * records what it saw for every declared object, and re-plans. A non-empty second plan means
 * the portal did not converge.
 */
export async function applyPlan(request: ApplyRequest): Promise<ApplyReport> {
  const { prepared, client, store, url } = request;
  refuseUnapprovedDestruction(prepared.plan, request.allowDestructive);
  const byAddress = new Map(prepared.objects.map((obj) => [obj.address, obj]));
  const writer = new StateWriter(store, prepared.recorded ?? newState(prepared.portal?.id ? { url, id: prepared.portal.id } : { url }));
  const invitations: Record<string, string> = {};

  const result = await executePlan(
    prepared.plan.operations,
    {
      send: async (op: PlannedOperation) => {
        const response = await client.send(op.request).catch((error: unknown) => {
          // A removal whose target is already gone (removed meanwhile) has reached its goal.
          if (op.action === 'delete' && isNotFound(error)) return undefined;
          throw error;
        });
        if (response?.type === 'file') {
          invitations[op.address] = await saveInvitationFile(request.invitesDir, response.filename ?? 'collaboration.invite', response.content);
        }
      },
      record: async (op: PlannedOperation) => {
        await writer.record(op.address, {
          kind: op.kind,
          ids: { ...(byAddress.get(op.address)?.ids ?? {}) },
          value: op.after,
          status: op.action === 'delete' ? 'absent' : 'present',
          appliedAt: new Date().toISOString(),
        });
      },
      stopRequested: request.stopRequested,
      onDone: (outcome) => request.onOutcome?.(outcome, outcome.status === 'applied' ? invitations[outcome.op.address] : undefined),
    },
    request.parallelism,
  );
  await writer.idle();

  // The same targets: operations left out on purpose are not a failure to converge.
  const after = await preparePlan({ config: prepared.config, url, recorded: writer.state, client, targets: prepared.plan.targets });
  const observedAt = new Date().toISOString();
  await writer.update((state) => {
    const resources = { ...state.resources };
    for (const obj of after.objects) {
      if (!after.basis.has(obj.address)) continue;
      const live = after.basis.get(obj.address) as JsonValue;
      resources[obj.address] = { ...resources[obj.address], kind: obj.kind, ids: { ...obj.ids }, value: live, status: live === null ? 'absent' : 'present', observedAt };
    }
    return { ...state, resources };
  });
  return { result, invitations, after, state: writer.state };
}
