/**
 * Names instead of ids (README "Names instead of ids"): entries the config names (`id: { name:
 * Field Analyst }`) are resolved to their ids before the live read, through the NameLookup the
 * container's kind declares. Candidates come from the plan's memoised reader by the same paths
 * the kinds read anyway, so a name costs no request of its own where the API lists; without
 * reading the portal (`--refresh=false`), from the names the state recorded when it last read
 * them. A name that matches no object, or several, stops the plan with a diagnostic at the name
 * listing the candidates. Nothing here knows a particular kind.
 */
import { distance } from 'fastest-levenshtein';
import { formatLocation, type Diagnostic, type SourceLocation } from '../../core/diagnostics.js';
import type { LiveReader } from '../../core/request.js';
import { isObject, type JsonValue } from '../../core/json.js';
import type { DesiredObject, NameCandidate, NamedKey, NameLookup, NamedReference, PruneDeclaration } from '../../kinds/toolkit/contract.js';
import type { RecordedName, StateDocument } from '../../state/index.js';
import { ConfigError } from '../config/errors.js';
import { DeclaredObject } from '../config/extract.js';
import { namePlaceholder } from '../config/walk.js';
import type { KindSet } from '../kind-set.js';

/** A name the plan resolved: shown beside the object in the plan. */
export interface ResolvedName {
  /** What the object is (`role`, `group`). */
  noun: string;
  /** The name as declared. */
  name: Readonly<Record<string, string>>;
  id: string;
  /** For a name given in a field of the value instead of an id (a federation's `roleId`): the field. */
  field?: string;
}

/** A resolved name with every field the source showed for the object it named: what the state records. */
export interface ResolvedNameFields extends ResolvedName {
  fields: Readonly<Record<string, string>>;
}

/** Where names are looked up: the portal, or the names a state recorded. */
export interface NameSource {
  /** How messages say where a name was not found: `on the portal`. */
  where: string;
  /** Said after `where` when it has no object of the noun at all. */
  none(noun: string): string;
  candidates(lookup: NameLookup, parent: Readonly<Record<string, string>>): Promise<NameCandidate[]>;
}

/** The portal's objects, through the lookups' reads. */
export function portalNames(reader: LiveReader): NameSource {
  return { where: 'on the portal', none: (noun) => ` (it has no ${noun} this account can see)`, candidates: (lookup, parent) => lookup.candidates(reader, parent) };
}

/**
 * The names `state` recorded (StateEntry.names), for a plan that does not read the portal: an
 * object is a candidate for the lookup of its noun where its entry lies inside `parent`'s
 * entries. An object recorded with other fields by entries of different times counts once, with
 * those of its latest read.
 */
export function recordedNames(state: StateDocument): NameSource {
  const byNoun = new Map<string, { ids: Readonly<Record<string, string>>; named: RecordedName; at: string }[]>();
  for (const entry of Object.values(state.resources)) {
    for (const named of entry.names ?? []) {
      const list = byNoun.get(named.noun) ?? [];
      list.push({ ids: entry.ids, named, at: entry.observedAt ?? entry.appliedAt ?? '' });
      byNoun.set(named.noun, list);
    }
  }
  return {
    where: 'among the names the state recorded when it last read the portal',
    none: (noun) => ` (it records no ${noun} named)`,
    candidates: (lookup, parent) => {
      const latest = new Map<string, { fields: Readonly<Record<string, string>>; at: string }>();
      for (const { ids, named, at } of byNoun.get(lookup.noun) ?? []) {
        if (!Object.entries(parent).every(([idName, id]) => ids[idName] === id)) continue;
        const seen = latest.get(named.id);
        if (!seen || at > seen.at) latest.set(named.id, { fields: named.name, at });
      }
      return Promise.resolve([...latest].map(([id, { fields }]) => ({ id, fields })));
    },
  };
}

export interface NameResolution {
  objects: DesiredObject[];
  prunes: PruneDeclaration[];
  targets: string[];
  /** The resolved names on the way to each object, by (resolved) address. */
  names: Map<string, ResolvedNameFields[]>;
}

/** A name given in a field of an object's value instead of an id, and where in the value it is (`idName`: the field). */
interface ReferenceName extends NamedKey {
  reference: NamedReference;
  /** The index in a list field. */
  index?: number;
}

/** The names `obj`'s value gives instead of ids in the fields its kind declares as references. */
function referenceNames(kinds: KindSet, obj: DesiredObject): ReferenceName[] {
  const references = kinds.byName.get(obj.kind)?.references;
  if (!references || !isObject(obj.value)) return [];
  const found: ReferenceName[] = [];
  for (const reference of references) {
    const given = obj.value[reference.field];
    const entries: [JsonValue | undefined, number | undefined][] = reference.list ? (Array.isArray(given) ? given.map((item, index) => [item, index]) : []) : [[given, undefined]];
    for (const [item, index] of entries) {
      if (!isObject(item)) continue;
      const placeholder = namePlaceholder(item);
      if (placeholder === undefined) continue;
      const path = index === undefined ? [reference.field] : [reference.field, index];
      let location: SourceLocation | undefined;
      found.push({
        reference,
        ...(index === undefined ? {} : { index }),
        container: reference.container,
        idName: reference.field,
        fields: Object.fromEntries(Object.entries(item).map(([field, value]) => [field, String(value)])),
        placeholder,
        get source() {
          return (location ??= obj instanceof DeclaredObject ? obj.locate(path) : obj.source);
        },
      });
    }
  }
  return found;
}

/** Every name the declarations give instead of an id: in their keys, and in the fields that refer to other objects. */
export function declaredNames(kinds: KindSet, objects: readonly DesiredObject[], prunes: readonly PruneDeclaration[]): NamedKey[] {
  return [...objects.flatMap((obj) => [...(obj.names ?? []), ...referenceNames(kinds, obj)]), ...prunes.flatMap((prune) => prune.names ?? [])];
}

/** Whether any declaration names an entry or a referred object (then the plan resolves names before it reads). */
export function hasNames(kinds: KindSet, objects: readonly DesiredObject[], prunes: readonly PruneDeclaration[]): boolean {
  return prunes.some((prune) => prune.names !== undefined) || objects.some((obj) => obj.names !== undefined || referenceNames(kinds, obj).length > 0);
}

/** `value` with the ids of its reference names in their places. */
function withReferenceIds(value: JsonValue, resolved: readonly { named: ReferenceName; found: NameCandidate }[]): JsonValue {
  if (!isObject(value) || resolved.length === 0) return value;
  const next = { ...value };
  for (const { named, found } of resolved) {
    const field = named.reference.field;
    if (named.index === undefined) next[field] = found.id;
    else {
      const list = next[field];
      if (!Array.isArray(list)) continue;
      const copy = list === value[field] ? [...list] : list;
      copy[named.index] = found.id;
      next[field] = copy;
    }
  }
  return next;
}

/** The id names of the containers enclosing `container` (a workspace's collaboration: `collaborationId`). */
function enclosingIdNames(kinds: KindSet, container: string): string[] {
  const names: string[] = [];
  let parent = kinds.containers.find((candidate) => candidate.name === container)?.parent;
  while (parent !== undefined) {
    const definition = kinds.containers.find((candidate) => candidate.name === parent);
    if (definition?.key) names.unshift(definition.key.idName);
    parent = definition?.parent;
  }
  return names;
}

/** `"Field Analyst"`, `"Parcels" (type Feature Service, owner jdoe)`: a name as messages show it. */
export function describeName(name: Readonly<Record<string, string>>): string {
  const [first, ...rest] = Object.entries(name);
  const head = first ? JSON.stringify(first[1]) : '';
  return rest.length ? `${head} (${rest.map(([field, value]) => `${field} ${value}`).join(', ')})` : head;
}

function candidateText(candidate: NameCandidate): string {
  return `${describeName(candidate.fields)} = ${candidate.id}`;
}

/** The candidates nearest to a name that matched none, by its first field (case and spelling). */
function nearest(name: Readonly<Record<string, string>>, candidates: readonly NameCandidate[], lookup: NameLookup): NameCandidate[] {
  const field = lookup.fields[0]?.name ?? '';
  const wanted = (name[field] ?? '').toLowerCase();
  return [...candidates]
    .map((candidate) => ({ candidate, score: distance(wanted, (candidate.fields[field] ?? '').toLowerCase()) }))
    .sort((a, b) => a.score - b.score || (a.candidate.id < b.candidate.id ? -1 : 1))
    .slice(0, 5)
    .map(({ candidate }) => candidate);
}

const matches = (candidate: NameCandidate, name: Readonly<Record<string, string>>): boolean => Object.entries(name).every(([field, value]) => candidate.fields[field] === value);

/** A declaration's name and the object it resolved to. */
interface ResolvedKey {
  named: NamedKey;
  found: NameCandidate;
}

const placeholderIds = (resolved: readonly ResolvedKey[]): { placeholder: string; id: string }[] => resolved.map(({ named, found }) => ({ placeholder: named.placeholder, id: found.id }));

/** The placeholders of `names` replaced by their ids in an address (in order, each after the one before). */
function substitute(text: string, replacements: readonly { placeholder: string; id: string }[]): string {
  let result = text;
  let from = 0;
  for (const { placeholder, id } of replacements) {
    const at = result.indexOf(`[${placeholder}]`, from);
    if (at === -1) continue;
    result = `${result.slice(0, at)}[${id}]${result.slice(at + placeholder.length + 2)}`;
    from = at + id.length + 2;
  }
  return result;
}

export async function resolveNames(kinds: KindSet, objects: readonly DesiredObject[], prunes: readonly PruneDeclaration[], source: NameSource, targets: readonly string[]): Promise<NameResolution> {
  const lookups = new Map(kinds.kinds.flatMap((kind) => kind.names ?? []).map((lookup) => [lookup.container, lookup]));
  const candidateLists = new Map<string, Promise<NameCandidate[]>>();
  const problems = new Map<string, Diagnostic>();

  /** The object a name stands for, or undefined (with a diagnostic) when it matches none or several. */
  const resolveOne = async (named: NamedKey, ids: Readonly<Record<string, string>>): Promise<NameCandidate | undefined> => {
    const lookup = lookups.get(named.container);
    if (!lookup) throw new Error(`No kind declares names for ${named.container}.`);
    const parent = Object.fromEntries(
      enclosingIdNames(kinds, named.container).flatMap((idName) => {
        const id = ids[idName];
        return id === undefined ? [] : [[idName, id]];
      }),
    );
    const listKey = `${named.container}|${JSON.stringify(parent)}`;
    let list = candidateLists.get(listKey);
    if (!list) candidateLists.set(listKey, (list = source.candidates(lookup, parent)));
    const candidates = await list;
    const found = candidates.filter((candidate) => matches(candidate, named.fields));
    const [only] = found;
    if (only !== undefined && found.length === 1) return only;
    const where = formatLocation(named.source);
    if (problems.has(where)) return undefined;
    const shown = describeName(named.fields);
    if (found.length === 0) {
      const near = nearest(named.fields, candidates, lookup);
      problems.set(where, {
        severity: 'error',
        code: 'names/not-found',
        message: `No ${lookup.noun} named ${shown} ${source.where}${near.length ? `; the closest: ${near.map(candidateText).join('; ')}` : source.none(lookup.noun)}.`,
        location: named.source,
        value: named.fields,
        expected: `the ${lookup.noun}'s ${lookup.fields.map((field) => field.name).join(', ')} as the portal shows ${lookup.fields.length === 1 ? 'it' : 'them'}, or its id`,
      });
    } else {
      const narrowing = lookup.fields.filter((field) => named.fields[field.name] === undefined).map((field) => field.name);
      problems.set(where, {
        severity: 'error',
        code: 'names/ambiguous',
        message: `${found.length} ${lookup.noun}s are named ${shown}: ${found.map(candidateText).join('; ')}.`,
        location: named.source,
        value: named.fields,
        expected: narrowing.length ? `add ${narrowing.join(' or ')} to tell them apart, or give the id` : 'the id',
      });
    }
    return undefined;
  };

  /** The declaration's names resolved in order (an enclosing entry's id first: it may be in a child's list path). */
  const resolveChain = async (names: readonly NamedKey[], ids: Readonly<Record<string, string>>): Promise<{ ids: Record<string, string>; resolved: ResolvedKey[] } | undefined> => {
    const current: Record<string, string> = { ...ids };
    const resolved: ResolvedKey[] = [];
    for (const named of names) {
      const found = await resolveOne(named, current);
      if (found === undefined) return undefined;
      current[named.idName] = found.id;
      resolved.push({ named, found });
    }
    return { ids: current, resolved };
  };

  const names = new Map<string, ResolvedNameFields[]>();
  const renamed = new Map<string, string>();
  const nounOf = (container: string): string => lookups.get(container)?.noun ?? container;
  const resolvedObjects = await Promise.all(
    objects.map(async (obj): Promise<DesiredObject> => {
      const references = referenceNames(kinds, obj);
      if (!obj.names && references.length === 0) return obj;
      let address = obj.address;
      let ids = obj.ids;
      const shown: ResolvedNameFields[] = [];
      if (obj.names) {
        const chain = await resolveChain(obj.names, obj.ids);
        if (!chain) return obj;
        address = substitute(obj.address, placeholderIds(chain.resolved));
        ids = chain.ids;
        renamed.set(obj.address, address);
        shown.push(...chain.resolved.map(({ named, found }) => ({ noun: nounOf(named.container), name: named.fields, id: found.id, fields: found.fields })));
      }
      // The objects its fields refer to by name: top-level entries (roles, groups), so no enclosing ids.
      const referred: { named: ReferenceName; found: NameCandidate }[] = [];
      for (const named of references) {
        const found = await resolveOne(named, {});
        if (found) referred.push({ named, found });
      }
      if (referred.length < references.length) return obj;
      shown.push(...referred.map(({ named, found }) => ({ noun: nounOf(named.container), name: named.fields, id: found.id, fields: found.fields, field: named.reference.field })));
      names.set(address, shown);
      const value = withReferenceIds(obj.value, referred);
      return obj instanceof DeclaredObject ? obj.resolved(address, ids, value) : { ...obj, address, ids, value, source: obj.source };
    }),
  );
  const resolvedPrunes = await Promise.all(
    prunes.map(async (prune): Promise<PruneDeclaration> => {
      if (!prune.names) return prune;
      const chain = await resolveChain(prune.names, prune.ids);
      if (!chain) return prune;
      const source = prune.source;
      return { collection: substitute(prune.collection, placeholderIds(chain.resolved)), kind: prune.kind, ids: chain.ids, keys: prune.keys, source };
    }),
  );
  if (problems.size > 0) throw new ConfigError([...problems.values()]);

  // Two declarations of one object, one by id and one by name, meet only now.
  const seen = new Map<string, DesiredObject>();
  const duplicates: Diagnostic[] = [];
  for (const obj of resolvedObjects) {
    const first = seen.get(obj.address);
    if (first) {
      duplicates.push({
        severity: 'error',
        code: 'config/duplicate-object',
        message: `${obj.address} is declared twice: here and at ${formatLocation(first.source)} (one of them by name).`,
        address: obj.address,
        location: obj.source,
        expected: 'each object declared once, by id or by name',
      });
    } else {
      seen.set(obj.address, obj);
    }
  }
  if (duplicates.length > 0) throw new ConfigError(duplicates);

  // A target written with a name (`role[name=Field Analyst]`) keeps the objects it meant.
  const resolvedTargets = targets.map((target) => {
    for (const [before, after] of renamed) {
      if (before.startsWith(target)) {
        const obj = objects.find((candidate) => candidate.address === before);
        const chain = names.get(after) ?? [];
        return substitute(target, (obj?.names ?? []).map((named, index) => ({ placeholder: named.placeholder, id: chain[index]?.id ?? named.placeholder })));
      }
    }
    return target;
  });
  return { objects: resolvedObjects, prunes: resolvedPrunes, targets: resolvedTargets, names };
}
