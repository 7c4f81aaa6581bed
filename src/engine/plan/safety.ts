/**
 * The change-threshold safety stop (in the spirit of octoDNS's update and delete thresholds):
 * an apply that would update or remove more than a share of the managed objects of one kind
 * is refused before confirmation and before any write, unless forced. Mass changes are more
 * often a wrong file, a wrong portal or a bad generator than an intention. Pure: plan in,
 * refusals out.
 */
import { counted } from '../../core/words.js';
import { PortalctlError } from '../../core/errors.js';
import type { DesiredObject } from '../../kinds/toolkit/contract.js';
import type { Plan, PlanRefusal } from './plan.js';
import type { SafetyLimits, SafetySettings } from '../config/index.js';

/** The defaults, as README "Safety thresholds" states them. */
export const DEFAULT_SAFETY_LIMITS: Readonly<SafetyLimits> = Object.freeze({ maxUpdates: 0.3, maxRemovals: 0.1, minManaged: 10 });

export class SafetyThresholdError extends PortalctlError {}

export function limitsFor(kind: string, settings: SafetySettings): SafetyLimits {
  return { ...DEFAULT_SAFETY_LIMITS, ...settings[kind] };
}

/** One kind's planned share over its limit. */
export interface ThresholdExceeded {
  kind: string;
  change: 'updated' | 'removed';
  count: number;
  managed: number;
  limit: number;
}

const percent = (share: number): string => `${Math.round(share * 1000) / 10}%`;

/** A kind's name as a plural noun for messages: `role` -> roles, `item.status` -> item.status entries. */
function plural(kind: string, count: number): string {
  if (count === 1) return kind;
  return kind.endsWith('s') ? `${kind} entries` : `${kind}s`;
}

/** `12 of 20 roles (60%) would be updated; the limit is 30%` */
export function describeExceeded({ kind, change, count, managed, limit }: ThresholdExceeded): string {
  return `${count} of ${managed} ${plural(kind, managed)} (${percent(count / managed)}) would be ${change}; the limit is ${percent(limit)}`;
}

/**
 * The kinds whose planned updates or removals exceed their limits. `managed` counts the plan's
 * objects of each kind (declared plus those a prune implies), whatever `--target` selects.
 */
export function exceededThresholds(plan: Plan, managed: readonly Pick<DesiredObject, 'kind'>[], settings: SafetySettings = {}): ThresholdExceeded[] {
  const managedByKind = new Map<string, number>();
  for (const obj of managed) managedByKind.set(obj.kind, (managedByKind.get(obj.kind) ?? 0) + 1);
  const planned = new Map<string, { updated: number; removed: number }>();
  for (const op of plan.operations) {
    if (op.action === 'create') continue;
    const counts = planned.get(op.kind) ?? { updated: 0, removed: 0 };
    if (op.action === 'update') counts.updated += 1;
    else counts.removed += 1;
    planned.set(op.kind, counts);
  }
  const exceeded: ThresholdExceeded[] = [];
  for (const [kind, counts] of [...planned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const limits = limitsFor(kind, settings);
    // A plan may touch objects it does not count as managed only through a bug; never divide by fewer.
    const total = Math.max(managedByKind.get(kind) ?? 0, counts.updated + counts.removed);
    if (total < limits.minManaged) continue;
    if (counts.updated / total > limits.maxUpdates) exceeded.push({ kind, change: 'updated', count: counts.updated, managed: total, limit: limits.maxUpdates });
    if (counts.removed / total > limits.maxRemovals) exceeded.push({ kind, change: 'removed', count: counts.removed, managed: total, limit: limits.maxRemovals });
  }
  return exceeded;
}

/** Throws SafetyThresholdError naming every exceeded limit, unless `force`. */
export function refuseOverThresholds(plan: Plan, managed: readonly Pick<DesiredObject, 'kind'>[], settings: SafetySettings, force: boolean): void {
  if (force) return;
  const refusal = thresholdRefusal(exceededThresholds(plan, managed, settings));
  if (!refusal) return;
  throw new SafetyThresholdError(refusal.message.replace(/\.$/, '. Nothing was applied.') + ` If this is intended, run apply again with --force, or raise the limits in the config (safety: { ${refusal.kind}: { maxUpdates, maxRemovals, minManaged } }).`);
}

function thresholdRefusal(exceeded: readonly ThresholdExceeded[]): (PlanRefusal & { kind: string }) | undefined {
  if (exceeded.length === 0) return undefined;
  return {
    reason: 'threshold',
    message: `${exceeded.map(describeExceeded).join('; ')}.`,
    override: '--force',
    addresses: [],
    kind: exceeded[0]?.kind ?? '',
  };
}

/** The message `apply` refuses destructive operations with, naming them. */
export function describeDestructive(addresses: readonly string[]): string {
  return `The plan has ${counted(addresses.length, 'destructive operation')} (${addresses.join(', ')})`;
}

/**
 * What `apply` would refuse in this plan without `--allow-destructive` or `--force`, in the
 * words it refuses with: the same checks, made when the plan is made, so the reviewed plan says
 * so (README "Change thresholds").
 */
export function planRefusals(plan: Plan, managed: readonly Pick<DesiredObject, 'kind'>[], settings: SafetySettings = {}): PlanRefusal[] {
  const refusals: PlanRefusal[] = [];
  const destructive = plan.operations.filter((op) => op.destructive).map((op) => op.address);
  if (destructive.length) refusals.push({ reason: 'destructive', message: `${describeDestructive(destructive)}.`, override: '--allow-destructive', addresses: destructive });
  const threshold = thresholdRefusal(exceededThresholds(plan, managed, settings));
  if (threshold) refusals.push({ reason: threshold.reason, message: threshold.message, override: threshold.override, addresses: threshold.addresses });
  return refusals;
}
