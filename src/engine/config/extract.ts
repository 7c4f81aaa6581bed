/**
 * Stages 3 and 4 of loading: the schema check of one document, then its container entries
 * walked and the objects, prunes and portal block the kinds declare from them. Entries whose properties failed the schema are not extracted; the
 * rest still are, so one run reports everything.
 */
import fastJsonPatch from 'fast-json-patch';
import type { Diagnostic } from '../../core/diagnostics.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { ContainerDefinition } from '../../kinds/containers.js';
import type { ConfigPath, ContainerScope, Declarations, DesiredObject, PruneDeclaration } from '../../kinds/contract.js';
import { contributionsOf, type KindSet } from '../registry.js';
import { schemaDiagnostics } from './schema-diagnostics.js';
import type { SchemaError, SchemaValidator } from './schema-validator.js';
import type { ParsedSource } from './source.js';
import { childContainers, isObject, scopeOf } from './walk.js';

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
}

/** Where an object is declared: its document and the path inside it. */
export interface Origin {
  source: ParsedSource;
  path: ConfigPath;
}

export interface DeclaredObject {
  object: DesiredObject;
  origin: Origin;
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
  /** Path of the entry inside the document. */
  path: (string | number)[];
}

/** Every container entry of one document, parents before children, in document order. */
export function containerEntries(set: KindSet, data: JsonValue | undefined): ContainerEntry[] {
  const entries: ContainerEntry[] = [];
  if (!isObject(data)) return entries;
  const visit = (holder: JsonObject, parentName: string | undefined, parent: ContainerScope, parentPath: (string | number)[]): void => {
    for (const container of childContainers(set, parentName)) {
      const value = holder[container.field];
      const candidates: [JsonValue, (string | number)[]][] =
        container.shape === 'object'
          ? [[value ?? null, [...parentPath, container.field]]]
          : Array.isArray(value)
            ? value.map((element, index) => [element, [...parentPath, container.field, index]])
            : [];
      for (const [entry, path] of candidates) {
        if (!isObject(entry)) continue;
        const scope = scopeOf(container, entry, parent);
        if (!scope) continue;
        entries.push({ container, entry, scope, path });
        visit(entry, container.name, scope, path);
      }
    }
  };
  // Container nesting is a handful of levels (collaboration > workspace), so recursion is bounded.
  visit(data, undefined, { address: '', ids: {} }, []);
  return entries;
}

function taintOf(errors: readonly SchemaError[]): Set<string> {
  const tainted = new Set<string>();
  for (const error of errors) {
    // Unknown properties do not hurt extraction: kinds read only the properties they own.
    if (error.keyword === 'additionalProperties' || error.keyword === 'propertyNames' || error.keyword === 'if' || error.schemaPath.includes('/propertyNames/')) continue;
    const steps = error.instancePath.split('/');
    for (let length = 1; length <= steps.length; length += 1) tainted.add(steps.slice(0, length).join('/'));
  }
  return tainted;
}

export function checkSchema(source: ResolvedSource, validate: SchemaValidator, kinds: KindSet): CheckedSource {
  const errors = validate(source.data);
  return { source, diagnostics: schemaDiagnostics(errors, source, kinds), tainted: taintOf(errors) };
}

function declaredObject(kind: string, declared: Parameters<Declarations['object']>[0], source: ParsedSource, entryPath: ConfigPath): DeclaredObject {
  const path = [...entryPath, ...declared.path];
  let location: DesiredObject['source'] | undefined;
  const object: DesiredObject = {
    kind,
    address: declared.address,
    ids: declared.ids,
    value: declared.value,
    absent: declared.absent,
    destructive: false,
    // Located on first use: a JSON file is re-parsed for positions only when one is needed.
    get source() {
      return (location ??= source.locate(path));
    },
  };
  return { object, origin: { source, path } };
}

/** Everything one schema-checked document declares, in document order. */
export function extractDeclarations(checked: CheckedSource, kinds: KindSet): DocumentDeclarations {
  const { source, tainted } = checked;
  const found: DocumentDeclarations = { objects: [], prunes: [] };
  if (isObject(source.data) && isObject(source.data['portal']) && !tainted.has('/portal')) found.portal = { value: source.data['portal'], source };
  if (isObject(source.data) && isObject(source.data['safety']) && !tainted.has('/safety')) found.safety = { value: source.data['safety'], source };
  for (const { container, entry, scope, path } of containerEntries(kinds, source.data)) {
    const entryPointer = pointer(path);
    for (const { kind, contribution } of contributionsOf(kinds, container.name)) {
      const skip =
        contribution.variantKey !== undefined
          ? entry[contribution.variantKey] === undefined || tainted.has(entryPointer)
          : Object.keys(contribution.properties).some((name) => tainted.has(`${entryPointer}${pointer([name])}`));
      if (skip) continue;
      // The kind's declarations are collected here and merged across files by merge.ts.
      contribution.extract(entry, scope, {
        object: (declared) => void found.objects.push(declaredObject(kind, declared, source, path)),
        prune: ({ path: prunePath, ...rest }) => void found.prunes.push({ ...rest, source: source.locate([...path, ...prunePath], { key: true }) }),
      });
    }
  }
  return found;
}
