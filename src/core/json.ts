import { createHash, type Hash } from 'node:crypto';

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON.parse, typed as what it gives: a JSON text only ever holds JSON values. Throws SyntaxError as JSON.parse does. */
export function parseJson(text: string): JsonValue {
  const value: JsonValue = JSON.parse(text);
  return value;
}

/** parseJson, or undefined for a text that is not JSON (where that only means "not this kind of text"). */
export function parseJsonOrUndefined(text: string): JsonValue | undefined {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

/*
 * Written out by hand rather than with a JSON.stringify replacer or by comparing texts: plans
 * compare and digest every declared value, and a replacer copies every object (entries, sort,
 * fromEntries) to do it. The output is the same as JSON.stringify with object keys sorted (undefined properties
 * omitted, undefined array items and non-finite numbers as null).
 */

/**
 * JSON text with object keys sorted, so equal values always give equal text. Any value, as
 * JSON.stringify takes any: records of our own types (plan operations, state entries) are
 * written without first being converted to JsonValue.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value ?? null) ?? 'null';
}

function canonical(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        const items: string[] = new Array(value.length);
        for (let index = 0; index < value.length; index++) items[index] = canonical(value[index]) ?? 'null';
        return `[${items.join(',')}]`;
      }
      if (!isObject(value)) return undefined;
      const members: string[] = [];
      for (const key of sortedKeys(value)) {
        const text = canonical(value[key]);
        if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
      }
      return `{${members.join(',')}}`;
    }
    default:
      // undefined, functions, symbols: left out, as JSON.stringify does.
      return undefined;
  }
}

/**
 * Keys in the order JSON.stringify writes an object rebuilt from sorted entries: integer-like
 * keys first in numeric order (JavaScript always puts them first, and Object.keys already
 * lists them so), then the others sorted.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  let integers = 0;
  for (const key of keys) {
    if (!isArrayIndex(key)) break;
    integers++;
  }
  if (integers === 0) return keys.sort();
  return [...keys.slice(0, integers), ...keys.slice(integers).sort()];
}

function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/**
 * Equal as JSON: key order does not matter, an undefined property is an absent one. Any values
 * (state documents, plans), compared as JSON.stringify would write them.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return same(a ?? null, b ?? null);
}

/** What JSON.stringify writes for a non-finite number or an undefined array item. */
function asJson(value: unknown): unknown {
  return value === undefined || (typeof value === 'number' && !Number.isFinite(value)) ? null : value;
}

function same(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  const a = asJson(left);
  const b = asJson(right);
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!same(a[index], b[index])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  let defined = 0;
  for (const key of Object.keys(a)) {
    if (!present(a[key])) continue;
    defined++;
    if (!Object.prototype.hasOwnProperty.call(b, key) || !present(b[key]) || !same(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (present(b[key])) defined--;
  return defined === 0;
}

/** A property JSON.stringify writes (undefined, functions and symbols are left out). */
function present(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Incremental sha256 in the same `sha256:<hex>` form, for texts too large to build whole. */
export function sha256Of(write: (hash: Pick<Hash, 'update'>) => void): string {
  const hash = createHash('sha256');
  write(hash);
  return `sha256:${hash.digest('hex')}`;
}
