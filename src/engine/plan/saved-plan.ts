/**
 * A saved plan (`plan --out`) is the redacted plan value. `apply --plan` makes the plan again
 * from the same config and refuses to go on unless it is the same plan, made from the same
 * recorded state and the same live values: the reviewed plan is exactly what runs.
 */
import { dirname } from 'node:path';
import { PortalctlError } from '../../core/errors.js';
import { canonicalJson, isObject } from '../../core/json.js';
import { PLAN_FORMAT_VERSION, type Plan } from './plan.js';
import { redactPlan, type ReferenceIndex, type Redactor, type ShownPlan } from './redact.js';
import { listed } from '../../core/words.js';

export class PlanFileError extends PortalctlError {}
/** A saved plan that no longer matches the portal, the state or the config; `reasons` says what changed. */
export class StalePlanError extends PortalctlError {
  constructor(readonly reasons: readonly string[]) {
    super(`The saved plan is stale: ${reasons.join('; ')}. Nothing was applied; run \`portalctl plan\` again.`);
  }
}

export function serializePlan(plan: Plan, redact: Redactor): string {
  return `${JSON.stringify(redactPlan(plan, redact), null, 2)}\n`;
}

/**
 * The shape every reader of a saved plan relies on (apply --plan, show): checked once here, so
 * a damaged or foreign file is refused with its name instead of failing half-way through.
 */
function isSavedPlan(value: unknown): value is Plan {
  return (
    isObject(value) &&
    value['formatVersion'] === PLAN_FORMAT_VERSION &&
    typeof value['basisDigest'] === 'string' &&
    typeof value['createdAt'] === 'string' &&
    isObject(value['portal']) &&
    typeof value['portal']['url'] === 'string' &&
    isObject(value['summary']) &&
    Array.isArray(value['targets']) &&
    Array.isArray(value['sources']) &&
    Array.isArray(value['drift']) &&
    Array.isArray(value['operations']) &&
    value['operations'].every((op) => isObject(op) && typeof op['address'] === 'string' && typeof op['action'] === 'string' && isObject(op['operation']) && isObject(op['request']))
  );
}

/**
 * A config given where a saved plan goes (`apply --plan portalctl.yaml`): said as such, since the
 * advice for a damaged plan (save one again at that path) would write a plan over the config.
 * Every config document starts its data with `version: 1`.
 */
function configGivenAsPlan(file: string, text: string, value: unknown): PlanFileError | undefined {
  const isConfig = value === undefined ? /^version:[ \t]*["']?1["']?[ \t]*(#.*)?$/m.test(text) : isObject(value) && 'version' in value && !('formatVersion' in value);
  if (!isConfig) return undefined;
  // Its directory, not the file alone: a config is usually several files, and applying one of them leaves the others out.
  const config = dirname(file);
  return new PlanFileError(
    `${file} is a config, not a saved plan: apply its directory's config with \`portalctl apply ${config}\`, or save that plan with \`portalctl plan ${config} --out plan.json\` and apply it with \`portalctl apply --plan plan.json\`.`,
  );
}

/** A plan file's JSON; a config, or text that is not JSON, is refused saying which. */
function planFileJson(text: string, file: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw configGivenAsPlan(file, text, undefined) ?? new PlanFileError(`${file} is not a plan file: ${error instanceof Error ? error.message : String(error)}`);
  }
  const config = configGivenAsPlan(file, text, value);
  if (config) throw config;
  return value;
}

/**
 * A plan file, parsed once: the plans of several environments (`plan --env a,b --out FILE`) or
 * one plan. A config, text that is not JSON, or a foreign or damaged file is refused saying which.
 */
export function parseSavedPlans(text: string, file: string): { fleet: FleetPlanFile } | { plan: Plan } {
  const value = planFileJson(text, file);
  // A later release's plan is no foreign file: said as such, before its fields are judged.
  const version = isObject(value) ? value['formatVersion'] : undefined;
  if (typeof version === 'number' && version > PLAN_FORMAT_VERSION) {
    throw new PlanFileError(`${file} was saved by a later portalctl (plan format version ${version}; this one reads version ${PLAN_FORMAT_VERSION}): show or apply it with that portalctl, or plan again with this one.`);
  }
  return isObject(value) && Array.isArray(value['fleet']) ? { fleet: fleetPlansOf(value['fleet'], file) } : { plan: savedPlanOf(value, file) };
}

function savedPlanOf(value: unknown, file: string): Plan {
  // A state file named as the plan: the advice for a damaged plan (save one there) would write over the state.
  if (isObject(value) && 'lineage' in value && 'resources' in value) {
    throw new PlanFileError(`${file} is a portalctl state file, not a saved plan: save a plan with \`portalctl plan --out plan.json\` and give that file.`);
  }
  if (!isSavedPlan(value)) {
    throw new PlanFileError(`${file} is not a portalctl plan (formatVersion ${PLAN_FORMAT_VERSION}); save one with \`portalctl plan --out ${file}\`.`);
  }
  // Older releases saved plans without warnings.
  return { ...value, warnings: Array.isArray(value.warnings) ? value.warnings : [] };
}

type PlanOperation = Plan['operations'][number];

/**
 * An operation as the comparison sees it: without its `label`, the object's name as the portal
 * told it for the reader (an offline plan has none; a retitled item sends the same request), and
 * with `sentOnly` also without `before` and `patch`, what the portal held, so that what it would
 * send is compared apart from what the portal held.
 */
function comparable(operation: PlanOperation, sentOnly: boolean): string {
  const { label: _label, ...compared } = operation;
  if (!sentOnly) return canonicalJson(compared);
  const { before: _before, patch: _patch, ...sent } = compared;
  return canonicalJson(sent);
}

/** The addresses whose operation differs between the two plans (added, removed or changed), in plan order. */
function differingOperations(saved: Plan, fresh: Plan, sentOnly: boolean): string[] {
  const was = new Map(saved.operations.map((operation) => [operation.address, comparable(operation, sentOnly)]));
  const now = new Map(fresh.operations.map((operation) => [operation.address, comparable(operation, sentOnly)]));
  const addresses = [...new Set([...was.keys(), ...now.keys()])];
  return addresses.filter((address) => was.get(address) !== now.get(address));
}

/** Throws StalePlanError naming what changed since the plan was saved. */
export function assertPlanCurrent(saved: ShownPlan, fresh: Plan, redact: Redactor): void {
  const reasons: string[] = [];
  if (saved.portal.url !== fresh.portal.url) reasons.push(`it was made for ${saved.portal.url}, not ${fresh.portal.url}`);
  // The organization, not only its URL: another organization can answer at the same URL (a restored or replaced portal).
  if (saved.portal.id !== fresh.portal.id) reasons.push(`it was made for the organization ${saved.portal.id ?? '(not read)'}, and ${fresh.portal.url} is now the organization ${fresh.portal.id ?? '(not read)'}`);
  const was = saved.state ? `${saved.state.lineage} serial ${saved.state.serial}` : 'no recorded state';
  const now = fresh.state ? `${fresh.state.lineage} serial ${fresh.state.serial}` : 'no recorded state';
  if (was !== now) reasons.push(`the recorded state changed (${was} -> ${now})`);
  const portalChanged = saved.basisDigest !== fresh.basisDigest;
  if (portalChanged) reasons.push('the portal changed since the plan was made');
  // After a change on the portal every operation's `before` may differ: only a change in what
  // would be sent is news then, and that may be the portal's doing as much as the config's.
  const differing = differingOperations(saved, redactPlan(fresh, redact), portalChanged);
  if (differing.length > 0) {
    const which = `${differing.slice(0, 3).join(', ')}${differing.length > 3 ? ` and ${differing.length - 3} more` : ''}`;
    reasons.push(portalChanged ? `it would now send other operations for ${which}` : `the configuration now gives other operations (${which})`);
  }
  // A referenced value (a `${env:}` secret) changed since review: the redacted operations read
  // the same, but what they would send is not what was reviewed.
  const changed = changedReferences(saved, redact.references);
  if (changed.length > 0) reasons.push(`the value of ${listed(changed)} changed since the plan was made`);
  if (reasons.length) {
    throw new StalePlanError(reasons);
  }
}

/** The references a saved plan's requests carry whose value (size, fingerprint) is not the one it was made with. */
function changedReferences(saved: ShownPlan, now: ReferenceIndex | undefined): string[] {
  const was = saved.references ?? {};
  const sent = saved.operations.map((operation) => canonicalJson(operation.request)).join('\n');
  return Object.keys(was).filter((reference) => {
    const facts = was[reference];
    const current = now?.[reference];
    return sent.includes(JSON.stringify(reference).slice(1, -1)) && (current === undefined || current.bytes !== facts?.bytes || current.sha256 !== facts?.sha256);
  });
}

/**
 * `plan --out FILE` over several environments writes one file holding each environment's saved
 * plan (README "Environments"): one artifact to review and keep; `apply --plan FILE` applies each
 * plan in its environment, each checked like a single saved plan.
 */
export interface FleetPlanEntry {
  environment: string;
  outcome: string;
  exitCode: number;
  /** The environment's saved plan (redacted), when it was planned. */
  plan?: Plan;
  /** Why there is no plan. */
  error?: string;
}

export interface FleetPlanFile {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  fleet: FleetPlanEntry[];
}

export function serializeFleetPlans(entries: readonly FleetPlanEntry[]): string {
  const file: FleetPlanFile = { formatVersion: PLAN_FORMAT_VERSION, fleet: [...entries] };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function fleetPlansOf(entries: readonly unknown[], file: string): FleetPlanFile {
  const fleet: FleetPlanEntry[] = [];
  for (const entry of entries) {
    if (!isObject(entry) || typeof entry['environment'] !== 'string' || typeof entry['outcome'] !== 'string' || typeof entry['exitCode'] !== 'number') {
      throw new PlanFileError(`${file} is not a portalctl plan file: every entry of its fleet names its environment, outcome and exit code.`);
    }
    const plan: unknown = entry['plan'];
    if (plan !== undefined && !isSavedPlan(plan)) throw new PlanFileError(`${file}: the plan of ${entry['environment']} is not a portalctl plan (formatVersion ${PLAN_FORMAT_VERSION}).`);
    fleet.push({
      environment: entry['environment'],
      outcome: entry['outcome'],
      exitCode: entry['exitCode'],
      ...(plan === undefined ? {} : { plan: { ...plan, warnings: Array.isArray(plan.warnings) ? plan.warnings : [] } }),
      ...(typeof entry['error'] === 'string' ? { error: entry['error'] } : {}),
    });
  }
  return { formatVersion: PLAN_FORMAT_VERSION, fleet };
}
