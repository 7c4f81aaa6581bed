/**
 * How one value is shown to a person: scalars on one line, nested values as indented YAML,
 * long values cut with their size, `${env:}`/`${file:}` references with a fingerprint of what
 * they stand for (never the value), secret-like fields never in full.
 */
import { stringify } from 'yaml';
import type { JsonValue } from '../../core/json.js';
import { hiddenValue, isHiddenValue, isPreviousReferenceValue, isSecretLike, type ReferenceFacts, type ReferenceIndex } from '../plan/redact.js';


export interface ValueStyle {
  references: ReferenceIndex;
  /** Longest one-line value, in characters, before it is cut. */
  maxInline: number;
  /** Longest YAML block, in lines, before it is cut. */
  maxBlockLines: number;
}

export const DEFAULT_VALUE_STYLE: ValueStyle = { references: {}, maxInline: 120, maxBlockLines: 40 };

export const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');

/** 1234567 -> "1,234,567"; toLocaleString would load ICU's number formatting for it. */
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const referencePattern = /\$\{(?:env|file):[^}]*\}/g;

function describeFacts(facts: ReferenceFacts): string {
  return `${count(facts.bytes)} bytes, sha256 ${facts.sha256}…`;
}

/** A reference with what it stands for, or `undefined` when `text` holds no known reference. */
function referenceText(text: string, references: ReferenceIndex): string | undefined {
  const facts = references[text];
  if (facts) return `${text} (${describeFacts(facts)})`;
  const found = [...new Set(text.match(referencePattern) ?? [])].filter((reference) => references[reference]);
  if (found.length === 0) return undefined;
  const notes = found.map((reference) => `${reference}: ${describeFacts(references[reference] as ReferenceFacts)}`);
  return `${JSON.stringify(cut(text, 60))} (${notes.join('; ')})`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
}

/** A string shown on one line: quoted, cut with its size when long. */
function inlineString(text: string, key: string | undefined, style: ValueStyle): string {
  // Hidden already by the plan's redaction (redact.ts hideSecretLike): shown as it is.
  if (isPreviousReferenceValue(text) || isHiddenValue(text)) return text;
  const reference = referenceText(text, style.references);
  if (reference !== undefined) return reference;
  if (isSecretLike(key)) return hiddenValue(text);
  const quoted = JSON.stringify(text);
  if (quoted.length <= style.maxInline) return quoted;
  return `${JSON.stringify(text.slice(0, Math.max(8, style.maxInline - 24)))}… (${count(text.length)} chars)`;
}

/** One value on one line (scalars; a nested value is summarised by its size). */
export function inlineValue(value: JsonValue | undefined, key: string | undefined, style: ValueStyle = DEFAULT_VALUE_STYLE): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return inlineString(value, key, style);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const text = JSON.stringify(shownValue(value, key, style));
  return text.length <= style.maxInline ? text : `${text.slice(0, style.maxInline - 1)}… (${count(text.length)} chars)`;
}

export const isNested = (value: JsonValue | undefined): value is JsonValue[] | { [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0);

/** The value as it may be shown: references annotated, secret-like strings hidden, long strings cut. */
function shownValue(value: JsonValue, key: string | undefined, style: ValueStyle): JsonValue {
  if (typeof value === 'string') {
    if (isPreviousReferenceValue(value) || isHiddenValue(value)) return value;
    const reference = referenceText(value, style.references);
    if (reference !== undefined) return reference;
    if (isSecretLike(key)) return inlineString(value, key, style);
    if (value.length > style.maxInline * 4) return `${value.slice(0, style.maxInline)}… (${count(value.length)} chars)`;
    return value;
  }
  if (Array.isArray(value)) return value.map((child) => shownValue(child, key, style));
  if (typeof value === 'object' && value !== null) {
    // Below a secret-like key, every value is secret.
    return Object.fromEntries(Object.entries(value).map(([childKey, child]) => [childKey, shownValue(child, isSecretLike(key) ? key : childKey, style)]));
  }
  return value;
}

/** A nested value as indented YAML lines, cut after `maxBlockLines` with the size of the rest. */
export function yamlLines(value: JsonValue, key: string | undefined, style: ValueStyle = DEFAULT_VALUE_STYLE): string[] {
  const text = stringify(shownValue(value, key, style), { lineWidth: 0, aliasDuplicateObjects: false }).replace(/\n$/, '');
  const lines = text.split('\n');
  if (lines.length <= style.maxBlockLines) return lines;
  const rest = lines.slice(style.maxBlockLines - 1);
  return [...lines.slice(0, style.maxBlockLines - 1), `# … ${count(rest.length)} more lines (${count(bytesOf(rest.join('\n')))} bytes)`];
}
