/**
 * Names instead of ids (README "Names instead of ids"): entries the config names (`id: { name:
 * Field Analyst }`) are resolved to their ids before the live read, through the NameLookup the
 * container's kind declares. Candidates come from the plan's memoised reader by the same paths
 * the kinds read anyway, so a name costs no request of its own where the API lists. A name that
 * matches no object, or several, stops the plan with a diagnostic at the name listing the
 * candidates. Nothing here knows a particular kind.
 */
import { distance } from 'fastest-levenshtein';
import { formatLocation, type Diagnostic } from '../../core/diagnostics.js';
import type { LiveReader } from '../../core/request.js';
import type { DesiredObject, NameCandidate, NamedKey, NameLookup, PruneDeclaration } from '../../kinds/toolkit/contract.js';
import { ConfigError } from '../config/errors.js';
import { DeclaredObject } from '../config/extract.js';
import type { KindSet } from '../kind-set.js';

/** A name the plan resolved: shown beside the object in the plan. */
export interface ResolvedName {
  /** What the object is (`role`, `group`). */
  noun: string;
  /** The name as declared. */
  name: Readonly<Record<string, string>>;
  id: string;
}

export interface NameResolution {
  objects: DesiredObject[];
  prunes: PruneDeclaration[];
  targets: string[];
  /** The resolved names on the way to each object, by (resolved) address. */
  names: Map<string, ResolvedName[]>;
}

/** Whether any declaration names an entry (then the plan resolves names before it reads). */
export function hasNames(objects: readonly DesiredObject[], prunes: readonly PruneDeclaration[]): boolean {
  return objects.some((obj) => obj.names !== undefined) || prunes.some((prune) => prune.names !== undefined);
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

export async function resolveNames(kinds: KindSet, objects: readonly DesiredObject[], prunes: readonly PruneDeclaration[], reader: LiveReader, targets: readonly string[]): Promise<NameResolution> {
  const lookups = new Map(kinds.kinds.flatMap((kind) => kind.names ?? []).map((lookup) => [lookup.container, lookup]));
  const candidateLists = new Map<string, Promise<NameCandidate[]>>();
  const problems = new Map<string, Diagnostic>();

  /** The id a name stands for, or undefined (with a diagnostic) when it matches none or several. */
  const resolveOne = async (named: NamedKey, ids: Readonly<Record<string, string>>): Promise<string | undefined> => {
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
    if (!list) candidateLists.set(listKey, (list = lookup.candidates(reader, parent)));
    const candidates = await list;
    const found = candidates.filter((candidate) => matches(candidate, named.fields));
    const [only] = found;
    if (only !== undefined && found.length === 1) return only.id;
    const where = formatLocation(named.source);
    if (problems.has(where)) return undefined;
    const shown = describeName(named.fields);
    if (found.length === 0) {
      const near = nearest(named.fields, candidates, lookup);
      problems.set(where, {
        severity: 'error',
        code: 'names/not-found',
        message: `No ${lookup.noun} named ${shown} on the portal${near.length ? `; the closest: ${near.map(candidateText).join('; ')}` : ` (it has no ${lookup.noun} this account can see)`}.`,
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
  const resolveChain = async (names: readonly NamedKey[], ids: Readonly<Record<string, string>>): Promise<{ ids: Record<string, string>; resolved: { container: string; placeholder: string; fields: Readonly<Record<string, string>>; id: string }[] } | undefined> => {
    const current: Record<string, string> = { ...ids };
    const resolved: { container: string; placeholder: string; fields: Readonly<Record<string, string>>; id: string }[] = [];
    for (const named of names) {
      const id = await resolveOne(named, current);
      if (id === undefined) return undefined;
      current[named.idName] = id;
      resolved.push({ container: named.container, placeholder: named.placeholder, fields: named.fields, id });
    }
    return { ids: current, resolved };
  };

  const names = new Map<string, ResolvedName[]>();
  const renamed = new Map<string, string>();
  const resolvedObjects = await Promise.all(
    objects.map(async (obj): Promise<DesiredObject> => {
      if (!obj.names) return obj;
      const chain = await resolveChain(obj.names, obj.ids);
      if (!chain) return obj;
      const address = substitute(obj.address, chain.resolved);
      renamed.set(obj.address, address);
      names.set(
        address,
        chain.resolved.map((named) => ({ noun: lookups.get(named.container)?.noun ?? named.container, name: named.fields, id: named.id })),
      );
      return obj instanceof DeclaredObject ? obj.resolved(address, chain.ids) : { ...obj, address, ids: chain.ids, source: obj.source };
    }),
  );
  const resolvedPrunes = await Promise.all(
    prunes.map(async (prune): Promise<PruneDeclaration> => {
      if (!prune.names) return prune;
      const chain = await resolveChain(prune.names, prune.ids);
      if (!chain) return prune;
      const source = prune.source;
      return { collection: substitute(prune.collection, chain.resolved), kind: prune.kind, ids: chain.ids, keys: prune.keys, source };
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
