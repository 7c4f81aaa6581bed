/**
 * A positioned YAML document as plain data, with its aliases expanded under a bound on the size
 * of the result. The `yaml` package's own `toJS` bounds the number of aliases, not the work: 99
 * aliases of a list of 1,000 words passed its limit and made a document of 99,000 nodes that
 * validation then walked for seconds, and its alias lookup scans the document once per alias.
 * Here each alias costs O(1): it is looked up in a map of the anchors seen so far, its value is
 * the anchored node's data (shared, as `toJS` shares it) and its size the anchored node's
 * expanded size, computed once. The running size of the expanded document is checked as each
 * node and each alias is added, so the walk is linear in the written document, and everything
 * after it (references, schema, extraction) is linear in the expanded size, which this bounds.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, stringify, type Alias, type Document } from 'yaml';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';

/** The expanded document passed `limit` nodes at `alias` (or at the node that crossed it). */
export class ExpandedSizeExceeded extends Error {
  constructor(
    readonly limit: number,
    /** Offset of the alias (or node) whose expansion crossed the limit. */
    readonly offset: number,
  ) {
    super(`The document expands to more than ${limit} nodes.`);
  }
}

/** An alias whose anchor is not set before it (at `offset`). */
export class UnresolvedAlias extends Error {
  constructor(
    readonly aliasName: string,
    readonly offset: number,
  ) {
    super(`Unresolved alias (the anchor must be set before the alias): ${aliasName}`);
  }
}

/** An alias that names a node it stands inside: its expansion would never end. */
export class RecursiveAlias extends Error {
  constructor(
    readonly aliasName: string,
    readonly offset: number,
  ) {
    super(`The alias *${aliasName} stands inside the node it names.`);
  }
}

interface Anchored {
  data: JsonValue;
  /** Nodes of its expansion; undefined while the node is still being read. */
  size: number | undefined;
}

const mergeTag = 'tag:yaml.org,2002:merge';

function isPlainMergeKey(key: unknown): boolean {
  if (!isScalar(key) || (key.type !== undefined && key.type !== 'PLAIN')) return false;
  const value: unknown = key.value;
  return value === '<<' || (typeof value === 'symbol' && value.description === '<<');
}

/**
 * The document's data, every scalar, list, mapping and mapping key counting one node and an
 * alias as many as the node it names. A list or mapping used as a key (`? [a, b]`, `{x: 1}: 2`)
 * becomes its text (`[ a, b ]`), as in `toJS`; with `onCollectionKey`, its pair is left out and
 * the key reported (its offset and that text) instead. Throws ExpandedSizeExceeded past `limit` nodes (once an
 * alias has been expanded: without one, the document is as large as it is written) and
 * RecursiveAlias for an alias inside its own anchor. Gives the same data as `doc.toJS()` for
 * every document of JSON data (test/config/yaml-conformance.test.ts compares them); the YAML
 * 1.1 types that are not JSON data become it: `!!binary` its base64 text, `!!timestamp` an ISO
 * date, `!!set`, `!!omap` and `!!pairs` a mapping or a list of one-key mappings.
 */
export function expandYamlDocument(doc: Document, limit: number, onCollectionKey?: (offset: number, shown: string) => void): JsonValue {
  const anchors = new Map<string, Anchored>();
  const merges = doc.schema.tags.some((tag) => tag.tag === mergeTag && Boolean(tag.default));
  let total = 0;
  // A document without aliases is as large as it is written, which its size in bytes bounds.
  let aliased = false;
  const count = (size: number, offset: number): void => {
    total += size;
    if (aliased && total > limit) throw new ExpandedSizeExceeded(limit, offset);
  };

  /** The data of `node` and the number of nodes it expands to. */
  const convert = (node: unknown): { data: JsonValue; size: number } => {
    if (isAlias(node)) return resolveAlias(node);
    const start = total;
    const offset = rangeStart(node);
    let anchored: Anchored | undefined;
    const anchor = isScalar(node) || isMap(node) || isSeq(node) ? node.anchor : undefined;
    // Registered before its content is read: an alias inside the node names the node itself (YAML 1.2, 7.1).
    if (anchor !== undefined) anchors.set(anchor, (anchored = { data: null, size: undefined }));
    count(1, offset);
    let data: JsonValue;
    if (isMap(node)) {
      const object: JsonObject = {};
      if (anchored) anchored.data = object;
      for (const pair of node.items) addPair(object, pair.key, pair.value);
      data = object;
    } else if (isSeq(node)) {
      const list: JsonValue[] = [];
      if (anchored) anchored.data = list;
      for (const item of node.items) {
        if (isPair(item)) {
          // An !!omap or !!pairs entry.
          const entry: JsonObject = {};
          addPair(entry, item.key, item.value);
          list.push(entry);
        } else {
          list.push(convert(item).data);
        }
      }
      data = list;
    } else {
      data = isScalar(node) ? scalarData(node.value) : null;
    }
    if (anchored) {
      anchored.data = data;
      anchored.size = total - start;
    }
    return { data, size: total - start };
  };

  const resolveAlias = (alias: Alias): { data: JsonValue; size: number } => {
    const offset = rangeStart(alias);
    const target = anchors.get(alias.source);
    if (!target) throw new UnresolvedAlias(alias.source, offset);
    if (target.size === undefined) throw new RecursiveAlias(alias.source, offset);
    aliased = true;
    count(target.size, offset);
    return { data: target.data, size: target.size };
  };

  const addPair = (object: JsonObject, keyNode: unknown, valueNode: unknown): void => {
    if (merges && isPlainMergeKey(keyNode)) {
      count(1, rangeStart(keyNode));
      mergeInto(object, valueNode);
      return;
    }
    const key = convert(keyNode).data;
    const value = convert(valueNode).data;
    // Converted all the same: anchors inside them may be named later.
    if (onCollectionKey && typeof key === 'object' && key !== null) {
      // Written from its data: the node's own text needs the document for an alias (`*list : 3`).
      onCollectionKey(rangeStart(keyNode), stringify(key, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd());
      return;
    }
    const name = key === null ? '' : typeof key === 'object' ? collectionKeyText(keyNode) : String(key);
    // As the yaml package does: `__proto__` and inherited names become own properties.
    if (name in object) Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
    else object[name] = value;
  };

  /** YAML 1.1 merge keys (`<<: *base`), for documents that declare `%YAML 1.1`. */
  const mergeInto = (object: JsonObject, valueNode: unknown): void => {
    const sources = isSeq(valueNode) ? valueNode.items : [valueNode];
    for (const source of sources) {
      const { data } = isAlias(source) || isMap(source) ? convert(source) : { data: null };
      if (!isObject(data)) throw new MergeSourceError(rangeStart(source));
      for (const [key, value] of Object.entries(data)) {
        if (!Object.prototype.hasOwnProperty.call(object, key)) Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      }
    }
  };

  return convert(doc.contents).data;
}

/** A merge key (`<<`) whose value is not a mapping or a list of them. */
export class MergeSourceError extends Error {
  constructor(readonly offset: number) {
    super('Merge sources must be mappings or aliases of mappings.');
  }
}

/** A scalar's value as JSON data (the YAML 1.1 types that are not become their text). */
function scalarData(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function rangeStart(node: unknown): number {
  return isScalar(node) || isMap(node) || isSeq(node) || isAlias(node) ? (node.range?.[0] ?? 0) : 0;
}

/** A collection used as a mapping key, written as the yaml package writes it (`[ a, b ]`). */
function collectionKeyText(key: unknown): string {
  return stringify(key, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
}
