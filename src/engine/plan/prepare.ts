/**
 * The stages plan, apply and drift share, composed from the engine's pure parts and the edges
 * handed in by the CLI (API client, state store): validate against the live portal, expand
 * prunes, read live values, build the plan. Applying it is in apply.ts.
 */
import { createLiveReader, type ApiClient } from '../../api/index.js';
import { PortalctlError } from '../../core/errors.js';
import { assertSamePortal, mayHoldFingerprint, type StateDocument, type StateStore } from '../../state/index.js';
import { throwIfInvalid, validateConfig, type LoadedConfig } from '../config/index.js';
import { formatLocation, type Diagnostic } from '../../core/diagnostics.js';
import { NotOnPortalError, type DesiredObject, type Kind, type NamedKey, type PortalFacts, type PruneDeclaration } from '../../kinds/toolkit/contract.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { buildPlan, type Plan, type PlanAbout, type PlanWarning, type RecordedValue } from './plan.js';
import { planRefusals } from './safety.js';
import { notOnPortal, readLive } from '../read/read-live.js';
import { callerFromSelf, type Caller } from '../read/authority.js';
import { checkUnknownOutcomes, withUnknownOutcomes } from './unknown-outcomes.js';
import { declaredNames, hasNames, portalNames, recordedNames, resolveNames, type ResolvedNameFields } from '../read/names.js';
import { assertTargetsMatch } from './targets.js';
import { ConfigError } from '../config/errors.js';
import { learnRelease, releaseFrom, type PortalRelease } from '../read/release.js';
import { compareVersions } from '../../core/version.js';
import type { LiveReader } from '../../core/request.js';
import { concealPreviousValues, RecordedBasis, revealRecorded } from './recorded-values.js';
import { PhaseTracker, type ProgressObserver } from '../progress.js';

export interface LivePortal {
  /** `version` is the product release (release.ts), absent when it cannot be known. */
  facts: PortalFacts;
  id?: string;
  /** The organization's name, shown at the top of reports. */
  name?: string;
  /** How the release was learnt, or why it is unknown. */
  release?: PortalRelease;
}

/**
 * `portals/self` (and the release learnt beside it) as the facts the kinds' rules take. Without
 * `release`, the version is the one of the hosted edition's dated release (its `currentVersion`);
 * a self-managed portal's `currentVersion` is an API version and never taken for the release.
 */
export function factsFromSelf(self: JsonObject, release: PortalRelease = releaseFrom(self, { refused: 'not read' })): LivePortal {
  const facts: PortalFacts = { edition: release.edition };
  if (release.release !== undefined) facts.version = release.release;
  if (self['access'] === 'public' || self['access'] === 'private') facts.access = self['access'];
  if (typeof self['isVerified'] === 'boolean') facts.isVerified = self['isVerified'];
  return {
    facts,
    release,
    ...(typeof self['id'] === 'string' ? { id: self['id'] } : {}),
    ...(typeof self['name'] === 'string' && self['name'] !== '' ? { name: self['name'] } : {}),
  };
}

/** The live portal: `portals/self`, and its release from the roots (release.ts). */
async function readPortal(reader: LiveReader, client: ApiClient, url: string): Promise<{ self: JsonObject; portal: LivePortal }> {
  const self = await reader.get('/portals/self');
  if (!self) throw new PortalctlError(`${url} answered portals/self with "not found": is this the portal's REST root (…/sharing/rest)?`);
  return { self, portal: factsFromSelf(self, await learnRelease(self, reader, client)) };
}

/**
 * What the live portal's facts say about the declared ones. A contradicted edition is a config
 * error (the rules were checked against a wrong picture); another release is a warning.
 */
function factMismatches(config: LoadedConfig, portal: LivePortal, url: string): Diagnostic[] {
  const live = portal.facts;
  const declared = config.portal;
  const problems: Diagnostic[] = [];
  const add = (field: string, was: unknown, now: unknown, severity: Diagnostic['severity']) =>
    problems.push({
      severity,
      code: `portal/${field}-mismatch`,
      message: `portal.${field} is declared as ${JSON.stringify(was)}, but the portal at ${url} reports ${JSON.stringify(now)}.`,
      ...(declared.source ? { location: declared.locate?.(field) ?? declared.source } : {}),
      value: was,
      expected: JSON.stringify(now),
    });
  if (declared.edition !== undefined && declared.edition !== live.edition) add('edition', declared.edition, live.edition, 'error');
  // "11.3" and "11.3.0" name one release.
  const sameRelease = (a: string, b: string): boolean => (compareVersions(a, b) ?? (a === b ? 0 : 1)) === 0;
  if (declared.version !== undefined && live.version !== undefined && !sameRelease(declared.version, live.version)) add('version', declared.version, live.version, 'warning');
  return problems;
}

/** A release that cannot be known is said in the plan itself (text, JSON, markdown), and refuses nothing. */
function releaseWarning(config: LoadedConfig, portal: LivePortal | undefined, url: string): PlanWarning | undefined {
  if (!portal || portal.facts.version !== undefined || portal.facts.edition !== 'self-managed') return undefined;
  const declared = config.portal.version;
  return {
    address: 'portal',
    kind: 'portal',
    message:
      `The product release of the portal at ${url} cannot be known: ${portal.release?.how ?? 'it was not read'}. ` +
      (declared !== undefined
        ? `Version rules were checked against the declared portal.version "${declared}" only.`
        : 'Version rules were not checked: declare portal.version to check them, or use an administrator token so the Portal Administration root can tell.'),
  };
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
  /** Told how reading the portal goes: the `reading` phase (`verifying` with `verify`). */
  progress?: ProgressObserver;
  /** What the plan is about (config paths, state, release), for its reports. */
  about?: PlanAbout;
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
  /** Names the config gave instead of ids, as resolved, by address. */
  names: ReadonlyMap<string, ResolvedNameFields[]>;
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
  /** What its plans are about (config paths, state, release), for their reports. */
  about?: PlanAbout;
}

/** The plan of a session: the recorded state read, then prepared (read-only: no lock). */
export async function planSession(session: PortalSession, targets: readonly string[] = [], options: { digest?: boolean; progress?: ProgressObserver } = {}): Promise<PreparedPlan> {
  const { config, url, client } = session;
  return preparePlan({ config, url, recorded: await session.store.read(), ...(client ? { client } : {}), ...(session.about ? { about: session.about } : {}), targets, ...options });
}

/**
 * The live values with what the portal's answers left out taken from the record, for the kinds
 * that name fields the portal may leave out (Kind.withUnreported); a referenced value recorded as
 * its fingerprint is revealed by the declared value it matches.
 */
function withUnreported(values: Map<string, JsonValue>, objects: readonly DesiredObject[], kinds: ReadonlyMap<string, Kind>, recorded: StateDocument | undefined): Map<string, JsonValue> {
  for (const obj of objects) {
    const kind = kinds.get(obj.kind);
    const live = values.get(obj.address);
    if (!kind?.withUnreported || live === undefined) continue;
    const entry = recorded && Object.hasOwn(recorded.resources, obj.address) ? recorded.resources[obj.address] : undefined;
    values.set(obj.address, kind.withUnreported(obj, live, entry ? revealRecorded(entry.value, [obj.value]) : undefined));
  }
  return values;
}

/**
 * Recorded values of the declared objects, for drift (only compared when the basis is live),
 * with fingerprints of referenced values revealed by the desired or live value they match
 * (recorded-values.ts).
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

/** Everything a plan needs, from config and state to the plan value itself. */
export async function preparePlan(request: PlanRequest): Promise<PreparedPlan> {
  const { config, client } = request;
  // One memoising reader per plan: `portals/self` read here serves the kinds that need it too.
  const reader = client ? createLiveReader(client, request.parallelism === undefined ? {} : { concurrency: request.parallelism }) : undefined;
  // The rules against the declared facts first: an invalid config fails before any request.
  const diagnostics = validateConfig(config);
  throwIfInvalid(diagnostics);
  // The phase spans everything read from the portal, `portals/self` and prunes included.
  const tracker = reader
    ? new PhaseTracker(request.progress, request.verify ? 'verifying' : 'reading', 'object', request.verify ? request.verify.addresses.size : config.objects.length)
    : undefined;
  try {
    return await planWith(request, reader, tracker, diagnostics);
  } finally {
    tracker?.end();
  }
}

async function planWith(
  request: PlanRequest,
  reader: ReturnType<typeof createLiveReader> | undefined,
  tracker: PhaseTracker | undefined,
  declaredDiagnostics: Diagnostic[],
): Promise<PreparedPlan> {
  const { config, url, client, recorded } = request;
  let diagnostics = declaredDiagnostics;
  let portal: LivePortal | undefined;
  let caller: Caller | undefined;
  if (reader && client) {
    // After an apply the release is the one just learnt: only portals/self is read again.
    const previous = request.verify?.previous.portal;
    const read = previous ? await reader.get('/portals/self') : undefined;
    const live = previous && read ? { self: read, portal: factsFromSelf(read, previous.release) } : await readPortal(reader, client, url);
    portal = live.portal;
    caller = callerFromSelf(live.self);
    // Then against what the portal really is (edition, release, access, verification).
    diagnostics = [...validateConfig(config, portal.facts), ...factMismatches(config, portal, url)];
    throwIfInvalid(diagnostics);
  }
  if (recorded) assertSamePortal(recorded, url, portal?.id);
  const warnings = diagnostics.filter((d) => d.severity === 'warning');

  let objects = config.objects;
  let prunes = config.prunes;
  let targets = request.targets ?? [];
  let names: ReadonlyMap<string, ResolvedNameFields[]> = new Map();
  let basis: ReadonlyMap<string, JsonValue>;
  let labels = new Map<string, string>();
  if (!request.verify && hasNames(config.kinds, objects, prunes)) {
    // Entries named instead of identified: their ids come from the reads the plan makes anyway,
    // or without reading, from the names the state recorded when it last read them.
    const source = reader ? portalNames(reader) : recorded ? recordedNames(recorded) : undefined;
    if (!source) throw new ConfigError(namesNeedAState(declaredNames(config.kinds, objects, prunes)));
    ({ objects, prunes, targets, names } = await resolveNames(config.kinds, objects, prunes, source, targets));
    // A target by id that may have meant an object declared by name is checked now that its id is known.
    assertTargetsMatch(targets, { objects, prunes }, [...config.objects.map((obj) => obj.address), ...config.prunes.map((prune) => prune.collection)]);
  }
  if (reader && request.verify) {
    // After an apply: what was written (and what depends on it) is read again, nothing else.
    const { addresses, previous } = request.verify;
    objects = previous.objects;
    names = previous.names;
    const reread = await readLive(objects.filter((obj) => addresses.has(obj.address)), config.kinds.byName, reader, tracker);
    basis = new Map([...previous.basis, ...withUnreported(reread.values, objects, config.kinds.byName, recorded)]);
    labels = new Map([...previous.labels, ...reread.labels]);
  } else if (reader) {
    const { pruned, missing } = await expandPrunes(config, prunes, objects, reader);
    objects = [...objects, ...pruned];
    if (pruned.length > 0) tracker?.resize(objects.length);
    // Removals a prune implies obey the same rules (versions, editions) as declared ones.
    throwIfInvalid(pruned.flatMap((obj) => config.kinds.byName.get(obj.kind)?.check(obj, { portal: portal?.facts ?? {}, all: objects }) ?? []));
    const read = await withMissing(missing, () => readLive(objects, config.kinds.byName, reader, tracker));
    basis = withUnreported(read.values, objects, config.kinds.byName, recorded);
    labels = read.labels;
  } else {
    basis = recorded ? new RecordedBasis(recorded, objects) : new Map();
    for (const prune of prunes) {
      warnings.push({
        severity: 'warning',
        code: 'plan/prune-needs-refresh',
        message: `prune: true on ${prune.collection} is not expanded without reading the portal (--refresh=false).`,
        location: prune.source,
      });
    }
  }

  const organizationId = client ? portal?.id : recorded?.portal.id;
  const built = buildPlan({
    objects,
    basis,
    labels,
    // Drift compares recorded with live values: without a refresh there is nothing to compare.
    recorded: client ? recordedValues(recorded, objects, basis) : {},
    kinds: config.kinds.byName,
    // Unread (--refresh=false), the organization is the one the state belongs to (assertSamePortal
    // checked its URL): a saved offline plan then names it, and apply finds it the one answering.
    portal: { url, ...(organizationId ? { id: organizationId } : {}), ...(portal?.name ? { name: portal.name } : {}) },
    ...(request.about ? { about: request.about } : {}),
    refreshed: Boolean(client),
    state: recorded ? { lineage: recorded.lineage, serial: recorded.serial } : null,
    targets,
    names,
    sources: config.baseSources,
    ...(config.environment ? { environment: config.environment.name } : {}),
    ...(caller ? { caller } : {}),
    ...(request.digest === undefined ? {} : { digest: request.digest }),
  });
  // Operations whose outcome is unknown are judged against the live portal before anything else.
  // A reference's previous value (rotated since the last apply) is never shown in clear.
  const checked = concealPreviousValues(withUnknownOutcomes(built, checkUnknownOutcomes(built, objects, basis, recorded)), recorded, config.redact);
  const unknownRelease = releaseWarning(config, portal, url);
  // Records no declaration holds, in a plan that reads the portal: the offline plan is the quick
  // check, and comparing every record with the declarations cost it a tenth of its time at four
  // times the large organization; after an apply, the plan before it said them.
  const undeclared = client && !request.verify ? undeclaredRecords(recorded, objects) : [];
  const extraWarnings = [...(unknownRelease ? [unknownRelease] : []), ...undeclared];
  const warned = extraWarnings.length > 0 ? { ...checked, warnings: [...extraWarnings, ...checked.warnings] } : checked;
  // What apply would refuse is part of the plan, so the reviewed plan says it (safety.ts).
  const plan: Plan = { ...warned, refusals: planRefusals(warned, objects, config.safety) };
  return { plan, config, objects, basis, labels, names, recorded, portal, warnings };
}

/**
 * Records of objects the config no longer declares. Taking an object out of the config stops
 * managing it: it stays on the portal as it is, which someone used to tools that delete what is
 * no longer declared may not expect, and its record stays in the state. Said in every plan until
 * the record is forgotten (`state rm`). An object recorded as removed is not: nothing is left of it.
 */
function undeclaredRecords(recorded: StateDocument | undefined, objects: readonly DesiredObject[]): PlanWarning[] {
  if (!recorded) return [];
  const declared = new Set(objects.map((obj) => obj.address));
  const warnings: PlanWarning[] = [];
  for (const [address, entry] of Object.entries(recorded.resources)) {
    if (declared.has(address) || entry.status === 'absent') continue;
    warnings.push({
      address,
      kind: entry.kind,
      message: `recorded in the state but no longer declared: portalctl no longer manages it and leaves it on the portal as it is (\`portalctl state rm ${address}\` forgets the record).`,
    });
  }
  return warnings.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** `--refresh=false` without a state has nothing to resolve names from: said at each name. */
function namesNeedAState(names: readonly NamedKey[]): Diagnostic[] {
  const seen = new Set<string>();
  const problems: Diagnostic[] = [];
  for (const named of names) {
    const where = formatLocation(named.source);
    if (seen.has(where)) continue;
    seen.add(where);
    problems.push({
      severity: 'error',
      code: 'names/needs-refresh',
      message: `${named.container} ${named.placeholder} is named, not given by id: --refresh=false resolves names from those the state recorded, and there is no state yet.`,
      location: named.source,
      expected: 'plan without --refresh=false (names are resolved by reading the portal), or the id',
    });
  }
  return problems;
}

/**
 * The removals each prune declaration implies, and a diagnostic for each whose collection's owner
 * the portal does not have (a collaboration: without it, the prune would silently remove nothing).
 */
async function expandPrunes(
  config: LoadedConfig,
  prunes: readonly PruneDeclaration[],
  declared: readonly DesiredObject[],
  reader: ReturnType<typeof createLiveReader>,
): Promise<{ pruned: DesiredObject[]; missing: Diagnostic[] }> {
  const known = new Set(declared.map((obj) => obj.address));
  const pruned: DesiredObject[] = [];
  const missing: Diagnostic[] = [];
  for (const declaration of prunes) {
    const kind = config.kinds.byName.get(declaration.kind);
    if (!kind?.prune) throw new PortalctlError(`prune: true is not supported for ${declaration.collection}.`);
    let implied: DesiredObject[];
    try {
      implied = await kind.prune(declaration, reader);
    } catch (error) {
      if (!(error instanceof NotOnPortalError)) throw error;
      missing.push(notOnPortal(error, error.enclosing?.address ?? declaration.collection, declaration.source));
      continue;
    }
    for (const obj of implied) {
      if (!known.has(obj.address)) {
        known.add(obj.address);
        pruned.push(obj);
      }
    }
  }
  return { pruned, missing };
}

/**
 * The live read, with the prunes' missing owners said beside the objects it finds missing: one
 * diagnostic per address (an owner the read also found missing is said once, where it said it).
 */
async function withMissing<T>(missing: readonly Diagnostic[], read: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await read();
  } catch (error) {
    if (missing.length === 0 || !(error instanceof ConfigError)) throw error;
    const said = new Set(error.diagnostics.map((diagnostic) => diagnostic.address));
    throw new ConfigError([...error.diagnostics, ...missing.filter((diagnostic) => !said.has(diagnostic.address))].sort((a, b) => (a.address ?? '').localeCompare(b.address ?? '')));
  }
  if (missing.length > 0) throw new ConfigError(missing);
  return result;
}
