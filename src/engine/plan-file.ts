/**
 * A saved plan (`plan --out`) is the redacted plan value. `apply --plan` makes the plan again
 * from the same config and refuses to go on unless it is the same plan, made from the same
 * recorded state and the same live values: the reviewed plan is exactly what runs.
 */
import { PortalctlError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import { canonicalJson } from '../core/json.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanSummary } from './plan.js';
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
  const was = saved.state ? `${saved.state.lineage} serial ${saved.state.serial}` : 'no recorded state';
  const now = fresh.state ? `${fresh.state.lineage} serial ${fresh.state.serial}` : 'no recorded state';
  if (was !== now) reasons.push(`the recorded state changed (${was} -> ${now})`);
  if (saved.basisDigest !== fresh.basisDigest) reasons.push('the portal changed since the plan was made');
  if (operationsText(saved) !== operationsText(redactPlan(fresh, redact))) reasons.push('the configuration now gives other operations');
  if (reasons.length) {
    throw new StalePlanError(`The saved plan is stale: ${reasons.join('; ')}. Nothing was applied; run \`portalctl plan\` again.`);
  }
}

/**
 * `plan --out FILE` over several environments writes each environment's plan to its own file
 * (the environment's name in the file name) and FILE as their index; `apply --plan FILE` applies
 * each listed plan in its environment.
 */
export interface FleetIndexEntry {
  environment: string;
  outcome: string;
  exitCode: number;
  /** The environment's plan file, when it was planned. */
  plan?: string;
  summary?: PlanSummary;
  /** Why there is no plan. */
  error?: string;
}

export interface FleetIndex {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  fleet: FleetIndexEntry[];
}

export function serializeFleetIndex(entries: readonly FleetIndexEntry[]): string {
  const index: FleetIndex = { formatVersion: PLAN_FORMAT_VERSION, fleet: [...entries] };
  return `${JSON.stringify(index, null, 2)}\n`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fleet index in `text`, or undefined when the file is not one (a single plan). */
export function parseFleetIndex(text: string, file: string): FleetIndex | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(`${file} is not a plan file: ${(error as Error).message}`);
  }
  if (!isRecord(value) || !Array.isArray(value['fleet'])) return undefined;
  const fleet: FleetIndexEntry[] = [];
  for (const entry of value['fleet']) {
    if (!isRecord(entry) || typeof entry['environment'] !== 'string' || typeof entry['outcome'] !== 'string' || typeof entry['exitCode'] !== 'number') {
      throw new PlanFileError(`${file} is not a portalctl plan index: every entry names its environment, outcome and exit code.`);
    }
    fleet.push({
      environment: entry['environment'],
      outcome: entry['outcome'],
      exitCode: entry['exitCode'],
      ...(typeof entry['plan'] === 'string' ? { plan: entry['plan'] } : {}),
      ...(typeof entry['error'] === 'string' ? { error: entry['error'] } : {}),
    });
  }
  return { formatVersion: PLAN_FORMAT_VERSION, fleet };
}
