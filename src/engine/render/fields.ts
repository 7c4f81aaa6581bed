import type { JsonValue } from '../../core/json.js';
import type { JsonPatchOperation } from '../plan/plan.js';

/** One changed field, for human renderings: `path: before -> after`. */
export interface FieldChange {
  path: string;
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

function at(value: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return value;
  let current: JsonValue | undefined = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = Array.isArray(current) ? current[Number(key)] : current[key];
  }
  return current;
}

export function fieldChanges(before: JsonValue, after: JsonValue, patch: readonly JsonPatchOperation[]): FieldChange[] {
  return patch
    .filter((p) => p.op === 'add' || p.op === 'remove' || p.op === 'replace')
    .map((p) => ({
      path: p.path === '' ? '(value)' : p.path.slice(1).replace(/\//g, '.'),
      before: at(before, p.path),
      after: at(after, p.path),
    }))
    // fast-json-patch lists changes in reverse key order; people read them in order.
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
