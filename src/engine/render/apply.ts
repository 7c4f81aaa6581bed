/** `apply` output: one line per finished operation, then the result (text or JSON). */
import type { ApplyResult } from '../apply.js';
import type { OperationOutcome } from '../execute.js';
import { terminalText } from './escape.js';
import { NO_CHANGES, named } from './text.js';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** One finished operation, on one terminal line: its name and the portal's messages are not ours. */
export function renderOutcomeLine(outcome: OperationOutcome, invitation: string | undefined): string {
  const { op } = outcome;
  const name = terminalText(named(op.address, op.label));
  if (outcome.status === 'applied') return `applied  ${name}  (${op.operation.id})${invitation ? `  invitation saved to ${terminalText(invitation)}` : ''}\n`;
  if (outcome.status === 'failed') return `FAILED   ${name}  (${op.operation.id}): ${terminalText(message(outcome.error))}\n`;
  if (outcome.status === 'unrecorded') return `applied  ${name}  (${op.operation.id}), NOT RECORDED: ${terminalText(message(outcome.error))}\n`;
  return `skipped  ${name}: ${terminalText(outcome.reason)}\n`;
}

function renderApplyJson(applied: ApplyResult): string {
  const { result, after, state, prepared } = applied;
  if (prepared.plan.operations.length === 0) return `${JSON.stringify({ applied: [], failed: [], skipped: [], converged: true }, null, 2)}\n`;
  return `${JSON.stringify(
    {
      applied: result.applied.map((op) => op.address),
      failed: result.failed.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      skipped: result.skipped.map(({ op, reason }) => ({ address: op.address, reason })),
      unrecorded: result.unrecorded.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      ...(applied.recovery ? { recoveryFile: applied.recovery.file ?? null } : {}),
      interrupted: result.interrupted,
      invitations: applied.invitations,
      converged: after.plan.operations.length === 0,
      state: state ? { lineage: state.lineage, serial: state.serial } : null,
    },
    null,
    2,
  )}\n`;
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
