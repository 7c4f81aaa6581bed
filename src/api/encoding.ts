/**
 * Form and query encoding (wire-facts "Form encoding"): strings as they are, numbers as
 * decimal text, booleans as true/false, dates as epoch milliseconds, JSON-valued parameters as
 * JSON text in one field. Absent (undefined) means "do not send"; an empty string or null is
 * sent as an empty value, which the portal reads as "clear". `f=json` is always added last.
 */
import type { JsonValue } from '../core/json.js';

export type ParamValue = JsonValue | Date | undefined;
export type Params = Readonly<Record<string, ParamValue>>;

/** One parameter's wire text, or undefined when it is absent and must not be sent. */
export function toFormValue(value: ParamValue): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return '';
  if (value instanceof Date) return String(value.getTime());
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot send the non-finite number ${value}`);
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return JSON.stringify(value);
  }
}

/** Encode fields in their given order and append `f=json` (replacing any caller-given `f`). */
export function encodeForm(fields: Params): URLSearchParams {
  const encoded = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'f') continue;
    const text = toFormValue(value);
    if (text !== undefined) encoded.append(name, text);
  }
  encoded.append('f', 'json');
  return encoded;
}
