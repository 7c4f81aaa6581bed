/**
 * Where a path is declared in a large config file, found without the positioned document of the
 * whole file. The `yaml` package keeps a located node for every value: for a file of 100 MB that
 * is several gigabytes, so one rule broken in a large organization's `groups.yaml` ran out of
 * memory after minutes. Here the text is scanned down the path, container by container (JSON by
 * its brackets, YAML by its lines' indentation), to the first node on the path whose text is
 * small; that text alone is positioned (YAML's first checked to hold the file's data at that
 * path), and the rest of the path is located in it. A path that ends at a large node is located
 * by the scan itself. What the scan cannot follow (YAML flow collections across lines, escaped
 * keys, a snippet whose data differs) is located at the last node it could; a failed check, at
 * the file's start. Memory is the text and the children's offsets of the containers on the way.
 */
import type { SourceLocation } from '../../core/diagnostics.js';
import { deepEqual, isObject, type JsonValue } from '../../core/json.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import { locationAt } from './text-scan.js';

type Locate = (path: ConfigPath, options?: { key?: boolean }) => SourceLocation;

/** A node's text at most this long is positioned whole (about 50 ms of the `yaml` package). */
export const snippetChars = 64 * 1024;

/** A child of a container as the scan found it. */
interface Child {
  /** The mapping key (undefined for a list item). */
  key?: string;
  /** Where the key, or the item's dash (JSON: the item), starts. */
  at: number;
  /** JSON: the value's text. YAML: the lines of the entry or item, its key or dash line first. */
  start: number;
  end: number;
  /** YAML: the line of `start` (1-based). */
  line: number;
  /** JSON: where the value starts. YAML: the value's first character on the key or dash line, if any. */
  value?: number;
}

export interface SnippetPositions {
  locate: Locate;
  /** The snippet's data, or undefined when it did not parse cleanly (built only for a YAML snippet, which is checked). */
  data(): JsonValue | undefined;
}

/**
 * A `locate` for the large file `text` whose data is `data`. `position` positions a snippet of
 * it (the `yaml` package's document of that text alone; lines and columns counted in it).
 */
export function largeFileLocate(file: string, text: string, data: JsonValue, json: boolean, position: (snippet: string) => SnippetPositions): Locate {
  const follow = largeFileFollow(file, text, data, json, position);
  return (path, options) => follow(path, options).location;
}

/**
 * Where a path is declared in `text` as the scan finds it, or undefined where it cannot follow
 * the path to its end (where largeFileLocate gives the last node it could): for a caller that
 * has an exact way to fall back on.
 */
export function scanLocate(file: string, text: string, data: JsonValue, json: boolean, position: (snippet: string) => SnippetPositions): (path: ConfigPath, options?: { key?: boolean }) => SourceLocation | undefined {
  const follow = largeFileFollow(file, text, data, json, position);
  return (path, options) => {
    const found = follow(path, options);
    return found.exact ? found.location : undefined;
  };
}

function largeFileFollow(
  file: string,
  text: string,
  data: JsonValue,
  json: boolean,
  position: (snippet: string) => SnippetPositions,
): (path: ConfigPath, options?: { key?: boolean }) => { location: SourceLocation; exact: boolean } {
  const children = new Map<string, Children | undefined>();
  const snippets = new Map<string, SnippetPositions>();
  const start: SourceLocation = { file, line: 1, column: 1 };
  const at = (offset: number): SourceLocation => locationAt(file, text, offset);
  /** An offset on a YAML child's first line, whose number the scan knows. */
  const onLine = (child: Child, offset: number): SourceLocation => ({ file, line: child.line, column: offset - child.start + 1 });
  const positioned = (key: string, snippet: string): SnippetPositions => {
    let found = snippets.get(key);
    if (!found) {
      if (snippets.size >= 8) snippets.delete(snippets.keys().next().value as string);
      found = position(snippet);
      snippets.set(key, found);
    }
    return found;
  };
  // The document itself: a mapping where it starts (its first key, or its brace), else the file's start.
  const rootLocation = (): SourceLocation => {
    if (json) return text.charCodeAt(skipSpace(text, 0)) === 123 ? at(skipSpace(text, 0)) : start;
    if (!children.has('[]')) children.set('[]', indexed(yamlChildren(text, undefined)));
    const first = children.get('[]')?.first;
    return first?.key !== undefined ? onLine(first, first.at) : start;
  };
  const exact = (location: SourceLocation) => ({ location, exact: true });
  const followedPart = (location: SourceLocation) => ({ location, exact: false });
  return (path, options) => {
    if (path.length === 0) return exact(rootLocation());
    let container: Child | undefined;
    let node: JsonValue = data;
    let found: SourceLocation = start;
    for (let index = 0; index < path.length; index += 1) {
      const step = path[index] as string | number;
      const last = index === path.length - 1;
      const prefix = JSON.stringify(path.slice(0, index));
      if (!children.has(prefix)) children.set(prefix, indexed(json ? jsonChildren(text, container) : yamlChildren(text, container)));
      const kids = children.get(prefix);
      // A block collection under a key starts at its first entry or item, as the document says.
      if (!json && container?.key !== undefined && kids?.first) found = onLine(kids.first, kids.first.at);
      const child = kids?.get(step);
      const value = childValue(node, step);
      if (!child || value === undefined) return followedPart(found);
      // As the positioned document points: an item at its dash (JSON: itself), a collection or a key asked for at the key, a scalar at its value.
      const target = child.key !== undefined && (options?.key === true || (typeof value === 'object' && value !== null)) ? child.at : (child.value ?? child.at);
      if (json) {
        if (last) return exact(at(target));
        if (child.end - child.start <= snippetChars) {
          const inner = positioned(`${prefix}/${String(step)}`, text.slice(child.start, child.end)).locate(path.slice(index + 1), options);
          return exact(shifted(inner, at(child.start)));
        }
      } else if (child.end - child.start <= snippetChars) {
        // The entry's or item's lines alone: `key: value` or `- value`, checked to say the same.
        const snippet = positioned(`${prefix}/${String(step)}`, text.slice(child.start, child.end));
        const expected = child.key === undefined ? [value] : { [child.key]: value };
        const said = snippet.data();
        if (said === undefined || !sameAsRead(said, expected)) return followedPart(start);
        return exact(shifted(snippet.locate([child.key ?? 0, ...path.slice(index + 1)], options), { file, line: child.line, column: 1 }));
      } else if (last) {
        return exact(onLine(child, child.key === undefined ? child.at : target));
      }
      // The deepest node so far: an item at its dash, a value under a key where the value starts.
      const valueAt = child.key === undefined ? child.at : (child.value ?? child.at);
      found = json ? at(valueAt) : onLine(child, valueAt);
      container = child;
      node = value;
    }
    return exact(found);
  };
}

/** A container's children by key (a mapping) or position (a list). */
interface Children {
  get(step: string | number): Child | undefined;
  first: Child | undefined;
}

function indexed(found: Child[] | undefined): Children | undefined {
  if (!found) return undefined;
  const byKey = new Map<string, Child>();
  for (const child of found) if (child.key !== undefined) byKey.set(child.key, child);
  return { first: found[0], get: (step) => (typeof step === 'number' ? (found[step]?.key === undefined ? found[step] : undefined) : byKey.get(step)) };
}

function childValue(node: JsonValue, step: string | number): JsonValue | undefined {
  if (Array.isArray(node)) return typeof step === 'number' ? node[step] : undefined;
  if (typeof node === 'object' && node !== null && Object.hasOwn(node, String(step))) return node[String(step)];
  return undefined;
}

/**
 * Whether a snippet's data is the file's data there. References are resolved in the file's data
 * in place (references.ts), so a text of the snippet holding `${` (a reference, or the `$${`
 * escape) stands for whatever it became: compared exactly, every entry holding one was located
 * at the file's start.
 */
function sameAsRead(snippet: JsonValue, data: JsonValue): boolean {
  if (typeof snippet === 'string' && snippet.includes('${')) return true;
  if (Array.isArray(snippet)) return Array.isArray(data) && snippet.length === data.length && snippet.every((item, index) => sameAsRead(item, data[index] as JsonValue));
  if (isObject(snippet)) {
    if (!isObject(data)) return false;
    const keys = Object.keys(snippet);
    return keys.length === Object.keys(data).length && keys.every((key) => Object.hasOwn(data, key) && sameAsRead(snippet[key] as JsonValue, data[key] as JsonValue));
  }
  return deepEqual(snippet, data);
}

/** A location inside a snippet, in the file: its first line continues the line the snippet starts on. */
function shifted(inner: SourceLocation, origin: SourceLocation): SourceLocation {
  return { file: origin.file, line: origin.line + inner.line - 1, column: inner.line === 1 ? origin.column + inner.column - 1 : inner.column };
}

// ---- JSON: exact, by brackets and strings.

function skipSpace(text: string, index: number): number {
  for (let code = text.charCodeAt(index); code === 32 || code === 10 || code === 13 || code === 9; code = text.charCodeAt(index)) index += 1;
  return index;
}

/** The end of the string whose opening quote is at `index` (after its closing quote). */
function stringEnd(text: string, index: number): number {
  for (let at = index + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 92) at += 1;
    else if (code === 34) return at + 1;
  }
  return text.length;
}

/** The end of the JSON value that starts at `index`. */
function valueEnd(text: string, index: number): number {
  let depth = 0;
  for (let at = index; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 34) at = stringEnd(text, at) - 1;
    else if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      depth -= 1;
      if (depth < 0) return at;
      if (depth === 0) return at + 1;
    } else if (depth === 0 && (code === 44 || code === 32 || code === 10 || code === 13 || code === 9)) return at;
  }
  return text.length;
}

/** The members or items of the JSON container `parent` (the root's value when undefined). */
function jsonChildren(text: string, parent: Child | undefined): Child[] | undefined {
  let index = parent ? (parent.value ?? parent.start) : skipSpace(text, 0);
  const open = text.charCodeAt(index);
  if (open !== 123 && open !== 91) return undefined;
  const found: Child[] = [];
  index = skipSpace(text, index + 1);
  while (index < text.length && text.charCodeAt(index) !== 125 && text.charCodeAt(index) !== 93) {
    let key: string | undefined;
    const at = index;
    if (open === 123) {
      const end = stringEnd(text, index);
      const raw = text.slice(index, end);
      key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      index = skipSpace(text, skipSpace(text, end) + 1);
    }
    const end = valueEnd(text, index);
    found.push({ ...(key === undefined ? {} : { key }), at, start: index, end, line: 0, value: index });
    index = skipSpace(text, end);
    if (text.charCodeAt(index) === 44) index = skipSpace(text, index + 1);
  }
  // A repeated key: JSON.parse keeps the last, and so does `indexed`.
  return found;
}

// ---- YAML: block collections by their lines' indentation.

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

function firstNonSpace(text: string, from: number, end: number): number {
  while (from < end && text.charCodeAt(from) === 32) from += 1;
  return from;
}

/** Nothing but a comment or blank space from `from` to `end`. */
function emptyFrom(text: string, from: number, end: number): boolean {
  const first = firstNonSpace(text, from, end);
  return first >= end || text.charCodeAt(first) === 35 || (text.charCodeAt(first) === 13 && first + 1 >= end);
}

function isDash(text: string, at: number): boolean {
  const next = text.charCodeAt(at + 1);
  return text.charCodeAt(at) === 45 && (Number.isNaN(next) || next === 32 || next === 10 || next === 13);
}

/** The key of a `key: ...` line at `at`, and where its value starts on the line; undefined for a key the scan does not read (escapes, no colon). */
function keyOfLine(text: string, at: number, end: number): { key: string; value?: number } | undefined {
  let key: string;
  let after: number;
  const quote = text.charCodeAt(at);
  if (quote === 34 || quote === 39) {
    let close = at + 1;
    for (; close < end; close += 1) {
      if (text.charCodeAt(close) !== quote) continue;
      if (quote === 39 && text.charCodeAt(close + 1) === 39) close += 1;
      else break;
    }
    const inner = text.slice(at + 1, close);
    if (close >= end || (quote === 34 && inner.includes('\\'))) return undefined;
    key = quote === 39 ? inner.replaceAll("''", "'") : inner;
    after = firstNonSpace(text, close + 1, end);
    if (text.charCodeAt(after) !== 58) return undefined;
  } else {
    let colon = text.indexOf(':', at);
    while (colon !== -1 && colon < end && !(colon + 1 >= end || text.charCodeAt(colon + 1) === 32 || text.charCodeAt(colon + 1) === 13)) colon = text.indexOf(':', colon + 1);
    if (colon === -1 || colon >= end) return undefined;
    key = text.slice(at, colon).trimEnd();
    after = colon;
  }
  const value = firstNonSpace(text, after + 1, end);
  return emptyFrom(text, value, end) ? { key } : { key, value };
}

/**
 * The entries or items of the YAML block collection that is `parent`'s value (the document's
 * when undefined); undefined when its value is not a block collection the scan can read.
 */
function yamlChildren(text: string, parent: Child | undefined): Child[] | undefined {
  let position = 0;
  let line = 1;
  let end = text.length;
  // An item's value may start on its dash line: that line counts from there.
  let firstContent: number | undefined;
  if (parent) {
    end = parent.end;
    if (parent.key === undefined && parent.value !== undefined) {
      position = parent.start;
      line = parent.line;
      firstContent = parent.value;
    } else {
      // A value on the key's line is a scalar or a flow collection: nothing the scan reads.
      if (parent.value !== undefined) return undefined;
      position = lineEnd(text, parent.start) + 1;
      line = parent.line + 1;
    }
  }
  const found: Child[] = [];
  let indent = -1;
  let list = false;
  for (; position < end; position = lineEnd(text, position) + 1, line += 1) {
    const stop = Math.min(lineEnd(text, position), end);
    const content = firstContent ?? firstNonSpace(text, position, stop);
    firstContent = undefined;
    if (emptyFrom(text, content, stop)) continue;
    if (!parent && (text.startsWith('---', content) || text.startsWith('...', content)) && emptyFrom(text, content + 3, stop)) continue;
    const depth = content - position;
    if (indent === -1) {
      indent = depth;
      list = isDash(text, content);
    }
    if (depth < indent) return undefined;
    if (depth > indent) continue;
    if (list) {
      if (!isDash(text, content)) return undefined;
      const value = firstNonSpace(text, content + 1, stop);
      found.push({ at: content, start: position, end, line, ...(emptyFrom(text, value, stop) ? {} : { value }) });
    } else if (isDash(text, content)) {
      // A list at its key's indentation belongs to the entry above.
      if (found.length === 0) return undefined;
    } else {
      const entry = keyOfLine(text, content, stop);
      if (!entry) return undefined;
      found.push({ key: entry.key, at: content, start: position, end, line, ...(entry.value === undefined ? {} : { value: entry.value }) });
    }
  }
  for (let index = 0; index < found.length - 1; index += 1) (found[index] as Child).end = (found[index + 1] as Child).start;
  // (A repeated key cannot occur: the fast path, whose files these are, refuses those.)
  return found;
}
