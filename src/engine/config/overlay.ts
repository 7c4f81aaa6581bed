/**
 * Overlays (README "Environments"): an environment's overlay files are merged over the base
 * documents before the schema check, so every later stage sees one config. The merge:
 *
 * - maps merge key by key;
 * - lists of keyed objects merge by key: a list of the config's containers by its key (`id`,
 *   `username`, ...), any other list of objects by the first of KEY_FIELDS its elements carry;
 * - everything else (text, numbers, lists of texts) replaces;
 * - `$patch: delete` removes a map key or (beside its key) a list element; `$patch: replace` on a
 *   map, or a `{$patch: replace}` element in a list, replaces instead of merging (the markers of
 *   Kubernetes' strategic merge patch).
 *
 * The base may be several files: an overlay's value goes into the file that declares what it
 * changes (an entry split over two files gets each field where that field is), and what no base
 * file declares goes into the first one. Each merged document keeps, per node, where its value
 * was written (Origin), so `locate` and with it every diagnostic points at the winning file,
 * line and column.
 */
import { formatLocation, type Diagnostic, type SourceLocation } from '../../core/diagnostics.js';
import { canonicalJson, isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { ContainerDefinition } from '../../kinds/toolkit/containers.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import type { ParsedSource, WrittenScalar } from './source.js';

export const PATCH_KEY = '$patch';
/** Fields that identify an element of a list of objects outside the containers, in this order. */
export const KEY_FIELDS = ['id', 'username', 'portalId', 'guestPortalUrl', 'key', 'title', 'name'] as const;

/** Where a node of a merged document was written: a source and the path inside it. Children are recorded only where the merge changed something. */
export class Origin {
  #children: Map<string | number, Origin> | undefined;
  /** Where the overlay that deleted this list's or mapping's last entry says so: the node is located there while it stays empty. */
  #emptiedAt: { origin: Origin; path: ConfigPath } | undefined;

  constructor(
    readonly source: ParsedSource,
    readonly path: ConfigPath,
  ) {}

  /** The child's origin: recorded, else the same source one step further. */
  child(step: string | number): Origin {
    return this.#children?.get(step) ?? new Origin(this.source, [...this.path, step]);
  }

  /** The child's origin, recorded so that changes below it can be recorded too. */
  own(step: string | number): Origin {
    const found = this.#children?.get(step);
    if (found) return found;
    const created = new Origin(this.source, [...this.path, step]);
    (this.#children ??= new Map()).set(step, created);
    return created;
  }

  set(step: string | number, origin: Origin): void {
    (this.#children ??= new Map()).set(step, origin);
    this.#emptiedAt = undefined;
  }

  /**
   * The node was emptied by the `$patch: delete` at `path` of `origin`: a problem with the empty
   * node (an empty category schema) is that line's, not the base's that declared it full.
   */
  emptiedBy(origin: Origin, path: ConfigPath): void {
    this.#emptiedAt = { origin, path };
  }

  delete(step: string | number): void {
    this.#children?.delete(step);
  }

  /** A list's element at `index` removed: the later elements' origins move up one place. */
  removeIndex(index: number, length: number): void {
    for (let position = 0; position < length; position += 1) this.own(position);
    for (let position = index; position < length - 1; position += 1) this.set(position, this.child(position + 1));
    this.delete(length - 1);
  }

  /** Replaces every child of a list by `origins`. */
  resetList(origins: readonly Origin[]): void {
    this.#children = new Map(origins.map((origin, index) => [index, origin]));
  }

  /** Where the node at `path` (relative to this one) was written. */
  locate(path: ConfigPath, options?: { key?: boolean }): SourceLocation {
    if (path.length === 0 && this.#emptiedAt) return this.#emptiedAt.origin.locate(this.#emptiedAt.path, { key: true });
    const next = path.length > 0 ? this.#children?.get(path[0] as string | number) : undefined;
    if (next) return next.locate(path.slice(1), options);
    return this.source.locate([...this.path, ...path], options);
  }

  /** How the scalar at `path` (relative to this node) is written, in the file that wrote it. */
  scalarAt(path: ConfigPath): WrittenScalar | undefined {
    const next = path.length > 0 ? this.#children?.get(path[0] as string | number) : undefined;
    if (next) return next.scalarAt(path.slice(1));
    return this.source.scalarAt?.([...this.path, ...path]);
  }
}

/** One overlay layer: its data and where that data was written. */
export interface OverlayLayer {
  data: JsonObject;
  origin: Origin;
}

/** A base document being merged into: its data (changed in place) and the origin of its root. */
export interface BaseDocument {
  data: JsonObject;
  origin: Origin;
}

interface MapTarget {
  map: JsonObject;
  origin: Origin;
}

interface ListTarget {
  list: JsonValue[];
  origin: Origin;
}

/** How elements of the list at `path` are told apart: a container's key, else the first of KEY_FIELDS an element has. */
type ListKey = (element: JsonValue) => string | undefined;

const hasOwn = (map: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(map, key);

function patchOf(value: JsonValue | undefined): JsonValue | undefined {
  return isObject(value) && hasOwn(value, PATCH_KEY) ? value[PATCH_KEY] : undefined;
}

const isReplaceMarker = (element: JsonValue): boolean => isObject(element) && Object.keys(element).length === 1 && element[PATCH_KEY] === 'replace';

export class OverlayMerge {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly containers: readonly ContainerDefinition[]) {}

  /** Merges one layer over the base documents (changed in place). */
  apply(bases: readonly BaseDocument[], layer: OverlayLayer): void {
    if (bases.length === 0) {
      this.problem(layer.origin, [], 'overlay/no-base', 'An overlay needs a base: the paths name no base config file.', 'a base config file or directory');
      return;
    }
    this.mergeMap(bases.map((base) => ({ map: base.data, origin: base.origin })), layer.data, layer.origin, []);
  }

  private problem(origin: Origin, path: ConfigPath, code: string, message: string, expected: string, severity: Diagnostic['severity'] = 'error'): void {
    this.diagnostics.push({ severity, code, message, location: origin.locate(path, { key: true }), expected });
  }

  private mergeMap(targets: readonly MapTarget[], overlay: JsonObject, from: Origin, path: ConfigPath): void {
    for (const key of Object.keys(overlay)) {
      if (key === PATCH_KEY) continue;
      const value = overlay[key] as JsonValue;
      const valueFrom = from.child(key);
      const keyPath = [...path, key];
      const having = targets.filter((target) => hasOwn(target.map, key));
      const patch = patchOf(value);
      if (patch !== undefined && patch !== 'delete' && patch !== 'replace') {
        this.problem(valueFrom, [PATCH_KEY], 'overlay/patch-value', `$patch takes delete or replace, not ${JSON.stringify(patch)}.`, '$patch: delete or $patch: replace');
        continue;
      }
      if (patch === 'delete') {
        if (having.length === 0) this.problem(valueFrom, [], 'overlay/nothing-to-delete', `$patch: delete on ${describe(keyPath)}, which the base does not declare.`, 'a key the base declares', 'warning');
        for (const target of having) {
          delete target.map[key];
          target.origin.delete(key);
          if (Object.keys(target.map).length === 0) target.origin.emptiedBy(valueFrom, [PATCH_KEY]);
        }
        continue;
      }
      if (having.length === 0) {
        const first = targets[0] as MapTarget;
        const placed = this.placed(value, valueFrom);
        first.map[key] = placed.value;
        first.origin.set(key, placed.origin);
        continue;
      }
      const current = having.map((target) => target.map[key] as JsonValue);
      if (isObject(value) && patch === undefined && current.every(isObject)) {
        this.mergeMap(having.map((target) => ({ map: target.map[key] as JsonObject, origin: target.origin.own(key) })), value, valueFrom, keyPath);
        continue;
      }
      const listKey = Array.isArray(value) && current.every(Array.isArray) ? this.listKey(keyPath, [value, ...(current as JsonValue[][])]) : undefined;
      if (listKey && Array.isArray(value) && !value.some(isReplaceMarker)) {
        this.mergeList(having.map((target) => ({ list: target.map[key] as JsonValue[], origin: target.origin.own(key) })), value, valueFrom, listKey);
        continue;
      }
      // Replaced. A scalar (like `version`) in every file that declares it; a list or mapping in the
      // first one, and the others' declarations of it go (else its entries would be there twice).
      const placed = this.placed(value, valueFrom);
      const collection = typeof placed.value === 'object' && placed.value !== null;
      having.forEach((target, index) => {
        if (index === 0 || !collection) {
          target.map[key] = placed.value;
          target.origin.set(key, placed.origin);
        } else {
          delete target.map[key];
          target.origin.delete(key);
        }
      });
    }
  }

  private mergeList(targets: readonly ListTarget[], overlay: readonly JsonValue[], from: Origin, keyOf: ListKey): void {
    // Where each key was first given in this list: given twice, the second would silently merge over the first.
    const given = new Map<string, Origin>();
    overlay.forEach((element, index) => {
      const elementFrom = from.child(index);
      const key = keyOf(element) as string;
      if (patchOf(element) !== 'delete') {
        const first = given.get(key);
        if (first) {
          this.problem(elementFrom, [], 'overlay/duplicate-element', `The element ${key} is given twice in this overlay's list: here and at ${formatLocation(first.locate([], { key: true }))}.`, 'each element once per list, as in the base');
          return;
        }
        given.set(key, elementFrom);
      }
      const matches = targets.flatMap((target) => {
        const position = target.list.findIndex((candidate) => keyOf(candidate) === key);
        return position === -1 ? [] : [{ target, position }];
      });
      const patch = patchOf(element);
      if (patch !== undefined && patch !== 'delete') {
        this.problem(elementFrom, [PATCH_KEY], 'overlay/patch-value', `In a list, $patch takes delete (beside the element's key), not ${JSON.stringify(patch)}; { $patch: replace } alone replaces the list.`, '$patch: delete');
        return;
      }
      if (patch === 'delete') {
        if (matches.length === 0) this.problem(elementFrom, [], 'overlay/nothing-to-delete', `$patch: delete on the element ${key}, which the base does not declare.`, 'an element the base declares', 'warning');
        for (const { target, position } of matches) {
          const length = target.list.length;
          target.list.splice(position, 1);
          target.origin.removeIndex(position, length);
          if (target.list.length === 0) target.origin.emptiedBy(elementFrom, [PATCH_KEY]);
        }
        return;
      }
      if (matches.length === 0) {
        const first = targets[0] as ListTarget;
        const placed = this.placed(element, elementFrom);
        for (let position = 0; position < first.list.length; position += 1) first.origin.own(position);
        first.list.push(placed.value);
        first.origin.set(first.list.length - 1, placed.origin);
        return;
      }
      // One entry split over several files merges as one: each field goes where it is declared.
      if (isObject(element) && matches.every(({ target, position }) => isObject(target.list[position]))) {
        this.mergeMap(matches.map(({ target, position }) => ({ map: target.list[position] as JsonObject, origin: target.origin.own(position) })), element, elementFrom, []);
        return;
      }
      const placed = this.placed(element, elementFrom);
      for (const { target, position } of matches) {
        target.list[position] = placed.value;
        target.origin.set(position, placed.origin);
      }
    });
  }

  /**
   * A value taken whole from an overlay (added or replacing): a `$patch: replace` marker is
   * consumed; any other marker inside it means nothing there and is refused.
   */
  private placed(value: JsonValue, from: Origin): { value: JsonValue; origin: Origin } {
    if (Array.isArray(value) && value.some(isReplaceMarker)) {
      const kept: JsonValue[] = [];
      const origins: Origin[] = [];
      value.forEach((element, index) => {
        if (isReplaceMarker(element)) return;
        kept.push(this.withoutMarkers(element, from.child(index)));
        origins.push(from.child(index));
      });
      const origin = new Origin(from.source, from.path);
      origin.resetList(origins);
      return { value: kept, origin };
    }
    if (isObject(value) && value[PATCH_KEY] === 'replace') {
      const { [PATCH_KEY]: _marker, ...rest } = value;
      return { value: this.withoutMarkers(rest, from), origin: from };
    }
    return { value: this.withoutMarkers(value, from), origin: from };
  }

  private withoutMarkers(value: JsonValue, from: Origin): JsonValue {
    if (Array.isArray(value)) return value.map((element, index) => this.withoutMarkers(element, from.child(index)));
    if (!isObject(value)) return value;
    const copy: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === PATCH_KEY) {
        this.problem(from, [PATCH_KEY], 'overlay/patch-misplaced', `$patch here changes nothing: the base does not declare this ${Array.isArray(child) ? 'list' : 'value'}, so it is added as written.`, 'no $patch inside a value the overlay adds');
        continue;
      }
      copy[key] = this.withoutMarkers(child, from.child(key));
    }
    return copy;
  }

  /** How the elements of the list at `path` are keyed, or undefined when they are not (then the list replaces). */
  private listKey(path: ConfigPath, lists: readonly (readonly JsonValue[])[]): ListKey | undefined {
    const property = containerKeyAt(this.containers, path);
    const elements = lists.flat().filter((element) => !isReplaceMarker(element));
    if (property !== undefined) {
      const keyOf: ListKey = (element) => (isObject(element) && element[property] !== undefined ? `${property}=${canonicalJson(element[property] as JsonValue)}` : undefined);
      return elements.every((element) => keyOf(element) !== undefined) ? keyOf : undefined;
    }
    const keyOf: ListKey = (element) => {
      if (!isObject(element)) return undefined;
      const field = KEY_FIELDS.find((name) => element[name] !== undefined && element[name] !== null);
      return field === undefined ? undefined : `${field}=${canonicalJson(element[field] as JsonValue)}`;
    };
    return elements.length > 0 && elements.every((element) => keyOf(element) !== undefined) ? keyOf : undefined;
  }
}

/** The key property of the container list at `path` (`groups`, `collaborations[0].workspaces`); undefined elsewhere. */
export function containerKeyAt(containers: readonly ContainerDefinition[], path: ConfigPath): string | undefined {
  let parent: string | undefined;
  let index = 0;
  while (index < path.length) {
    const step = path[index];
    const container = containers.find((candidate) => candidate.parent === parent && candidate.field === step);
    if (!container) return undefined;
    if (index === path.length - 1) return container.shape === 'list' ? container.key?.property : undefined;
    index += container.shape === 'list' ? 2 : 1;
    parent = container.name;
  }
  return undefined;
}

function describe(path: ConfigPath): string {
  return path.map((step, index) => (typeof step === 'number' ? `[${step}]` : `${index === 0 ? '' : '.'}${step}`)).join('');
}

/** A merged document: the base source with the merged data, locating each node where its winning value was written. */
export function layeredSource(base: ParsedSource & { data: JsonValue }, origin: Origin): ParsedSource & { data: JsonValue } {
  return {
    file: base.file,
    data: base.data,
    diagnostics: base.diagnostics,
    locate: (path, options) => origin.locate(path, options),
    scalarAt: (path) => origin.scalarAt(path),
  };
}
