/**
 * The config's containers (src/kinds/toolkit/containers.ts) as a path is walked: the address a path
 * inside the document belongs to (for schema diagnostics).
 */
import type { ContainerDefinition } from '../../kinds/toolkit/containers.js';
import type { ConfigContribution, ConfigPath, ContainerScope, NamedKey } from '../../kinds/toolkit/contract.js';
import type { SourceLocation } from '../../core/diagnostics.js';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { contributionsOf, type KindSet, type OwnedContribution } from '../kind-set.js';

/** Per kind set, the child containers of each parent: asked for every entry of a large document. */
const childrenCache = new WeakMap<KindSet, Map<string | undefined, ContainerDefinition[]>>();

export function childContainers(set: KindSet, parent: string | undefined): readonly ContainerDefinition[] {
  let byParent = childrenCache.get(set);
  if (!byParent) childrenCache.set(set, (byParent = new Map()));
  let children = byParent.get(parent);
  if (!children) byParent.set(parent, (children = set.containers.filter((container) => container.parent === parent)));
  return children;
}

/**
 * What stands for a named entry's id until the plan resolves it (README "Names instead of ids"):
 * its fields as written, `name=Field Analyst`, `title=Parcels,owner=jdoe`; undefined when a
 * field is not a text (a schema error).
 */
export function namePlaceholder(name: JsonObject): string | undefined {
  const entries = Object.entries(name);
  if (entries.length === 0 || entries.some(([, value]) => typeof value !== 'string' || value === '')) return undefined;
  return entries.map(([field, value]) => `${field}=${String(value)}`).join(',');
}

/**
 * Scope of the entry `entry` of `container`, or undefined when its key is missing (a schema
 * error). A key given as a name gets a placeholder id, and the name is remembered in the scope,
 * located at `locateKey()` (the entry's key property) when asked.
 */
export function scopeOf(container: ContainerDefinition, entry: JsonObject, parent: ContainerScope, locateKey?: () => SourceLocation): ContainerScope | undefined {
  if (!container.key) return withNames({ address: container.address(undefined, parent.address), ids: parent.ids }, parent);
  const key = entry[container.key.property];
  if (isObject(key)) {
    const placeholder = namePlaceholder(key);
    if (placeholder === undefined) return undefined;
    const ids: Record<string, string> = { ...parent.ids };
    ids[container.key.idName] = placeholder;
    let location: SourceLocation | undefined;
    const named: NamedKey = {
      container: container.name,
      idName: container.key.idName,
      fields: Object.fromEntries(Object.entries(key).map(([field, value]) => [field, String(value)])),
      placeholder,
      get source() {
        return (location ??= locateKey?.() ?? { file: '', line: 1, column: 1 });
      },
    };
    return { address: container.address(placeholder, parent.address), ids, names: [...(parent.names ?? []), named] };
  }
  if (typeof key !== 'string' || key === '') return undefined;
  // Copied, then the id set: a computed key beside a spread in one literal is several times slower.
  const ids: Record<string, string> = { ...parent.ids };
  ids[container.key.idName] = key;
  return withNames({ address: container.address(key, parent.address), ids }, parent);
}

/** The parent's named entries carried into a child's scope (no spread per entry: a large organization has tens of thousands). */
function withNames(scope: ContainerScope, parent: ContainerScope): ContainerScope {
  if (parent.names) scope.names = parent.names;
  return scope;
}

/** The variant contribution an entry of a variant container uses (by its variant key), if any. */
export function variantOf(entry: JsonObject, contributions: readonly OwnedContribution[]): OwnedContribution | undefined {
  return contributions.find(({ contribution }) => contribution.variantKey !== undefined && entry[contribution.variantKey] !== undefined);
}

/** Address of the managed object (or container entry) that the node at `path` belongs to. */
export function addressForPath(set: KindSet, data: JsonValue | undefined, path: ConfigPath): string | undefined {
  let holder = data;
  let parentName: string | undefined;
  let scope: ContainerScope | undefined;
  let index = 0;
  while (index < path.length && isObject(holder)) {
    const field = path[index];
    const container = childContainers(set, parentName).find((candidate) => candidate.field === field);
    if (container) {
      let entry: JsonValue | undefined;
      if (container.shape === 'object') {
        entry = holder[container.field];
        index += 1;
      } else {
        const list = holder[container.field];
        const position = path[index + 1];
        if (!Array.isArray(list) || typeof position !== 'number') return scope?.address;
        entry = list[position];
        index += 2;
      }
      if (!isObject(entry)) return scope?.address;
      const next = scopeOf(container, entry, scope ?? { address: '', ids: {} });
      if (!next) return scope?.address;
      scope = next;
      holder = entry;
      parentName = container.name;
      continue;
    }
    if (!scope || parentName === undefined) return undefined;
    const rest = path.slice(index);
    const owned = contributionsOf(set, parentName);
    const variant = variantOf(holder, owned);
    const owner =
      owned.find(({ contribution }) => contribution.variantKey === undefined && contribution.properties[String(field)] !== undefined) ??
      (variant && variant.contribution.properties[String(field)] !== undefined ? variant : undefined);
    if (!owner) return variant ? addressOf(variant.contribution, holder, scope, rest) : scope.address;
    return addressOf(owner.contribution, holder, scope, rest);
  }
  if (scope && parentName !== undefined && isObject(holder)) {
    const variant = variantOf(holder, contributionsOf(set, parentName));
    if (variant) return addressOf(variant.contribution, holder, scope, []);
  }
  return scope?.address;
}

function addressOf(contribution: ConfigContribution, entry: JsonObject, scope: ContainerScope, rest: ConfigPath): string {
  if (contribution.addressOf) return contribution.addressOf(entry, scope, rest);
  return rest.length > 0 ? `${scope.address}.${String(rest[0])}` : scope.address;
}
