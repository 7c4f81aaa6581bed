/**
 * Parameter parsing shared by every route area, and the emulator's own error codes for
 * conditions the spec names without a code.
 *
 * | code      | status | condition                                                     |
 * |-----------|--------|---------------------------------------------------------------|
 * | EMU_0001  | 400    | a required parameter is missing or empty                      |
 * | EMU_0002  | 400    | a boolean parameter is not `true` or `false`                  |
 * | EMU_0003  | 400    | a number parameter is not an integer / not a number           |
 * | EMU_0004  | 400    | a number is outside its documented bounds                     |
 * | EMU_0005  | 400    | a value is not one of the documented values (enum)            |
 * | EMU_0006  | 400    | Invalid URL: the operation does not exist in this version/edition (versions.ts) |
 * | EMU_0007  | 400    | a JSON parameter is not valid JSON or has the wrong shape     |
 * | EMU_0008  | 400    | a text parameter is longer than its limit                     |
 * | EMU_0009  | 400    | a paging parameter (`start`, `num`) is invalid (paging.ts)    |
 */
import { PortalApiError } from '../errors.js';

export type Params = Readonly<Record<string, string>>;

export const badRequest = (message: string, messageCode: string, details: string[] = []): PortalApiError =>
  new PortalApiError(400, message, messageCode, details);

/** The parameter's value, or undefined when it was not sent (an empty value is returned as ''). */
export function optionalParam(params: Params, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
}

export function requireParam(params: Params, name: string): string {
  const value = optionalParam(params, name);
  if (value === undefined || value.trim() === '') {
    throw badRequest(`Parameter '${name}' is required.`, 'EMU_0001', [`Send a non-empty '${name}'.`]);
  }
  return value;
}

export function parseBoolean(name: string, text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw badRequest(`Invalid value for '${name}': '${text}'.`, 'EMU_0002', [`'${name}' must be true or false.`]);
}

/** Absent -> undefined; present -> parsed boolean (an empty value is invalid). */
export function optionalBoolean(params: Params, name: string): boolean | undefined {
  const text = optionalParam(params, name);
  return text === undefined ? undefined : parseBoolean(name, text);
}

const INTEGER = /^[+-]?\d+$/;

export function parseInteger(name: string, text: string): number {
  const trimmed = text.trim();
  if (!INTEGER.test(trimmed)) {
    throw badRequest(`Invalid value for '${name}': '${text}'.`, 'EMU_0003', [`'${name}' must be an integer.`]);
  }
  return Number.parseInt(trimmed, 10);
}

export function parseNumber(name: string, text: string): number {
  const trimmed = text.trim();
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  if (!Number.isFinite(value)) {
    throw badRequest(`Invalid value for '${name}': '${text}'.`, 'EMU_0003', [`'${name}' must be a number.`]);
  }
  return value;
}

export function checkRange(name: string, value: number, min: number, max?: number): number {
  if (value < min || (max !== undefined && value > max)) {
    const bounds = max === undefined ? `at least ${min}` : `between ${min} and ${max}`;
    throw badRequest(`Invalid value for '${name}': ${value}.`, 'EMU_0004', [`'${name}' must be ${bounds}.`]);
  }
  return value;
}

export function checkEnum<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  const match = allowed.find((value) => value === text);
  if (match === undefined) {
    throw badRequest(`Invalid value for '${name}': '${text}'.`, 'EMU_0005', [
      `'${name}' must be one of: ${allowed.join(', ')}.`,
    ]);
  }
  return match;
}

export function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`Parameter '${name}' is not valid JSON.`, 'EMU_0007', [(error as Error).message]);
  }
}

export function invalidJsonShape(name: string, expected: string): PortalApiError {
  return badRequest(`Parameter '${name}' has the wrong shape.`, 'EMU_0007', [`Expected ${expected}.`]);
}

export function checkMaxLength(name: string, value: string, max: number): string {
  if (value.length > max) {
    throw badRequest(`'${name}' is too long.`, 'EMU_0008', [`'${name}' may have at most ${max} characters; it has ${value.length}.`]);
  }
  return value;
}

export { isRecord } from '../json.js';

export const success = (extra: Record<string, unknown> = {}): { type: 'json'; body: Record<string, unknown> } => ({
  type: 'json',
  body: { success: true, ...extra },
});

export const json = (body: Record<string, unknown>): { type: 'json'; body: Record<string, unknown> } => ({
  type: 'json',
  body,
});

/** One `field:value` term of a search query (`orgid:...`, `id:...`, `owner:...`), or free text. */
export interface QueryTerm {
  field: string | undefined;
  value: string;
}

/**
 * The `q` of `search` and `community/groups`, required by both (documented for search; the
 * emulator is strict for groups as well, so clients always send it). Terms are joined by spaces
 * or AND; quotes around a value are dropped.
 */
export function parseQuery(params: Params, missing: () => PortalApiError): QueryTerm[] {
  const q = optionalParam(params, 'q');
  if (q === undefined || q.trim() === '') throw missing();
  const terms: QueryTerm[] = [];
  for (const raw of q.trim().split(/\s+/)) {
    if (raw.toUpperCase() === 'AND') continue;
    const colon = raw.indexOf(':');
    const unquote = (text: string): string => text.replace(/^"(.*)"$/, '$1');
    terms.push(colon > 0 ? { field: raw.slice(0, colon).toLowerCase(), value: unquote(raw.slice(colon + 1)) } : { field: undefined, value: unquote(raw) });
  }
  return terms;
}
