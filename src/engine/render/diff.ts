/**
 * Before versus after as reviewable lines: objects field by field (unchanged fields counted,
 * not listed), nested values as YAML blocks, lists of scalars as items added and removed,
 * category schemas as trees.
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { changeLine, line, type DiffLine } from './lines.js';
import { categoryTreeLines, isCategoryForest } from './tree.js';
import { DEFAULT_VALUE_STYLE, inlineValue, isNested, yamlLines, type ValueStyle } from './values.js';
import { isSecretLike } from '../plan/redact.js';

const isScalarList = (value: JsonValue | undefined): value is JsonValue[] => Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object');
const isForestChange = (before: JsonValue | undefined, after: JsonValue | undefined): boolean =>
  (isCategoryForest(before) || before === undefined || before === null) &&
  (isCategoryForest(after) || after === undefined || after === null) &&
  (Array.isArray(before) && before.length > 0 || Array.isArray(after) && after.length > 0);

/** A whole value added or removed under `key` (or at the top when `key` is undefined). */
function wholeValue(mark: '+' | '-', key: string | undefined, value: JsonValue, depth: number, style: ValueStyle): DiffLine[] {
  if (!isNested(value)) return [line(mark, depth, key === undefined ? inlineValue(value, key, style) : `${key}: ${inlineValue(value, key, style)}`)];
  if (key === undefined) return yamlLines(value, key, style).map((text) => line(mark, depth, text));
  return [line(mark, depth, `${key}:`), ...yamlLines(value, key, style).map((text) => line(mark, depth + 1, text))];
}

function fieldLines(key: string, before: JsonValue | undefined, after: JsonValue | undefined, depth: number, style: ValueStyle): DiffLine[] {
  if (before === undefined && after !== undefined) return wholeValue('+', key, after, depth, style);
  if (after === undefined && before !== undefined) return wholeValue('-', key, before, depth, style);
  // Inside a secret-like field every value is one (`secrets: { a: … }`): shown whole, so hidden whole.
  if (isSecretLike(key) && (isNested(before) || isNested(after))) return [...wholeValue('-', key, before as JsonValue, depth, style), ...wholeValue('+', key, after as JsonValue, depth, style)];
  if (isObject(before) && isObject(after)) return [line('~', depth, `${key}:`), ...objectLines(before, after, depth + 1, style)];
  if (isForestChange(before, after)) return [line('~', depth, `${key}:`), ...categoryTreeLines(before ?? null, after ?? null, depth + 1, style)];
  if (isScalarList(before) && isScalarList(after) && (before.length > 0 || after.length > 0)) {
    const removed = before.filter((item) => !after.some((other) => deepEqual(item, other)));
    const added = after.filter((item) => !before.some((other) => deepEqual(item, other)));
    const lines = [line('~', depth, `${key}:`), ...removed.map((item) => line('-', depth + 1, `- ${inlineValue(item, key, style)}`)), ...added.map((item) => line('+', depth + 1, `- ${inlineValue(item, key, style)}`))];
    if (removed.length === 0 && added.length === 0) lines.push(line('#', depth + 1, '(same items, new order)'));
    return lines;
  }
  if (!isNested(before) && !isNested(after)) return [changeLine(depth, key, inlineValue(before, key, style), inlineValue(after, key, style))];
  return [...wholeValue('-', key, before as JsonValue, depth, style), ...wholeValue('+', key, after as JsonValue, depth, style)];
}

function objectLines(before: JsonObject, after: JsonObject, depth: number, style: ValueStyle): DiffLine[] {
  const keys = [...Object.keys(after), ...Object.keys(before).filter((key) => !(key in after))];
  const lines: DiffLine[] = [];
  let unchanged = 0;
  for (const key of keys) {
    if (key in before && key in after && deepEqual(before[key], after[key])) unchanged += 1;
    else lines.push(...fieldLines(key, before[key], after[key], depth, style));
  }
  if (unchanged) lines.push(line('#', depth, `(${unchanged} unchanged field${unchanged === 1 ? '' : 's'} hidden)`));
  return lines;
}

/** The lines from `before` to `after` (`null` is "does not exist"). */
export function valueLines(before: JsonValue, after: JsonValue, style: ValueStyle = DEFAULT_VALUE_STYLE, depth = 0): DiffLine[] {
  if (deepEqual(before, after)) return [];
  if (isForestChange(before, after)) return categoryTreeLines(before, after, depth, style);
  if (isObject(before) && isObject(after)) return objectLines(before, after, depth, style);
  if (before === null && isNested(after)) return wholeValue('+', undefined, after, depth, style);
  if (after === null && isNested(before)) return wholeValue('-', undefined, before, depth, style);
  return fieldLines('(value)', before, after, depth, style);
}
