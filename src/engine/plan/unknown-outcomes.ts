/**
 * Operations whose outcome is unknown (recorded in the state by execute.ts: marked "in flight"
 * before a request that must not be repeated, or marked when no answer came) are checked
 * against the live portal before anything else is planned for their address:
 *
 * - `performed`: the live portal shows the declared value (for E13: a pending invitation with
 *   the declared access), so nothing is planned; apply records it and gets a lost answer again
 *   (the invitation file) through the kind's `recoverAnswer`.
 * - `retry`: the portal does not show it, so the plan sends it again, marked as the retry of an
 *   unknown outcome (a warning on the address).
 * - `unchecked`: the address is no longer declared (or could not be read); the mark stays and
 *   the plan says so.
 *
 * Pure: it works on the plan's inputs and output; recording and recovering are apply's.
 */
import type { JsonValue } from '../../core/json.js';
import type { DesiredObject } from '../../kinds/toolkit/contract.js';
import type { StateDocument, UnknownOutcome } from '../../state/index.js';
import type { Plan, PlanWarning } from './plan.js';

export type UnknownOutcomeVerdict = 'performed' | 'retry' | 'unchecked';

export interface UnknownOutcomeCheck {
  address: string;
  mark: UnknownOutcome;
  verdict: UnknownOutcomeVerdict;
  /** The declared object, for `performed` and `retry`. */
  object?: DesiredObject;
  /** What the portal has now, for `performed`. */
  live?: JsonValue;
}

/** Every unknown outcome of `recorded`, judged by the plan made against the live portal. */
export function checkUnknownOutcomes(
  plan: Pick<Plan, 'operations' | 'refreshed'>,
  objects: readonly DesiredObject[],
  basis: ReadonlyMap<string, JsonValue>,
  recorded: StateDocument | undefined,
): UnknownOutcomeCheck[] {
  // Usually there is none: then nothing is indexed (a large organization has tens of thousands of objects).
  if (!recorded?.unknownOutcomes || Object.keys(recorded.unknownOutcomes).length === 0) return [];
  const planned = new Set(plan.operations.map((op) => op.address));
  const byAddress = new Map(objects.map((obj) => [obj.address, obj]));
  return Object.entries(recorded.unknownOutcomes).map(([address, mark]) => {
    const object = byAddress.get(address);
    if (!object) return { address, mark, verdict: 'unchecked' };
    // A read object's basis value is never undefined (a missing object is null).
    const live = plan.refreshed ? basis.get(address) : undefined;
    if (live === undefined) return { address, mark, verdict: 'unchecked', object };
    if (planned.has(address)) return { address, mark, verdict: 'retry', object };
    return { address, mark, verdict: 'performed', object, live };
  });
}

/** Writes the portal shows performed whose answer was lost: no operation, but work for `apply`, which records them. */
export function unrecordedPerformed(plan: Pick<Plan, 'warnings'>): PlanWarning[] {
  return (plan.warnings ?? []).filter((warning) => warning.unknownOutcome === 'performed');
}

function warningFor(check: UnknownOutcomeCheck): PlanWarning {
  const { address, mark } = check;
  const what = `The outcome of ${mark.operation} on ${address} is unknown (${mark.reason}, ${mark.since})`;
  const message =
    check.verdict === 'retry'
      ? `${what}: the portal does not show it performed, so it is planned again as the retry of an unknown outcome.`
      : check.verdict === 'performed'
        ? `${what}: the portal shows it performed; apply records it${mark.operation.startsWith('E13') ? ' and recovers the invitation file' : ''} without sending it again.`
        : check.object
          ? `${what}; it is checked against the portal when the portal is read (not with --refresh=false).`
          : `${what}, and the address is no longer declared, so it is not checked. Check the portal, then forget it with \`portalctl state rm ${address}\`.`;
  return { address, kind: mark.kind, message, unknownOutcome: check.verdict };
}

/** The plan with a warning per unknown outcome, and without drift at those addresses (the change was portalctl's own). */
export function withUnknownOutcomes(plan: Plan, checks: readonly UnknownOutcomeCheck[]): Plan {
  if (checks.length === 0) return plan;
  const marked = new Set(checks.map((check) => check.address));
  const drift = plan.drift.filter((entry) => !marked.has(entry.address));
  return { ...plan, drift, summary: { ...plan.summary, drift: drift.length }, warnings: [...checks.map(warningFor), ...plan.warnings] };
}
