/**
 * The stages plan, apply and drift share, composed from the engine's pure parts and the edges
 * handed in by the CLI (API client, state store): validate against the live portal, expand
 * prunes, read live values, build the plan. Applying it is in apply.ts.
 */
import { createLiveReader, type ApiClient } from '../api/index.js';
import { PortalctlError } from '../core/errors.js';
import { assertSamePortal, mayHoldFingerprint, type StateDocument, type StateEntry, type StateStore } from '../state/index.js';
import { throwIfInvalid, validateConfig, type LoadedConfig } from './config/index.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { DesiredObject, PortalFacts } from '../kinds/contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import { buildPlan, type Plan, type RecordedValue } from './plan.js';
import { readLive } from './refresh.js';
import { callerFromSelf, type Caller } from './authority.js';
import { checkUnknownOutcomes, withUnknownOutcomes } from './unknown-outcomes.js';
import { concealPreviousValues, revealRecorded } from './state-values.js';

export interface LivePortal {
  facts: PortalFacts;
  id?: string;
}

/** `portals/self` as the facts the kinds' rules take. */
export function factsFromSelf(self: JsonObject): LivePortal {
  const facts: PortalFacts = { edition: self['isPortal'] === true ? 'self-managed' : 'hosted' };
  if (typeof self['currentVersion'] === 'string') facts.version = self['currentVersion'];
  if (self['access'] === 'public' || self['access'] === 'private') facts.access = self['access'];
  if (typeof self['isVerified'] === 'boolean') facts.isVerified = self['isVerified'];
  return typeof self['id'] === 'string' ? { facts, id: self['id'] } : { facts };
}

/** A declared fact the live portal contradicts is a config error: the rules were checked against a wrong picture. */
function factMismatches(config: LoadedConfig, live: PortalFacts, url: string): Diagnostic[] {
  const declared = config.portal;
  const problems: Diagnostic[] = [];
  const add = (field: string, was: unknown, now: unknown, severity: Diagnostic['severity']) =>
    problems.push({
      severity,
      code: `portal/${field}-mismatch`,
      message: `portal.${field} is declared as ${JSON.stringify(was)}, but the portal at ${url} reports ${JSON.stringify(now)}.`,
      ...(declared.source ? { location: declared.source } : {}),
      value: was,
      expected: JSON.stringify(now),
    });
  if (declared.edition !== undefined && declared.edition !== live.edition) add('edition', declared.edition, live.edition, 'error');
  if (declared.version !== undefined && live.version !== undefined && declared.version !== live.version) add('version', declared.version, live.version, 'warning');
  return problems;
}

export interface PlanRequest {
  config: LoadedConfig;
  /** The REST root (`--portal`, or `portal.url`). */
  url: string;
  /** The recorded state (read by the caller, under the lock when applying). */
  recorded: StateDocument | undefined;
  /** The API client; absent for `--refresh=false`, which plans against the recorded state. */
  client?: ApiClient;
  targets?: readonly string[];
  /** False when the plan is neither saved, printed as JSON nor checked against a saved one: no basis digest (see Plan). */
  digest?: boolean;
  /** Reads in flight at once (`--parallelism`; default the reader's). */
  parallelism?: number;
  /**
   * Re-plan after an apply: only these addresses are read again; every other object keeps its
   * value from `previous`, the plan that was applied (prunes are not expanded again).
   */
  verify?: { addresses: ReadonlySet<string>; previous: PreparedPlan };
}

export interface PreparedPlan {
  plan: Plan;
  config: LoadedConfig;
  /** Declared objects plus those a prune implies. */
  objects: DesiredObject[];
  /** The values compared against, per address (live, or recorded without refresh). */
  basis: ReadonlyMap<string, JsonValue>;
  /** What the objects are called, by address, from the live reads. */
  labels: ReadonlyMap<string, string>;
  recorded: StateDocument | undefined;
  portal: LivePortal | undefined;
  warnings: Diagnostic[];
}

/** What plan, apply and drift work on: the loaded config, the portal's REST root, the state store and (unless `--refresh=false`) the API client. */
export interface PortalSession {
  config: LoadedConfig;
  url: string;
  store: StateStore;
  client?: ApiClient;
}

/** The plan of a session: the recorded state read, then prepared (read-only: no lock). */
export async function planSession(session: PortalSession, targets: readonly string[] = [], options: { digest?: boolean } = {}): Promise<PreparedPlan> {
  const { config, url, client } = session;
  return preparePlan({ config, url, recorded: await session.store.read(), ...(client ? { client } : {}), targets, ...options });
}

/**
 * Recorded values of the declared objects, for drift (only compared when the basis is live),
 * with fingerprints of referenced values revealed by the desired or live value they match
 * (state-values.ts).
 */
function recordedValues(state: StateDocument | undefined, objects: readonly DesiredObject[], basis: ReadonlyMap<string, JsonValue>): Record<string, RecordedValue> {
  const values: Record<string, RecordedValue> = {};
  if (!state) return values;
  const resources = state.resources;
  const mayHold = mayHoldFingerprint(state);
  for (const obj of objects) {
    const entry = Object.prototype.hasOwnProperty.call(resources, obj.address) ? resources[obj.address] : undefined;
    if (!entry) continue;
    const value = mayHold(obj.address) ? revealRecorded(entry.value, [obj.value, basis.get(obj.address)]) : entry.value;
    values[obj.address] = { kind: entry.kind, value };
  }
  return values;
}

/** Without refresh the recorded values are the basis, fingerprints revealed by the desired values. */
function recordedBasis(state: StateDocument | undefined, objects: readonly DesiredObject[]): Map<string, JsonValue> {
  const basis = new Map<string, JsonValue>();
  if (!state) return basis;
  // Desired values by address, built only when some entry may hold a fingerprint.
  let desired: Map<string, JsonValue> | undefined;
  const resources = state.resources;
  const mayHold = mayHoldFingerprint(state);
  for (const address in resources) {
    const value = (resources[address] as StateEntry).value;
    if (!mayHold(address)) {
      basis.set(address, value);
      continue;
    }
    desired ??= new Map(objects.map((obj) => [obj.address, obj.value]));
    basis.set(address, revealRecorded(value, [desired.get(address)]));
  }
  return basis;
}

/** Everything a plan needs, from config and state to the plan value itself. */
export async function preparePlan(request: PlanRequest): Promise<PreparedPlan> {
  const { config, url, client, recorded } = request;
  // One memoising reader per plan: `portals/self` read here serves the kinds that need it too.
  const reader = client ? createLiveReader(client, request.parallelism === undefined ? {} : { concurrency: request.parallelism }) : undefined;
  // The rules against the declared facts first: an invalid config fails before any request.
  let diagnostics = validateConfig(config);
  throwIfInvalid(diagnostics);
  let portal: LivePortal | undefined;
  let caller: Caller | undefined;
  if (reader) {
    const self = await reader.get('/portals/self');
    if (!self) throw new PortalctlError(`${url} answered portals/self with "not found": is this the portal's REST root (…/sharing/rest)?`);
    portal = factsFromSelf(self);
    caller = callerFromSelf(self);
    // Then against what the portal really is (edition, version, access, verification).
    diagnostics = [...validateConfig(config, portal.facts), ...factMismatches(config, portal.facts, url)];
    throwIfInvalid(diagnostics);
  }
  if (recorded) assertSamePortal(recorded, url, portal?.id);
  const warnings = diagnostics.filter((d) => d.severity === 'warning');

  let objects = config.objects;
  let basis: Map<string, JsonValue>;
  let labels = new Map<string, string>();
  if (reader && request.verify) {
    // After an apply: what was written (and what depends on it) is read again, nothing else.
    const { addresses, previous } = request.verify;
    objects = previous.objects;
    const reread = await readLive(objects.filter((obj) => addresses.has(obj.address)), config.kinds.byName, reader);
    basis = new Map([...previous.basis, ...reread.values]);
    labels = new Map([...previous.labels, ...reread.labels]);
  } else if (reader) {
    const pruned = await expandPrunes(config, objects, reader);
    objects = [...objects, ...pruned];
    // Removals a prune implies obey the same rules (versions, editions) as declared ones.
    throwIfInvalid(pruned.flatMap((obj) => config.kinds.byName.get(obj.kind)?.check(obj, { portal: portal?.facts ?? {}, all: objects }) ?? []));
    ({ values: basis, labels } = await readLive(objects, config.kinds.byName, reader));
  } else {
    basis = recordedBasis(recorded, objects);
    for (const prune of config.prunes) {
      warnings.push({
        severity: 'warning',
        code: 'plan/prune-needs-refresh',
        message: `prune: true on ${prune.collection} is not expanded without reading the portal (--refresh=false).`,
        location: prune.source,
      });
    }
  }

  const built = buildPlan({
    objects,
    basis,
    labels,
    // Drift compares recorded with live values: without a refresh there is nothing to compare.
    recorded: client ? recordedValues(recorded, objects, basis) : {},
    kinds: config.kinds.byName,
    portal: portal?.id ? { url, id: portal.id } : { url },
    refreshed: Boolean(client),
    state: recorded ? { lineage: recorded.lineage, serial: recorded.serial } : null,
    targets: request.targets ?? [],
    sources: config.sources,
    ...(caller ? { caller } : {}),
    ...(request.digest === undefined ? {} : { digest: request.digest }),
  });
  // Operations whose outcome is unknown are judged against the live portal before anything else.
  // A reference's previous value (rotated since the last apply) is never shown in clear.
  const plan = concealPreviousValues(withUnknownOutcomes(built, checkUnknownOutcomes(built, objects, basis, recorded)), recorded, config.redact);
  return { plan, config, objects, basis, labels, recorded, portal, warnings };
}

async function expandPrunes(config: LoadedConfig, declared: readonly DesiredObject[], reader: ReturnType<typeof createLiveReader>): Promise<DesiredObject[]> {
  const known = new Set(declared.map((obj) => obj.address));
  const pruned: DesiredObject[] = [];
  for (const declaration of config.prunes) {
    const kind = config.kinds.byName.get(declaration.kind);
    if (!kind?.prune) throw new PortalctlError(`prune: true is not supported for ${declaration.collection}.`);
    for (const obj of await kind.prune(declaration, reader)) {
      if (!known.has(obj.address)) {
        known.add(obj.address);
        pruned.push(obj);
      }
    }
  }
  return pruned;
}
