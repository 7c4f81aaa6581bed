/**
 * Small helpers the kinds share: diagnostics at a path of an object, version gates, lengths.
 */
import type { Diagnostic, Severity } from '../../core/diagnostics.js';
import type { CheckContext, ConfigPath, DesiredObject, JsonSchema } from './contract.js';
import type { JsonObject } from '../../core/json.js';
import { compareVersions } from '../../core/version.js';

/** A diagnostic about `obj`, located at `path` inside its declaration. */
export function problem(
  ctx: CheckContext,
  obj: DesiredObject,
  path: ConfigPath,
  details: { severity?: Severity; code: string; message: string; value?: unknown; expected?: string },
): Diagnostic {
  const location = ctx.locate ? ctx.locate(obj, path) : obj.source;
  return {
    severity: details.severity ?? 'error',
    code: details.code,
    message: details.message,
    address: obj.address,
    location,
    ...(details.value === undefined ? {} : { value: details.value }),
    ...(details.expected === undefined ? {} : { expected: details.expected }),
  };
}

/**
 * Length as the portal counts it: UTF-16 code units, so a character outside the Basic
 * Multilingual Plane (most emoji) counts 2. Counting code points let titles pass validate
 * that the portal then refused.
 */
export function characterCount(text: string): number {
  return text.length;
}

/**
 * Version gates follow the self-managed numbering of the spec's Versioning table; they apply
 * only when the version is known and the edition is not `hosted` (hosted releases are dated).
 */
export function selfManagedVersionBelow(ctx: CheckContext, minimum: string): boolean {
  const { edition, version } = ctx.portal;
  if (edition === 'hosted' || version === undefined) return false;
  const order = compareVersions(version, minimum);
  return order !== undefined && order < 0;
}

export { isObject } from '../../core/json.js';

/** The declared properties of `entry` among `names`, in the order of `names`. */
export function pick(entry: JsonObject, names: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const name of names) {
    const value = entry[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

export const absentKeyword: JsonSchema = {
  const: 'absent',
  description: '`absent` is the only value: declares the removal.',
};
