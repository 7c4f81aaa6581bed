/**
 * `import`: every kind discovers its live objects (KindReconciler.discover); this module places
 * them in one YAML document by the containers' skeleton (src/kinds/toolkit/containers.ts), with comments
 * naming each entry, so a person can review it. It knows no particular kind.
 */
import { Document, isMap, isNode, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';
import { ApiNetworkError, createLiveReader, isMissingPrivilege, isNotFound, type ApiClient } from '../../api/index.js';
import { PortalctlError } from '../../core/errors.js';
import type { ContainerDefinition } from '../../kinds/toolkit/containers.js';
import type { ConfigPath, ConfigStep, DiscoveredObject, FieldComment, Kind, NameCandidate, NamedReference, PortalFacts } from '../../kinds/toolkit/contract.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { LiveReader } from '../../core/request.js';
import { factsFromSelf } from '../plan/prepare.js';
import { PhaseTracker, type ProgressObserver } from '../progress.js';
import { learnRelease, type PortalRelease } from '../read/release.js';

/** A kind the token may not read (403 GWM_0003) or whose resource does not exist: left out, with a comment. */
export interface SkippedKind {
  kind: string;
  /** E.g. `E7 Enable task`. */
  operation: string;
  reason: string;
}

export interface ImportResult {
  /** The config, as YAML text with comments. */
  text: string;
  /** Managed objects written as config, counted as `validate` counts them (comment-only notes not counted). */
  objects: number;
  skipped: SkippedKind[];
  /** The live portal's facts (`version`: the product release, when known). */
  portal: PortalFacts;
  /** The `portal:` block written, as the config says it (`verified`, the URL, a version only when it is a release). */
  portalBlock: JsonObject;
  /** How the release was learnt, or why it is unknown (then the `portal:` block says so in a comment). */
  release: PortalRelease;
}

export interface ImportRequest {
  client: Pick<ApiClient, 'get' | 'list' | 'getAdministration'>;
  /** The REST root, written as `portal.url`. */
  url: string;
  /** The kinds to discover with and the containers they are placed in (the CLI passes the registry's). */
  kinds: readonly Kind[];
  containers: readonly ContainerDefinition[];
  /** `--by-name`: entries that can be named are written with their name instead of their id. */
  byName?: boolean;
  /** Where editors find the config's JSON Schema, written as the first line (`# yaml-language-server: $schema=…`). */
  schema?: string;
  /** Told how reading goes: the `reading` phase, counted in kinds. */
  progress?: ProgressObserver;
}

/** A kind placed an object where the containers' skeleton has no such place: a bug in its discover. */
export class ImportPlacementError extends PortalctlError {}

/** The kind's discoveries, in registry order; one unreadable kind is skipped, other failures (network) are fatal. */
type KindOutcome = { kind: Kind; found: DiscoveredObject[] } | { kind: Kind; skipped: SkippedKind } | { kind: Kind; error: unknown };

async function discoverKind(kind: Kind, reader: LiveReader, portal: PortalFacts): Promise<KindOutcome> {
  if (!kind.discover) return { kind, found: [] };
  try {
    return { kind, found: await kind.discover(reader, portal) };
  } catch (error) {
    if (!(error instanceof ApiNetworkError) && (isMissingPrivilege(error) || isNotFound(error))) {
      const codes = [error.code, error.messageCode].filter((part) => part !== undefined).join(' ');
      const reason = `${error.method} ${error.path}: ${error.apiMessage}${codes ? ` (${codes})` : ''}`;
      return { kind, skipped: { kind: kind.name, operation: `${kind.operation.id} ${kind.operation.name}`, reason: oneLine(reason) } };
    }
    return { kind, error };
  }
}

/** Reads the live organization through every kind and composes the config. Fails on the first non-skippable error. */
export async function importPortal(request: ImportRequest): Promise<ImportResult> {
  const { kinds, containers } = request;
  // One memoising reader: `portals/self` read here serves the kinds that need it too.
  const reader = createLiveReader(request.client);
  const reading = new PhaseTracker(request.progress, 'reading', 'kind', kinds.length);
  const outcomes = await (async () => {
    const self = await reader.get('/portals/self');
    if (!self) throw new PortalctlError(`${request.url} answered portals/self with "not found": is this the portal's REST root (…/sharing/rest)?`);
    const release = await learnRelease(self, reader, request.client);
    const { facts } = factsFromSelf(self, release);
    const found = await Promise.all(
      kinds.map(async (kind) => {
        const outcome = await discoverKind(kind, reader, facts);
        reading.step();
        return outcome;
      }),
    );
    return { self, release, facts, found };
  })().finally(() => reading.end());
  const { self, release, facts } = outcomes;
  const failed = outcomes.found.find((outcome): outcome is { kind: Kind; error: unknown } => 'error' in outcome);
  if (failed) throw failed.error;

  const found: DiscoveredObject[] = [];
  const skipped: SkippedKind[] = [];
  for (const outcome of outcomes.found) {
    if ('found' in outcome) {
      found.push(...outcome.found);
    } else if ('skipped' in outcome) {
      skipped.push(outcome.skipped);
      found.push({
        path: [{ container: topSection(outcome.kind, containers) }],
        fields: {},
        notes: [`${outcome.skipped.kind} (${outcome.skipped.operation}) not imported: the token may not read it. ${outcome.skipped.reason}`],
      });
    }
  }
  const placed = request.byName ? await withNames(found, kinds, containers, reader) : found;
  const organization = {
    ...(typeof self['name'] === 'string' ? { name: self['name'] } : {}),
    ...(typeof self['id'] === 'string' ? { id: self['id'] } : {}),
  };
  const composed = composeImport({ url: request.url, portal: facts, release, organization, found: placed, containers, ...(request.schema === undefined ? {} : { schema: request.schema }) });
  return { text: composed.text, objects: composed.objects, skipped, portal: facts, portalBlock: portalBlock(request.url, facts), release };
}

/**
 * `import --by-name`: each entry whose container can be named gets the fewest name fields that
 * tell it apart among the live objects (the required ones, then the others in order); one that
 * no name tells apart keeps its id, with a comment saying why.
 */
async function withNames(found: readonly DiscoveredObject[], kinds: readonly Kind[], containers: readonly ContainerDefinition[], reader: LiveReader): Promise<DiscoveredObject[]> {
  const lookups = new Map(kinds.flatMap((kind) => kind.names ?? []).map((lookup) => [lookup.container, lookup]));
  const lists = new Map<string, Promise<NameCandidate[]>>();
  const nameFor = async (step: ConfigStep, parent: Record<string, string>): Promise<{ name?: Record<string, string>; note?: string }> => {
    const lookup = lookups.get(step.container);
    if (!lookup || step.key === undefined) return {};
    const listKey = `${step.container}|${JSON.stringify(parent)}`;
    let list = lists.get(listKey);
    if (!list) lists.set(listKey, (list = lookup.candidates(reader, parent)));
    const candidates = await list;
    const own = candidates.find((candidate) => candidate.id === step.key);
    if (!own) return {};
    const name: Record<string, string> = {};
    const sameName = () => candidates.filter((candidate) => Object.entries(name).every(([field, value]) => candidate.fields[field] === value)).length;
    for (const field of lookup.fields) {
      const value = own.fields[field.name];
      if (value === undefined) {
        if (field.required) return { note: `kept by id: it has no ${field.name} to be named by` };
        continue;
      }
      if (field.required || sameName() > 1) name[field.name] = value;
    }
    const others = sameName() - 1;
    return others > 0 ? { note: `kept by id: ${others + 1} ${lookup.noun}s share its name` } : { name };
  };
  // Fields that hold other objects' ids (a federation's roleId), by the container they are fields of.
  const references = new Map<string, NamedReference>();
  for (const kind of kinds) for (const reference of kind.references ?? []) for (const contribution of kind.config) references.set(`${contribution.container}|${reference.field}`, reference);
  /** An id in a reference field as the referred object's name, where one tells it apart; else the id. */
  const referredBy = async (container: string, id: JsonValue): Promise<JsonValue> => {
    if (typeof id !== 'string') return id;
    const { name } = await nameFor({ container, key: id }, {});
    return name ?? id;
  };
  const named: DiscoveredObject[] = [];
  for (const obj of found) {
    const parent: Record<string, string> = {};
    const path: ConfigStep[] = [];
    const notes: string[] = [];
    for (const step of obj.path) {
      const { name, note } = await nameFor(step, parent);
      path.push(name ? { ...step, name } : step);
      if (note && step === obj.path[obj.path.length - 1]) notes.push(note);
      const idName = containers.find((container) => container.name === step.container)?.key?.idName;
      if (idName !== undefined && step.key !== undefined) parent[idName] = step.key;
    }
    const fields: JsonObject = { ...obj.fields };
    const container = obj.path[obj.path.length - 1]?.container;
    for (const [field, value] of Object.entries(fields)) {
      const reference = references.get(`${container}|${field}`);
      if (!reference) continue;
      fields[field] = reference.list && Array.isArray(value) ? await Promise.all(value.map((id) => referredBy(reference.container, id))) : await referredBy(reference.container, value);
    }
    named.push({ ...obj, path, fields, ...(notes.length ? { notes: [...(obj.notes ?? []), ...notes] } : {}) });
  }
  return named;
}

/** The top-level section a kind's (first) container belongs to: where a note about the whole kind goes. */
function topSection(kind: Kind, containers: readonly ContainerDefinition[]): string {
  let name = kind.config[0]?.container ?? 'organization';
  for (let parent = containers.find((c) => c.name === name)?.parent; parent !== undefined; parent = containers.find((c) => c.name === name)?.parent) {
    name = parent;
  }
  return name;
}

// ---- Composition (pure) ----

interface EntryNode {
  container: ContainerDefinition;
  key: string | undefined;
  name: string | undefined;
  /** `--by-name`: written as the key instead of the id. */
  keyName?: Readonly<Record<string, string>>;
  notes: string[];
  fields: JsonObject;
  fieldComments: FieldComment[];
  slots: Map<string, Slot>;
}

/** One container inside an entry (or at the top): its entries by key ('' for a section) and notes about the list itself. */
interface Slot {
  container: ContainerDefinition;
  entries: Map<string, EntryNode>;
  notes: string[];
}

/** The `portal:` block of the facts: the version only when it is a product release. */
function portalBlock(url: string, { edition, version, access, isVerified }: PortalFacts): JsonObject {
  return {
    url,
    edition,
    ...(version !== undefined && versionPattern.test(version) ? { version } : {}),
    ...(access === undefined ? {} : { access }),
    ...(isVerified === undefined ? {} : { verified: isVerified }),
  };
}

export interface ComposeRequest {
  url: string;
  portal: PortalFacts;
  /** How the release was learnt: said in a comment on `portal.version`, or on `portal` when unknown. */
  release?: PortalRelease;
  organization: { name?: string; id?: string };
  found: readonly DiscoveredObject[];
  containers: readonly ContainerDefinition[];
  schema?: string;
}

/** `${env:...}` / `${file:...}` text in a live value would be resolved when the config is loaded. */
const referenceLike = /\$\{[A-Za-z]+:[^}]*\}/;

function containsReferenceText(value: JsonValue): boolean {
  if (typeof value === 'string') return referenceLike.test(value);
  if (Array.isArray(value)) return value.some(containsReferenceText);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsReferenceText);
  return false;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function addOnce(lines: string[], line: string): void {
  const text = oneLine(line);
  if (text !== '' && !lines.includes(text)) lines.push(text);
}

const versionPattern = /^\d+(\.\d+)*$/;

/** The YAML document for `found`: sections in the containers' order, entries sorted by key, comments naming them. */
export function composeImport(request: ComposeRequest): { text: string; objects: number } {
  const { containers } = request;
  const byName = new Map(containers.map((container) => [container.name, container]));
  const root: Pick<EntryNode, 'slots'> = { slots: new Map() };
  const unplaced: string[] = [];
  let objects = 0;

  const containerOf = (step: ConfigStep, parent: string | undefined): ContainerDefinition => {
    const container = byName.get(step.container);
    if (!container || container.parent !== parent) {
      throw new ImportPlacementError(`A discovered object names the container "${step.container}" where the config has none (inside ${parent ?? 'the top level'}).`);
    }
    return container;
  };
  const slotOf = (holder: Pick<EntryNode, 'slots'>, container: ContainerDefinition): Slot => {
    let slot = holder.slots.get(container.name);
    if (!slot) holder.slots.set(container.name, (slot = { container, entries: new Map(), notes: [] }));
    return slot;
  };

  // Objects with fields create their entries; notes are placed afterwards, where the config has room for them.
  const notesToPlace: { path: readonly ConfigStep[]; notes: readonly string[] }[] = [];
  for (const obj of request.found) {
    const hasFields = Object.keys(obj.fields).length > 0;
    if (hasFields && containsReferenceText(obj.fields)) {
      const last = obj.path[obj.path.length - 1];
      const named = [last?.container, last?.key, last?.comment].filter(Boolean).join(' ');
      notesToPlace.push({ path: obj.path, notes: [`${named}: not imported; its live value contains \${...} text, which portalctl would read as a reference.`] });
      continue;
    }
    if (!hasFields) {
      notesToPlace.push({ path: obj.path, notes: obj.notes ?? [] });
      continue;
    }
    let holder: Pick<EntryNode, 'slots'> = root;
    let parent: string | undefined;
    let entry: EntryNode | undefined;
    for (const step of obj.path) {
      const container = containerOf(step, parent);
      const key = container.shape === 'object' ? '' : step.key;
      if (key === undefined) throw new ImportPlacementError(`A discovered object with fields names no entry of the list "${container.field}".`);
      const slot = slotOf(holder, container);
      entry = slot.entries.get(key);
      if (!entry) {
        entry = { container, key: container.shape === 'object' ? undefined : key, name: undefined, notes: [], fields: {}, fieldComments: [], slots: new Map() };
        slot.entries.set(key, entry);
      }
      if (entry.name === undefined && step.comment) entry.name = oneLine(step.comment);
      if (entry.keyName === undefined && step.name) entry.keyName = step.name;
      holder = entry;
      parent = container.name;
    }
    if (!entry) throw new ImportPlacementError('A discovered object has an empty path.');
    Object.assign(entry.fields, obj.fields);
    entry.fieldComments.push(...(obj.comments ?? []));
    for (const note of obj.notes ?? []) addOnce(entry.notes, note);
    objects += obj.objects ?? 1;
  }

  for (const { path, notes } of notesToPlace) {
    if (notes.length === 0) continue;
    // The deepest existing place along the path: the entry, else the list holding it, else further up.
    let holder: Pick<EntryNode, 'slots'> = root;
    let target: string[] = unplaced;
    let parent: string | undefined;
    for (const step of path) {
      const container = containerOf(step, parent);
      const slot = holder.slots.get(container.name);
      if (!slot || slot.entries.size === 0) break;
      const key = container.shape === 'object' ? '' : step.key;
      const entry = key === undefined ? undefined : slot.entries.get(key);
      if (!entry) {
        target = slot.notes;
        break;
      }
      if (entry.name === undefined && step.comment) entry.name = oneLine(step.comment);
      target = entry.notes;
      holder = entry;
      parent = container.name;
    }
    for (const note of notes) addOnce(target, note);
  }

  return { text: render(request, root, unplaced), objects };
}

function addComment(node: Node, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const text = lines.map((line) => ` ${line}`).join('\n');
  node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${text}` : text;
}

function render(request: ComposeRequest, root: Pick<EntryNode, 'slots'>, unplaced: readonly string[]): string {
  const top = new YAMLMap();
  const doc = new Document(top);
  const { name, id } = request.organization;
  doc.commentBefore = [
    ...(request.schema === undefined ? [] : [` yaml-language-server: $schema=${request.schema}`]),
    ` Imported by portalctl from ${oneLine(name ?? 'the organization')}${id ? ` (${id})` : ''} at ${request.url}.`,
    ' Every declared field is managed: review it, and remove what portalctl should leave alone.',
  ].join('\n');

  top.add(doc.createPair('version', 1));
  const portal = portalBlock(request.url, request.portal);
  const withVersion = portal['version'] !== undefined;
  const portalPair = doc.createPair('portal', portal);
  // The product release and where it came from; the REST API version is not it.
  const how = request.release ? oneLine(request.release.how) : undefined;
  if (how && withVersion && isMap(portalPair.value)) {
    const versionNode = portalPair.value.items.find((item) => isScalar(item.key) && item.key.value === 'version')?.value;
    if (isNode(versionNode)) versionNode.comment = ` product release, from ${how}`;
  } else if (how && !withVersion) {
    addComment(portalPair.key, [`portal.version (the product release) left out: it cannot be known (${how}).`]);
  }
  top.add(portalPair);

  const renderSlots = (holder: Pick<EntryNode, 'slots'>, parent: string | undefined, into: YAMLMap): void => {
    for (const container of request.containers.filter((candidate) => candidate.parent === parent)) {
      const slot = holder.slots.get(container.name);
      if (!slot || slot.entries.size === 0) continue;
      const key = new Scalar(container.field);
      if (parent === undefined) key.spaceBefore = true;
      addComment(key, slot.notes);
      if (container.shape === 'object') {
        // An object container's one entry is keyed ''.
        const entry = slot.entries.get('');
        if (!entry) continue;
        addComment(key, [...(entry.name ? [entry.name] : []), ...entry.notes]);
        into.add(new Pair(key, renderEntry(entry)));
      } else {
        const list = new YAMLSeq();
        const entries = [...slot.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [, entry] of entries) {
          const map = renderEntry(entry);
          addComment(map, [...(entry.name ? [entry.name] : []), ...entry.notes]);
          list.items.push(map);
        }
        into.add(new Pair(key, list));
      }
    }
  };

  const renderEntry = (entry: EntryNode): YAMLMap => {
    const map = new YAMLMap();
    const keyProperty = entry.container.key?.property;
    if (keyProperty !== undefined && entry.key !== undefined) map.add(entry.keyName ? doc.createPair(keyProperty, { ...entry.keyName }, { flow: true }) : doc.createPair(keyProperty, entry.key));
    for (const [field, value] of Object.entries(entry.fields)) map.add(doc.createPair(field, value));
    for (const comment of entry.fieldComments) annotate(map, comment.at, oneLine(comment.text));
    renderSlots(entry, entry.container.name, map);
    return map;
  };

  renderSlots(root, undefined, top);
  if (unplaced.length > 0) doc.comment = unplaced.map((line) => ` ${line}`).join('\n');
  return doc.toString({ lineWidth: 0 });
}

/** Puts a comment above the node at `at` (relative to the entry's map): a property's key, or a list element. */
function annotate(map: YAMLMap, at: ConfigPath, text: string): void {
  if (at.length === 0) return addComment(map, [text]);
  const last = at[at.length - 1];
  const parent = at.length === 1 ? map : map.getIn(at.slice(0, -1), true);
  if (typeof last === 'string' && isMap(parent)) {
    const pair = parent.items.find((candidate) => isScalar(candidate.key) && candidate.key.value === last);
    if (pair && isNode(pair.key)) addComment(pair.key, [text]);
  } else if (typeof last === 'number' && isSeq(parent)) {
    const item = parent.items[last];
    if (isNode(item)) addComment(item, [text]);
  }
}
