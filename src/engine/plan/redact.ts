import { createHash } from 'node:crypto';
import type { ApiRequest } from '../../core/request.js';
import type { JsonValue } from '../../core/json.js';
import type { Plan, PlannedOperation } from './plan.js';

/** What a reviewer may know about a resolved reference: its size and a short fingerprint. */
export interface ReferenceFacts {
  bytes: number;
  sha256: string;
}

export type ReferenceIndex = Readonly<Record<string, ReferenceFacts>>;

/**
 * How a plan holds a live string that is the previous value of a reference (the state's
 * fingerprint of it matched): the reference text, marked as changed, with a short fingerprint
 * of what it was. Shown as it is; never the value.
 */
export function previousReferenceValue(template: string, sha256: string): string {
  return `${template} (previous value, changed; sha256 ${sha256.slice(0, 4)}…)`;
}
// \u2026 (…): the bundles are kept ASCII (scripts/bundle.mjs).
const previousValuePattern = /^.* \(previous value, changed; sha256 [0-9a-f]{4}\u2026\)$/s;
export const isPreviousReferenceValue = (text: string): boolean => previousValuePattern.test(text);

/**
 * Replaces resolved `${...}` reference values by their reference text, wherever they appear.
 * The config's redactor also says, per reference, the size and a short fingerprint of its value.
 */
export type Redactor = ((value: JsonValue) => JsonValue) & { readonly references?: ReferenceIndex };

/** A plan that may be shown or saved; `references` (an extra field) describes each reference in it. */
export type ShownPlan = Plan & { references?: ReferenceIndex };

/** Field names whose values are credentials or key material: never shown in full. */
const SECRET_LIKE = /certificate|secret|token|password|passwd|privatekey|apikey|credential/i;
export const isSecretLike = (key: string | undefined): boolean => key !== undefined && SECRET_LIKE.test(key);

/** 4 hex characters: enough to see a change, too few to test guesses against. */
export const shortFingerprint = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 4);

/** 1234567 -> "1,234,567"; toLocaleString would load ICU's number formatting for it. */
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** How every output holds the value of a secret-like field written as it is in the config: its size and a short fingerprint. */
export const hiddenValue = (text: string): string => `(hidden: ${count(Buffer.byteLength(text, 'utf8'))} bytes, sha256 ${shortFingerprint(text)}\u2026)`;
const hiddenPattern = /^\(hidden: [0-9,]+ bytes, sha256 [0-9a-f]{4}\u2026\)$/;
export const isHiddenValue = (text: string): boolean => hiddenPattern.test(text);

/** A `${env:}`/`${file:}` reference the plan describes: shown as it is (the reference, never the value). */
const referencePattern = /\$\{(?:env|file):[^}]*\}/g;
const holdsReference = (text: string, references: ReferenceIndex): boolean => (text.match(referencePattern) ?? []).some((reference) => references[reference] !== undefined);

/**
 * `value` with every string under a secret-like key (at any depth below one) hidden, as the
 * text plan shows it: what JSON output, saved plans and `apply --format json` carry too, so a
 * secret written in the config reaches no log. A reference, an already hidden value and a
 * previous reference value are left as they are; numbers and booleans are no secret.
 */
export function hideSecretLike(value: JsonValue, key: string | undefined, references: ReferenceIndex = {}): JsonValue {
  const secret = isSecretLike(key);
  const hide = (child: JsonValue, childKey: string | undefined): JsonValue => {
    if (typeof child === 'string') {
      if (!secret || isHiddenValue(child) || isPreviousReferenceValue(child) || holdsReference(child, references)) return child;
      return hiddenValue(child);
    }
    if (Array.isArray(child)) return child.map((item) => hide(item, childKey));
    if (typeof child === 'object' && child !== null) return hideSecretLike(child, childKey, references);
    return child;
  };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // Below a secret-like key, every value is secret.
    return Object.fromEntries(Object.entries(value).map(([childKey, child]) => [childKey, secret ? hide(child, key) : hideSecretLike(child, childKey, references)]));
  }
  return hide(value, key);
}

/** A JSON Patch path's secret-like key, if any of its segments is one (`/secrets/a` under `secrets`). */
const secretLikeSegment = (path: string): string | undefined => path.split('/').find((segment) => isSecretLike(segment));

/**
 * The copy of a plan that may be shown or saved: no resolved secret in it, and no value of a
 * secret-like field (hideSecretLike). The request form, before, after and every patch value go
 * through the same redactor.
 */
export function redactPlan(plan: Plan, redact: Redactor): ShownPlan {
  const references = redact.references ?? (plan as ShownPlan).references;
  const shownValue = shownValues(redact, references);
  const shownPatch = (patch: PlannedOperation['patch']): PlannedOperation['patch'] =>
    patch.map((p) => ('value' in p ? { ...p, value: shownValue(p.value as JsonValue, secretLikeSegment(p.path)) } : p));
  const shown: ShownPlan = {
    ...plan,
    operations: plan.operations.map((op) => ({
      ...op,
      request: { ...op.request, form: shownForm(shownValue(op.request.form) as ApiRequest['form'], references) },
      before: shownValue(op.before),
      after: shownValue(op.after),
      patch: shownPatch(op.patch),
    })),
    drift: plan.drift.map((d) => ({ ...d, before: shownValue(d.before), after: shownValue(d.after), patch: shownPatch(d.patch) })),
  };
  if (references && Object.keys(references).length > 0) shown.references = { ...references };
  return shown;
}

/**
 * A form field that is JSON text (a kind's nested settings, sent as one field) with secret-like
 * keys inside: those hidden in it, as in `before` and `after`. Other fields are left as they are.
 */
function shownForm(form: ApiRequest['form'], references: ReferenceIndex | undefined): ApiRequest['form'] {
  return Object.fromEntries(
    Object.entries(form).map(([field, text]) => {
      if (!/^\s*[[{]/.test(text) || !SECRET_LIKE.test(text)) return [field, text];
      let parsed: JsonValue;
      try {
        parsed = JSON.parse(text) as JsonValue;
      } catch {
        return [field, text];
      }
      const hidden = hideSecretLike(parsed, undefined, references);
      return [field, JSON.stringify(hidden) === JSON.stringify(parsed) ? text : JSON.stringify(hidden)];
    }),
  );
}

/** What any output may show of a value: referenced values as their references, secret-like fields hidden. `key`: the field it is the value of. */
export function shownValues(redact: Redactor, references: ReferenceIndex | undefined = redact.references): (value: JsonValue, key?: string) => JsonValue {
  return (value, key) => hideSecretLike(redact(value), key, references);
}
