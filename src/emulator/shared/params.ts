/**
 * Parameter parsing shared by every route area. A parameter the portal refuses is an error
 * envelope with code 400 and no messageCode: the documentation names no code for these
 * conditions (errors.ts lists the codes it does name), so the emulator invents none; what was
 * wrong is in `message` and `details`.
 *
 * | condition                                                     | message begins with            |
 * |---------------------------------------------------------------|--------------------------------|
 * | a required parameter is missing or empty                      | Parameter '<name>' is required |
 * | a boolean parameter is not `true` or `false`                  | Invalid value for '<name>'     |
 * | a number parameter is not an integer / not a number           | Invalid value for '<name>'     |
 * | a number is outside its documented bounds                     | Invalid value for '<name>'     |
 * | a value is not one of the documented values (enum)            | Invalid value for '<name>'     |
 * | a JSON parameter is not valid JSON or has the wrong shape     | Parameter '<name>' ...         |
 * | a text parameter is longer than its limit                     | '<name>' is too long           |
 * | a paging parameter (`start`, `num`) is invalid (paging.ts)    | Invalid paging parameter       |
 */
import { PortalApiError } from '../errors.js';

export type Params = Readonly<Record<string, string>>;

/** A request the portal refuses for a reason the documentation gives no messageCode for. */
export const badRequest = (message: string, details: string[] = []): PortalApiError => new PortalApiError(400, message, undefined, details);

/** The parameter's value, or undefined when it was not sent (an empty value is returned as ''). */
export function optionalParam(params: Params, name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
}

export function requireParam(params: Params, name: string): string {
  const value = optionalParam(params, name);
  if (value === undefined || value.trim() === '') {
    throw badRequest(`Parameter '${name}' is required.`, [`Send a non-empty '${name}'.`]);
  }
  return value;
}

export function parseBoolean(name: string, text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw badRequest(`Invalid value for '${name}': '${text}'.`, [`'${name}' must be true or false.`]);
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
    throw badRequest(`Invalid value for '${name}': '${text}'.`, [`'${name}' must be an integer.`]);
  }
  return Number.parseInt(trimmed, 10);
}

export function parseNumber(name: string, text: string): number {
  const trimmed = text.trim();
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  if (!Number.isFinite(value)) {
    throw badRequest(`Invalid value for '${name}': '${text}'.`, [`'${name}' must be a number.`]);
  }
  return value;
}

export function checkRange(name: string, value: number, min: number, max?: number): number {
  if (value < min || (max !== undefined && value > max)) {
    const bounds = max === undefined ? `at least ${min}` : `between ${min} and ${max}`;
    throw badRequest(`Invalid value for '${name}': ${value}.`, [`'${name}' must be ${bounds}.`]);
  }
  return value;
}

export function checkEnum<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  const match = allowed.find((value) => value === text);
  if (match === undefined) {
    throw badRequest(`Invalid value for '${name}': '${text}'.`, [
      `'${name}' must be one of: ${allowed.join(', ')}.`,
    ]);
  }
  return match;
}

export function parseJson(name: string, text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    throw badRequest(`Parameter '${name}' is not valid JSON.`, [error instanceof Error ? error.message : String(error)]);
  }
}

export function invalidJsonShape(name: string, expected: string): PortalApiError {
  return badRequest(`Parameter '${name}' has the wrong shape.`, [`Expected ${expected}.`]);
}

export function checkMaxLength(name: string, value: string, max: number): string {
  if (value.length > max) {
    throw badRequest(`'${name}' is too long.`, [`'${name}' may have at most ${max} characters; it has ${value.length}.`]);
  }
  return value;
}

export { isList, isRecord } from '../state/json.js';

export const success = (extra: Record<string, unknown> = {}): { type: 'json'; body: Record<string, unknown> } => ({
  type: 'json',
  body: { success: true, ...extra },
});

export const json = (body: Record<string, unknown>): { type: 'json'; body: Record<string, unknown> } => ({
  type: 'json',
  body,
});
