/**
 * The plan: one value that every rendering (text, JSON, markdown) and the apply itself use.
 * Building it is pure: desired objects + live values (+ recorded state) in, plan out.
 */
import fastJsonPatch from 'fast-json-patch';
import type { Operation as JsonPatchOperation } from 'fast-json-patch';
import type { Action, DesiredObject, Kind } from '../../kinds/toolkit/contract.js';
import type { ApiRequest } from '../../core/request.js';
import type { JsonValue } from '../../core/json.js';
import { canonicalJson, deepEqual, sha256Of } from '../../core/json.js';
import { DependencyCycleError, dependencyRings, orderByDependencies } from './order.js';
import { ConfigError } from '../config/errors.js';
import { refusedAt } from '../read/read-live.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { mayCall, missingAuthority, type Caller } from '../read/authority.js';
import { PortalctlError } from '../../core/errors.js';
import type { ResolvedName } from '../read/names.js';
import { selects } from '../../core/address.js';

export const PLAN_FORMAT_VERSION = 1;

export type { JsonPatchOperation };

export interface PlannedOperation {
  address: string;
  /** The object as a person knows it (an item's title and owner, a user's full name), where the reads told. */
  label?: string;
  kind: string;
  action: Action;
  /** The spec operation used, e.g. `{ id: 'E8', name: 'securityPolicy update' }`. */
  operation: { id: string; name: string };
  /** The exact request that will be sent (token excluded). */
  request: ApiRequest;
  before: JsonValue;
  after: JsonValue;
  /** RFC 6902 patch from before to after. */
  patch: JsonPatchOperation[];
  destructive: boolean;
  /** Addresses of operations in this plan that must succeed first. */
  dependsOn: string[];
  /** Entries the config named instead of giving their id, with the id each resolved to (outermost first). */
  names?: ResolvedName[];
}

/**
 * How a drift entry can be accepted (keeping the portal's value): `adopt` when the configuration
 * already asks for the live value (`apply` records it, sending nothing); `refresh-only` when the
 * configuration asks for another value (`apply` would set it back; `apply --refresh-only` records
 * the live value, after which the configuration is ahead until it is changed to match).
 */
export type DriftResolution = 'adopt' | 'refresh-only';

/** Something changed outside portalctl: the recorded value differs from the live one. */
export interface DriftEntry {
  address: string;
  /** The object as a person knows it, as on plan operations. */
  label?: string;
  kind: string;
  /** What portalctl last applied and saw. */
  before: JsonValue;
  /** What the portal has now. */
  after: JsonValue;
  patch: JsonPatchOperation[];
  resolution: DriftResolution;
}

/** Something the plan cannot resolve but a reviewer must know before any write. */
export interface PlanWarning {
  address: string;
  kind: string;
  message: string;
  /** On the warning of an operation whose outcome was unknown: what the live portal showed (unknown-outcomes.ts). */
  unknownOutcome?: 'performed' | 'retry' | 'unchecked';
}

/** Why `apply` would refuse this plan unless overridden (a change threshold, destructive operations). */
export interface PlanRefusal {
  reason: 'destructive' | 'threshold';
  /** One sentence, the same words `apply` refuses with. */
  message: string;
  /** The flag that lets `apply` go on. */
  override: '--allow-destructive' | '--force';
  /** The operations it is about (destructive ones; empty for a threshold). */
  addresses: string[];
}

/** What a plan is about, shown at the top of its reports so two environments are told apart. */
export interface PlanAbout {
  /** The config paths as given on the command line. */
  config: string[];
  /** Where the state lives (never with a password), e.g. `file portalctl.state.json`. */
  state: string;
  /** The portalctl release that made the plan. */
  portalctl: string;
  /** The environment the plan was made in (README "Environments"). */
  environment?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  destructive: number;
  byKind: Record<string, number>;
  drift: number;
  /** With `--target`: the changes the config asks for outside the targets, left out of this plan. */
  outsideTargets?: number;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  createdAt: string;
  /** The portal's REST root, its organization id and name (`portals/self`), where read. */
  portal: { url: string; id?: string; name?: string };
  /** What the plan is about (config paths, state, release); absent in plans of earlier releases. */
  about?: PlanAbout;
  /** False when planned against the recorded state (`--refresh=false`), without reading the portal. */
  refreshed: boolean;
  /** The recorded state the plan was based on; null when there was none. */
  state: { lineage: string; serial: number } | null;
  /**
   * Digest of the live (or recorded) values the plan compared against; a saved plan is stale
   * when it changes. Absent only when the caller said it would neither save, print as JSON nor
   * apply the plan (`digest: false`): only those uses need it, and it hashes every value.
   */
  basisDigest?: string;
  targets: string[];
  /** The config files the plan was made from (what `apply --plan` loads again): the base files, without an environment's overlays. */
  sources: string[];
  /** The environment the plan was made in (its overlays and values); absent without environments. */
  environment?: string;
  summary: PlanSummary;
  /** In execution order. */
  operations: PlannedOperation[];
  drift: DriftEntry[];
  /** Differences no operation resolves, and operations the caller may not call (privileges). */
  warnings: PlanWarning[];
  /**
   * What `apply` would refuse without an override flag (change thresholds, destructive
   * operations), so a reviewed plan says before merge what would stop its apply. Absent in plans
   * of earlier releases.
   */
  refusals?: PlanRefusal[];
}

export interface RecordedValue {
  kind: string;
  value: JsonValue;
}

export interface PlanInput {
  objects: readonly DesiredObject[];
  /** Live (or, without refresh, recorded) value per address; a missing entry means unknown. */
  basis: ReadonlyMap<string, JsonValue>;
  /** What the objects are called, by address (from the live reads); none without refresh. */
  labels?: ReadonlyMap<string, string>;
  /** Names the config gave instead of ids, as resolved, by address. */
  names?: ReadonlyMap<string, ResolvedName[]>;
  /** Recorded values per address, for drift; only compared when the basis is live. */
  recorded: Readonly<Record<string, RecordedValue>>;
  kinds: ReadonlyMap<string, Kind>;
  portal: { url: string; id?: string; name?: string };
  about?: PlanAbout;
  refreshed: boolean;
  state: { lineage: string; serial: number } | null;
  targets: readonly string[];
  sources?: readonly string[];
  environment?: string;
  now?: Date;
  /** Who the credentials act as (from `portals/self`); unknown: no privilege check. */
  caller?: Caller;
  /** False: leave out basisDigest (the plan is only shown as text or markdown). Default true. */
  digest?: boolean;
}

export class UnknownKindError extends PortalctlError {}

function kindOf(kinds: ReadonlyMap<string, Kind>, name: string): Kind {
  const kind = kinds.get(name);
  if (!kind) throw new UnknownKindError(`No kind named "${name}" is registered.`);
  return kind;
}

const patchBetween = (before: JsonValue, after: JsonValue): JsonPatchOperation[] =>
  fastJsonPatch.compare({ value: before }, { value: after }).map((op) => ({ ...op, path: op.path.replace(/^\/value/, '') }));

/** Targets select by address structure (`role` selects `role[r1]`; `rol` selects nothing): core/address.ts. */
export function isTargeted(address: string, targets: readonly string[]): boolean {
  return targets.length === 0 || targets.some((target) => selects(target, address));
}

/** The names an operation shows: as declared, with their ids (the fields resolution saw are the state's, not the plan's). */
function namesOf(names: PlanInput['names'], address: string): { names: ResolvedName[] } | undefined {
  const resolved = names?.get(address);
  return resolved ? { names: resolved.map(({ noun, name, id, field }) => ({ noun, name, id, ...(field === undefined ? {} : { field }) })) } : undefined;
}

/** Desired versus basis gives the operations; recorded versus live gives the drift. */
export function buildPlan(input: PlanInput): Plan {
  const candidates: PlannedOperation[] = [];
  /** Changes outside the targets, and how to say their warnings should a target wait for one. */
  const outside: PlannedOperation[] = [];
  const outsideWarnings = new Map<string, () => void>();
  const drift: DriftEntry[] = [];
  const warnings: PlanWarning[] = [];

  for (const obj of input.objects) {
    const kind = kindOf(input.kinds, obj.kind);
    // One lookup: a basis value is never undefined (a missing object is null). On a large
    // organization every lookup by address counts.
    const basisValue = input.basis.get(obj.address);
    const known = basisValue !== undefined || input.basis.has(obj.address);
    const live = basisValue ?? null;

    // Whether the desired value is what the portal has; asked once, only where it is needed.
    let inSync: boolean | undefined;
    const desiredInSync = (): boolean => (inSync ??= known && kind.inSync(obj, live));
    const recorded = input.refreshed && known ? input.recorded[obj.address] : undefined;
    const label = input.labels && input.labels.size > 0 ? input.labels.get(obj.address) : undefined;
    if (recorded) {
      // Over what both describe: a field declared or no longer declared since the record is no drift.
      const seen = kind.driftValues ? kind.driftValues(obj, recorded.value, live) : { recorded: recorded.value, live };
      const asRecorded: DesiredObject = { ...obj, value: seen.recorded, absent: seen.recorded === null };
      // Unchanged since recorded is never drift, also for kinds whose inSync compares a wish (an
      // invitation to send) rather than a value (a failed invitation is recorded as null).
      if (!deepEqual(seen.recorded, seen.live) && !kind.inSync(asRecorded, seen.live)) {
        drift.push({
          address: obj.address,
          ...(label === undefined ? {} : { label }),
          kind: obj.kind,
          before: seen.recorded,
          after: seen.live,
          patch: patchBetween(seen.recorded, seen.live),
          resolution: desiredInSync() ? 'adopt' : 'refresh-only',
        });
      }
    }

    const targeted = isTargeted(obj.address, input.targets);
    const warn = (): void => {
      if (known && kind.warnings) for (const message of kind.warnings(obj, live)) warnings.push({ address: obj.address, kind: obj.kind, message });
    };
    if (targeted) warn();
    // Unknown (no live read, nothing recorded): plan the change; the portal's answer is idempotent.
    if (desiredInSync()) continue;
    const change = kind.change(obj, live);
    (targeted ? candidates : outside).push({
      address: obj.address,
      ...(label === undefined ? {} : { label }),
      kind: obj.kind,
      action: change.action,
      operation: { ...kind.operation },
      request: change.request,
      before: change.before,
      after: change.after,
      patch: patchBetween(change.before, change.after),
      destructive: obj.destructive,
      dependsOn: [...new Set(kind.dependsOn(obj, input.objects, input.basis))].sort(),
      ...(namesOf(input.names, obj.address) ?? {}),
    });
    if (!targeted) outsideWarnings.set(obj.address, warn);
  }

  // A target brings the changes it waits for, as Terraform's -target does: sent alone, its
  // operation would be refused (a role renamed onto a name another still holds). The rest are
  // counted, so a targeted plan does not read as the whole of what the config asks for.
  const waitedFor = new Map(outside.map((op) => [op.address, op]));
  for (let index = 0; index < candidates.length; index++) {
    for (const dep of candidates[index]?.dependsOn ?? []) {
      const op = waitedFor.get(dep);
      if (!op) continue;
      waitedFor.delete(dep);
      outsideWarnings.get(dep)?.();
      candidates.push(op);
    }
  }
  const outsideTargets = waitedFor.size;

  const planned = new Set(candidates.map((op) => op.address));
  for (const op of candidates) op.dependsOn = op.dependsOn.filter((dep) => planned.has(dep));
  const operations = inDependencyOrder(candidates, input);
  drift.sort((a, b) => (a.address < b.address ? -1 : 1));
  const caller = input.caller;
  if (caller) {
    for (const op of operations) {
      const authority = kindOf(input.kinds, op.kind).authority;
      if (authority && !mayCall(caller, authority)) warnings.push({ address: op.address, kind: op.kind, message: missingAuthority(caller, authority, op.operation) });
    }
  }

  return {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: (input.now ?? new Date()).toISOString(),
    portal: input.portal,
    ...(input.about ? { about: input.about } : {}),
    refreshed: input.refreshed,
    state: input.state,
    ...(input.digest === false ? {} : { basisDigest: basisDigest(input.objects, input.basis) }),
    targets: [...input.targets],
    sources: [...(input.sources ?? [])],
    ...(input.environment === undefined ? {} : { environment: input.environment }),
    summary: { ...summarize(operations, drift.length), ...(input.targets.length > 0 ? { outsideTargets } : {}) },
    operations,
    drift,
    warnings,
  };
}

/**
 * The operations in the order they must run. Operations that wait on each other in a ring (two
 * roles swapping names) can never run: said at each of them, in their kind's words where it has
 * some, as a config error, before anything is written.
 */
function inDependencyOrder(candidates: PlannedOperation[], input: PlanInput): PlannedOperation[] {
  try {
    return orderByDependencies(candidates);
  } catch (error) {
    if (!(error instanceof DependencyCycleError)) throw error;
    const declared = new Map(input.objects.map((obj) => [obj.address, obj]));
    const diagnostics = dependencyRings(candidates).flatMap((ring) => {
      const objects = ring.flatMap((op) => declared.get(op.address) ?? []);
      return objects.map((obj, at) => ringDiagnostic(obj, [...objects.slice(at), ...objects.slice(0, at)], kindOf(input.kinds, obj.kind)));
    });
    throw new ConfigError(diagnostics.sort((a, b) => (a.address ?? '').localeCompare(b.address ?? '')));
  }
}

function ringDiagnostic(obj: DesiredObject, ring: readonly DesiredObject[], kind: Kind): Diagnostic {
  if (kind.ringRefusal) return refusedAt(kind.ringRefusal(obj, ring), obj);
  return {
    severity: 'error',
    code: 'plan/dependency-cycle',
    message: `${ring.map((other) => other.address).join(' waits for ')} waits for ${obj.address}: none of them can go first.`,
    address: obj.address,
    location: obj.source,
    expected: 'changes that do not wait on each other, or one of them made in an apply of its own first',
  };
}

/** Digest of the values compared against, per declared address, in address order. */
export function basisDigest(objects: readonly DesiredObject[], basis: ReadonlyMap<string, JsonValue>): string {
  const entries = objects
    .map((obj) => [obj.address, basis.has(obj.address) ? basis.get(obj.address) : '<unknown>'] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Hashed piece by piece: the same digest as sha256(canonicalJson(entries)) without building one huge string.
  return sha256Of((hash) => {
    hash.update('[');
    entries.forEach(([address, value], index) => {
      hash.update(`${index === 0 ? '' : ','}[${JSON.stringify(address)},${canonicalJson(value ?? null)}]`);
    });
    hash.update(']');
  });
}

function summarize(operations: readonly PlannedOperation[], drift: number): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, destructive: 0, byKind: {}, drift };
  for (const op of operations) {
    summary[op.action] += 1;
    if (op.destructive) summary.destructive += 1;
    summary.byKind[op.kind] = (summary.byKind[op.kind] ?? 0) + 1;
  }
  return summary;
}

