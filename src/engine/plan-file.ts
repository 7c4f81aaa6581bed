/**
 * A saved plan (`plan --out`) is the redacted plan value. `apply --plan` makes the plan again
 * from the same config and refuses to go on unless it is the same plan, made from the same
 * recorded state and the same live values: the reviewed plan is exactly what runs.
 */
import { PortalctlError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import { canonicalJson } from '../core/json.js';
import { PLAN_FORMAT_VERSION, type Plan } from './plan.js';
import { redactPlan, type Redactor } from './render/redact.js';

export class PlanFileError extends PortalctlError {}
export class StalePlanError extends PortalctlError {}

export function serializePlan(plan: Plan, redact: Redactor): string {
  return `${JSON.stringify(redactPlan(plan, redact), null, 2)}\n`;
}

export function parsePlanFile(text: string, file: string): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(`${file} is not a plan file: ${(error as Error).message}`);
  }
  const plan = value as Partial<Plan> | null;
  if (!plan || typeof plan !== 'object' || plan.formatVersion !== PLAN_FORMAT_VERSION || !Array.isArray(plan.operations) || typeof plan.basisDigest !== 'string') {
    throw new PlanFileError(`${file} is not a portalctl plan (formatVersion ${PLAN_FORMAT_VERSION}); save one with \`portalctl plan --out ${file}\`.`);
  }
  return plan as Plan;
}

const operationsText = (plan: Plan): string =>
  canonicalJson(plan.operations.map((op) => ({ ...op })) as unknown as JsonValue);

/** Throws StalePlanError naming what changed since the plan was saved. */
export function assertPlanCurrent(saved: Plan, fresh: Plan, redact: Redactor): void {
  const reasons: string[] = [];
  if (saved.portal.url !== fresh.portal.url) reasons.push(`it was made for ${saved.portal.url}, not ${fresh.portal.url}`);
  // The organization, not only its URL: another organization can answer at the same URL (a restored or replaced portal).
  if (saved.portal.id !== fresh.portal.id) reasons.push(`it was made for the organization ${saved.portal.id ?? '(not read)'}, and ${fresh.portal.url} is now the organization ${fresh.portal.id ?? '(not read)'}`);
  const was = saved.state ? `${saved.state.lineage} serial ${saved.state.serial}` : 'no recorded state';
  const now = fresh.state ? `${fresh.state.lineage} serial ${fresh.state.serial}` : 'no recorded state';
  if (was !== now) reasons.push(`the recorded state changed (${was} -> ${now})`);
  if (saved.basisDigest !== fresh.basisDigest) reasons.push('the portal changed since the plan was made');
  if (operationsText(saved) !== operationsText(redactPlan(fresh, redact))) reasons.push('the configuration now gives other operations');
  if (reasons.length) {
    throw new StalePlanError(`The saved plan is stale: ${reasons.join('; ')}. Nothing was applied; run \`portalctl plan\` again.`);
  }
}
