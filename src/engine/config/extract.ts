/**
 * Stages 3 and 4 of loading: the schema check of one document, then its container entries
 * walked and the objects, prunes and portal block the kinds declare from them. Entries whose properties failed the schema are not extracted; the
 * rest still are, so one run reports everything.
 */
import fastJsonPatch from 'fast-json-patch';
import type { Diagnostic } from '../../core/diagnostics.js';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { ContainerDefinition } from '../../kinds/toolkit/containers.js';
import type { SourceLocation } from '../../core/diagnostics.js';
import type { ConfigContribution, ConfigPath, ContainerScope, DesiredObject, NamedKey, PruneDeclaration } from '../../kinds/toolkit/contract.js';
import { contributionsOf, type KindSet, type OwnedContribution } from '../kind-set.js';
import { isLimitError, schemaDiagnostics } from './schema-diagnostics.js';
import { configSchema } from './config-schema.js';
import type { JsonSchema } from '../../kinds/toolkit/contract.js';
import type { SchemaError, SchemaValidator } from './schema-validator.js';
import type { ParsedSource } from './source.js';
import { childContainers, scopeOf } from './walk.js';

const { escapePathComponent } = fastJsonPatch;

/** A document whose references are resolved (`data` defined). */
export interface ResolvedSource extends ParsedSource {
  data: JsonValue;
}

export interface CheckedSource {
  source: ResolvedSource;
  diagnostics: Diagnostic[];
  /** JSON pointers of the nodes with a schema problem (and their ancestors). */
  tainted: ReadonlySet<string>;
  /** More schema problems than are reported: nothing of the document is extracted. */
  overwhelmed?: boolean;
}

export interface DocumentDeclarations {
  /** The document's `portal:` block, when it has a valid one. */
  portal?: { value: JsonObject; source: ParsedSource };
  /** The document's `safety:` block (change thresholds per kind), when it has a valid one. */
  safety?: { value: JsonObject; source: ParsedSource };
  objects: DeclaredObject[];
  prunes: PruneDeclaration[];
}

function pointer(path: ConfigPath): string {
  return path.map((step) => `/${escapePathComponent(String(step))}`).join('');
}

export interface ContainerEntry {
  container: ContainerDefinition;
  entry: JsonObject;
  scope: ContainerScope;
  /** Path of the entry inside the document: one array shared by the whole walk, so copy it to keep it. */
  path: readonly (string | number)[];
}

/**
 * Calls `each` for every container entry of one document, parents before children, in
 * document order. The path is one array pushed and popped as the walk goes: no array per
 * entry (a large organization has tens of thousands of entries).
 */
export function forEachContainerEntry(set: KindSet, data: JsonValue | undefined, each: (entry: ContainerEntry) => void, document?: ParsedSource): void {
  if (!isObject(data)) return;
  const path: (string | number)[] = [];
  const visit = (holder: JsonObject, parentName: string | undefined, parent: ContainerScope): void => {
    for (const container of childContainers(set, parentName)) {
      const value = holder[container.field];
      path.push(container.field);
      if (container.shape === 'object') {
        const entry = value ?? null;
        if (isObject(entry)) visitEntry(container, entry, parent);
      } else if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index += 1) {
          const entry = value[index];
          if (!isObject(entry)) continue;
          path.push(index);
          visitEntry(container, entry, parent);
          path.pop();
        }
      }
      path.pop();
    }
  };
  const visitEntry = (container: ContainerDefinition, entry: JsonObject, parent: ContainerScope): void => {
    // A named key is located on demand, at a copy of the path (the walk's path changes).
    const keyPath = document && container.key && isObject(entry[container.key.property]) ? [...path, container.key.property] : undefined;
    const scope = scopeOf(container, entry, parent, keyPath && document ? () => document.locate(keyPath, { key: true }) : undefined);
    if (!scope) return;
    each({ container, entry, scope, path });
    visit(entry, container.name, scope);
  };
  // Container nesting is a handful of levels (collaboration > workspace), so recursion is bounded.
  visit(data, undefined, { address: '', ids: {} });
}

/**
 * The paths of a document's container entries in walk order, built on the first location asked
 * of the document: a declared object keeps only its entry's number, and most never need a path.
 */
class EntryPaths {
  #entries: { path: ConfigPath; container: string; address: string }[] | undefined;

  constructor(
    private readonly kinds: KindSet,
    private readonly data: JsonValue,
  ) {}

  #all(): { path: ConfigPath; container: string; address: string }[] {
    if (!this.#entries) {
      const entries: { path: ConfigPath; container: string; address: string }[] = [];
      forEachContainerEntry(this.kinds, this.data, ({ path, container, scope }) => void entries.push({ path: [...path], container: container.name, address: scope.address }));
      this.#entries = entries;
    }
    return this.#entries;
  }

  of(index: number): ConfigPath {
    return this.#all()[index]?.path ?? [];
  }

  /** The entry of `container` that holds entry `index` (or is it): parents come before their children in walk order. */
  enclosing(index: number, container: string): { path: ConfigPath; address: string } | undefined {
    const entries = this.#all();
    const own = entries[index];
    if (!own) return undefined;
    for (let at = index; at >= 0; at -= 1) {
      const entry = entries[at];
      if (entry?.container === container && entry.path.every((step, depth) => own.path[depth] === step)) return entry;
    }
    return undefined;
  }
}

function taintOf(errors: readonly SchemaError[], schema: JsonSchema): Set<string> {
  const tainted = new Set<string>();
  for (const error of errors) {
    // Unknown properties do not hurt extraction: kinds read only the properties they own.
    if (error.keyword === 'additionalProperties' || error.keyword === 'propertyNames' || error.keyword === 'if' || error.schemaPath.includes('/propertyNames/')) continue;
    // Nor does a value past a limit: the value has its type, and the kind's rule check says what is wrong with it.
    if (isLimitError(error, schema)) continue;
    const steps = error.instancePath.split('/');
    for (let length = 1; length <= steps.length; length += 1) tainted.add(steps.slice(0, length).join('/'));
  }
  return tainted;
}

/**
 * Schema problems reported per document. Aliases (or a long list) can repeat one mistake a
 * million times; past this many, the rest are counted, not located and described, so the
 * cost of a broken document stays that of reading it.
 */
export const maxSchemaProblems = 1000;

/**
 * A plan saved by `plan --out` given where a config goes (`apply plan.json` for `apply --plan
 * plan.json`): said in one line instead of a schema problem for each of its fields. By its
 * fields, without the plan room's reader, which sits above this one.
 */
function savedPlanGivenAsConfig(source: ResolvedSource): Diagnostic | undefined {
  const data = source.data;
  if (!isObject(data) || 'version' in data || typeof data['formatVersion'] !== 'number' || typeof data['basisDigest'] !== 'string' || !Array.isArray(data['operations'])) return undefined;
  return {
    severity: 'error',
    code: 'source/saved-plan',
    message: `This is a plan saved by \`portalctl plan --out\`, not a config: apply it with \`portalctl apply --plan ${source.file}\`, or read it with \`portalctl show ${source.file}\`.`,
    location: { file: source.file, line: 1, column: 1 },
    expected: 'a config file (version: 1, portal:, and the settings to manage)',
  };
}

export function checkSchema(source: ResolvedSource, validate: SchemaValidator, kinds: KindSet, errors = validate(source.data)): CheckedSource {
  const savedPlan = savedPlanGivenAsConfig(source);
  if (savedPlan) return { source, diagnostics: [savedPlan], tainted: new Set(), overwhelmed: true };
  if (errors.length <= maxSchemaProblems) return { source, diagnostics: schemaDiagnostics(errors, source, kinds), tainted: taintOf(errors, configSchema(kinds)) };
  const diagnostics = schemaDiagnostics(errors.slice(0, maxSchemaProblems), source, kinds);
  diagnostics.push({
    severity: 'error',
    code: 'schema/too-many-problems',
    // The validator's findings are not the problems listed: an id that is neither of its two forms is three findings, one problem.
    message: `The file has too many schema problems to list: the ${diagnostics.length.toLocaleString('en-US')} in the first ${maxSchemaProblems.toLocaleString('en-US')} of the validator's ${errors.length.toLocaleString('en-US')} findings are listed, and nothing else of the file is checked.`,
    location: { file: source.file, line: 1, column: 1 },
    expected: 'fix the problems listed, then validate again',
  });
  return { source, diagnostics, tainted: new Set(), overwhelmed: true };
}

/**
 * A declared object that knows where it is declared and locates itself on first use: a JSON
 * file is re-parsed for positions, and a YAML file parsed position-aware, only when a location
 * is needed. One instance per object, with no closure and no side table, since a large
 * organization declares tens of thousands of objects.
 */
export class DeclaredObject implements DesiredObject {
  destructive = false;
  #location: SourceLocation | undefined;

  constructor(
    readonly kind: string,
    readonly address: string,
    readonly ids: Readonly<Record<string, string>>,
    readonly value: JsonValue,
    readonly absent: boolean,
    /** The document the object is declared in. */
    readonly document: ParsedSource,
    /** The paths of the document's container entries, and the number of this object's entry among them. */
    private readonly entries: EntryPaths,
    private readonly entryIndex: number,
    /** Path of the declaration relative to the entry. */
    private readonly declaredPath: ConfigPath,
    /** The named entries on the way to it (README "Names instead of ids"). */
    readonly names?: readonly NamedKey[],
  ) {}

  /** The same declaration with its names resolved: the address, ids and value (where it refers to others by name) with real ids. */
  resolved(address: string, ids: Readonly<Record<string, string>>, value: JsonValue = this.value): DeclaredObject {
    const copy = new DeclaredObject(this.kind, address, ids, value, this.absent, this.document, this.entries, this.entryIndex, this.declaredPath);
    copy.destructive = this.destructive;
    return copy;
  }

  get source(): SourceLocation {
    return (this.#location ??= this.locate([]));
  }

  /** Where a part of the declaration sits (`path` relative to the declaration). */
  locate(path: ConfigPath): SourceLocation {
    return this.document.locate([...this.entries.of(this.entryIndex), ...this.declaredPath, ...path]);
  }

  /** The entry of `container` the object is declared in (its collaboration): its address and where it is declared. */
  enclosing(container: string): { address: string; source: SourceLocation } | undefined {
    const entry = this.entries.enclosing(this.entryIndex, container);
    return entry && { address: entry.address, source: this.document.locate(entry.path) };
  }

  /** Plain data: the object's own fields and its location, never the document it points into. */
  toJSON(): Omit<DesiredObject, 'source'> & { source: SourceLocation } {
    return { kind: this.kind, address: this.address, ids: this.ids, value: this.value, absent: this.absent, destructive: this.destructive, source: this.source };
  }
}

/** A prune declaration located on first use, like objects. */
function declaredPrune(declared: Omit<PruneDeclaration, 'source'>, document: ParsedSource, path: ConfigPath): PruneDeclaration {
  let location: SourceLocation | undefined;
  return {
    ...declared,
    get source() {
      return (location ??= document.locate(path, { key: true }));
    },
  };
}

/** A container's contributions, computed once per kind set (they were recomputed for every entry). */
const contributionCache = new WeakMap<KindSet, Map<string, OwnedContribution[]>>();
function cachedContributions(kinds: KindSet, container: string): OwnedContribution[] {
  let byContainer = contributionCache.get(kinds);
  if (!byContainer) contributionCache.set(kinds, (byContainer = new Map()));
  let owned = byContainer.get(container);
  if (!owned) byContainer.set(container, (owned = contributionsOf(kinds, container)));
  return owned;
}

/** Whether the schema check tainted a property a contribution reads in the entry at `path`. */
function isTainted(tainted: ReadonlySet<string>, path: ConfigPath, contribution: OwnedContribution['contribution'], entry: JsonObject): boolean {
  const entryPointer = pointer(path);
  if (contribution.variantKey !== undefined) return entry[contribution.variantKey] === undefined || tainted.has(entryPointer);
  return Object.keys(contribution.properties).some((name) => tainted.has(`${entryPointer}${pointer([name])}`));
}

/** Everything one schema-checked document declares, in document order. */
export function extractDeclarations(checked: CheckedSource, kinds: KindSet): DocumentDeclarations {
  const { source, tainted } = checked;
  const found: DocumentDeclarations = { objects: [], prunes: [] };
  if (checked.overwhelmed) return found;
  if (isObject(source.data) && isObject(source.data['portal']) && !tainted.has('/portal')) found.portal = { value: source.data['portal'], source };
  if (isObject(source.data) && isObject(source.data['safety']) && !tainted.has('/safety')) found.safety = { value: source.data['safety'], source };
  // One collector per document, not per entry: the entry it serves is set before each extract.
  const entries = new EntryPaths(kinds, source.data);
  let entryIndex = -1;
  let entryPath: readonly (string | number)[] = [];
  let kindName = '';
  let names: readonly NamedKey[] | undefined;
  const declare: Parameters<ConfigContribution['extract']>[2] = {
    object: ({ address, ids, value, absent, path }) => void found.objects.push(new DeclaredObject(kindName, address, ids, value, absent, source, entries, entryIndex, path, names)),
    prune: ({ path: prunePath, ...rest }) => void found.prunes.push(declaredPrune({ ...rest, ...(names ? { names } : {}) }, source, [...entryPath, ...prunePath])),
  };
  forEachContainerEntry(kinds, source.data, ({ container, entry, scope, path }) => {
    names = scope.names;
    // Counted for every entry, as EntryPaths counts them.
    entryIndex += 1;
    for (const { kind, contribution } of cachedContributions(kinds, container.name)) {
      // Without schema problems (the usual case) no pointer is built at all.
      if (contribution.variantKey !== undefined ? entry[contribution.variantKey] === undefined : false) continue;
      if (tainted.size > 0 && isTainted(tainted, path, contribution, entry)) continue;
      entryPath = path;
      kindName = kind;
      // The kind's declarations are collected here and merged across files by load.ts.
      contribution.extract(entry, scope, declare);
    }
  }, source);
  return found;
}
