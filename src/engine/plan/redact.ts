import type { ApiRequest } from '../../core/request.js';
import type { JsonValue } from '../../core/json.js';
import type { Plan } from './plan.js';

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

function redactRequest(request: ApiRequest, redact: Redactor): ApiRequest {
  return { ...request, form: redact(request.form) as Record<string, string> };
}

/**
 * The copy of a plan that may be shown or saved: no resolved secret in it. The request form,
 * before, after and every patch value go through the same redactor.
 */
export function redactPlan(plan: Plan, redact: Redactor): ShownPlan {
  const shown: ShownPlan = {
    ...plan,
    operations: plan.operations.map((op) => ({
      ...op,
      request: redactRequest(op.request, redact),
      before: redact(op.before),
      after: redact(op.after),
      patch: op.patch.map((p) => ('value' in p ? { ...p, value: redact(p.value as JsonValue) } : p)),
    })),
    drift: plan.drift.map((d) => ({
      ...d,
      before: redact(d.before),
      after: redact(d.after),
      patch: d.patch.map((p) => ('value' in p ? { ...p, value: redact(p.value as JsonValue) } : p)),
    })),
  };
  const references = redact.references ?? (plan as ShownPlan).references;
  if (references && Object.keys(references).length > 0) shown.references = { ...references };
  return shown;
}
