/** `apply` output: one line per finished operation, then the result (text or JSON). */
import type { ApplyResult } from '../apply.js';
import type { OperationOutcome } from '../execute.js';
import { NO_CHANGES, named } from './text.js';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function renderOutcomeLine(outcome: OperationOutcome, invitation: string | undefined): string {
  const { op } = outcome;
  const name = named(op.address, op.label);
  if (outcome.status === 'applied') return `applied  ${name}  (${op.operation.id})${invitation ? `  invitation saved to ${invitation}` : ''}\n`;
  if (outcome.status === 'failed') return `FAILED   ${name}  (${op.operation.id}): ${message(outcome.error)}\n`;
  if (outcome.status === 'unrecorded') return `applied  ${name}  (${op.operation.id}), NOT RECORDED: ${message(outcome.error)}\n`;
  return `skipped  ${name}: ${outcome.reason}\n`;
}

/** The result of an apply as JSON data (what `apply --format json` prints, also inside an error report). */
export function applyResultValue(applied: ApplyResult): Record<string, unknown> {
  const { result, after, state, prepared } = applied;
  if (prepared.plan.operations.length === 0) return { applied: [], failed: [], skipped: [], converged: true };
  return {
      applied: result.applied.map((op) => op.address),
      failed: result.failed.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      skipped: result.skipped.map(({ op, reason }) => ({ address: op.address, reason })),
      unrecorded: result.unrecorded.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      ...(applied.recovery ? { recoveryFile: applied.recovery.file ?? null } : {}),
      interrupted: result.interrupted,
      invitations: applied.invitations,
      converged: after.plan.operations.length === 0,
      state: state ? { lineage: state.lineage, serial: state.serial } : null,
  };
}

function renderApplyJson(applied: ApplyResult): string {
  return `${JSON.stringify(applyResultValue(applied), null, 2)}\n`;
}

function renderApplyText(applied: ApplyResult): string {
  const { result, after, prepared } = applied;
  if (prepared.plan.operations.length === 0) return `${NO_CHANGES}\n`;
  const unrecorded = result.unrecorded.length ? `, ${result.unrecorded.length} applied but not recorded` : '';
  const summary = `\nApply finished: ${result.applied.length} applied, ${result.failed.length} failed, ${result.skipped.length} skipped${unrecorded}.\n`;
  const converged = !result.interrupted && result.failed.length === 0 && result.unrecorded.length === 0 && after.plan.operations.length === 0;
  return converged ? `${summary}The portal now matches the configuration.\n` : summary;
}

/** The result of an apply in `format`; failures are reported apart, as errors. */
export function renderApplyResult(applied: ApplyResult, format: 'text' | 'json'): string {
  return format === 'json' ? renderApplyJson(applied) : renderApplyText(applied);
}
