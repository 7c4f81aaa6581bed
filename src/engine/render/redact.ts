import type { ApiRequest } from '../../core/request.js';
import type { JsonValue } from '../../core/json.js';
import type { Plan } from '../plan.js';

/** Replaces resolved `${...}` reference values by their reference text, wherever they appear. */
export type Redactor = (value: JsonValue) => JsonValue;

function redactRequest(request: ApiRequest, redact: Redactor): ApiRequest {
  return { ...request, form: redact(request.form) as Record<string, string> };
}

/**
 * The copy of a plan that may be shown or saved: no resolved secret in it. The request form,
 * before, after and every patch value go through the same redactor.
 */
export function redactPlan(plan: Plan, redact: Redactor): Plan {
  return {
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
}
