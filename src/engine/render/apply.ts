/** `apply` output: one line per finished operation, then the result (text or JSON). */
import type { ApplyResult } from '../apply/apply-result.js';
import type { OperationOutcome } from '../apply/execute.js';
import type { LiveRecord } from '../record/record-live.js';
import { terminalText } from './escape.js';
import { redactPlan } from '../plan/redact.js';
import { matchesLine, named, nameOf, summaryLine } from './text.js';
import { counted } from '../../core/words.js';

/**
 * An error's message on one line: the API's errors put their details and hints on lines of their
 * own (for an error report), which this line joins with "; " rather than showing as `\x0a`.
 */
const message = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ');

/** One finished operation, on one terminal line: its name and the portal's messages are not ours. */
export function renderOutcomeLine(outcome: OperationOutcome, invitation: string | undefined): string {
  const { op } = outcome;
  const name = terminalText(nameOf(op));
  if (outcome.status === 'applied') return `applied  ${name}  (${op.operation.id})${invitation ? `  invitation saved to ${terminalText(invitation)}` : ''}\n`;
  if (outcome.status === 'failed') return `FAILED   ${name}  (${op.operation.id}): ${terminalText(message(outcome.error))}\n`;
  if (outcome.status === 'unrecorded') return `applied  ${name}  (${op.operation.id}), NOT RECORDED: ${terminalText(message(outcome.error))}\n`;
  return `skipped  ${name}: ${terminalText(outcome.reason)}\n`;
}

/**
 * The live values an apply recorded because the configuration matches them (adopt-on-match):
 * each drift resolved by adopting the portal's value by name; objects not recorded before only
 * counted (a first apply records every one of them).
 */
export function renderAdopted(adopted: readonly LiveRecord[]): string {
  const drift = adopted.filter((record) => record.reason === 'drift');
  const fresh = adopted.length - drift.length;
  const lines: string[] = [];
  if (drift.length) {
    lines.push(`Drift resolved by adopting the portal's value, which the configuration now asks for (recorded, nothing sent): ${drift.length}`);
    for (const record of drift) lines.push(`adopted  ${terminalText(named(record.address, record.label))}`);
  }
  if (fresh) lines.push(`Recorded the live value of ${counted(fresh, 'object')} not recorded before, which the configuration matches.`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** A names-only write (apply or --refresh-only with nothing else to record): said, since it takes a serial. */
export function namesRecordedLine(state: { serial: number } | undefined): string {
  return `The state now records the names the configuration gives, as the portal resolved them (${state ? `serial ${state.serial}; ` : ''}\`plan --refresh=false\` uses them).`;
}

const adoptedJson = (adopted: readonly LiveRecord[]) => adopted.map((record) => ({ address: record.address, reason: record.reason }));

/** The result of an apply as JSON data (what `apply --format json` prints, also inside an error report). */
export function applyResultValue(applied: ApplyResult): Record<string, unknown> {
  const { result, after, state, prepared } = applied;
  // What the apply was about, and the plan it executed (redacted, as a saved plan is): a job's log and an auditor read it.
  const about = { portal: prepared.plan.portal, ...(prepared.plan.about ? { about: prepared.plan.about } : {}), plan: redactPlan(prepared.plan, prepared.config.redact) };
  if (prepared.plan.operations.length === 0) {
    return { applied: [], failed: [], skipped: [], adopted: adoptedJson(applied.adopted), namesRecorded: Boolean(applied.namesRecorded), converged: true, state: state ? { lineage: state.lineage, serial: state.serial } : null, ...about };
  }
  return {
      applied: result.applied.map((op) => op.address),
      failed: result.failed.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      skipped: result.skipped.map(({ op, reason }) => ({ address: op.address, reason })),
      unrecorded: result.unrecorded.map(({ op, error }) => ({ address: op.address, error: message(error) })),
      ...(applied.recovery ? { recoveryFile: applied.recovery.file ?? null } : {}),
      adopted: adoptedJson(applied.adopted),
      interrupted: result.interrupted,
      invitations: applied.invitations,
      converged: after.plan.operations.length === 0,
      state: state ? { lineage: state.lineage, serial: state.serial } : null,
      ...about,
  };
}

function renderApplyJson(applied: ApplyResult): string {
  return `${JSON.stringify(applyResultValue(applied), null, 2)}\n`;
}

function renderApplyText(applied: ApplyResult): string {
  const { result, after, prepared } = applied;
  if (prepared.plan.operations.length === 0) return `${summaryLine(prepared.plan)}\n${renderAdopted(applied.adopted)}${applied.namesRecorded ? `${namesRecordedLine(applied.state)}\n` : ''}`;
  const unrecorded = result.unrecorded.length ? `, ${result.unrecorded.length} applied but not recorded` : '';
  const summary = `\nApply finished: ${result.applied.length} applied, ${result.failed.length} failed, ${result.skipped.length} skipped${unrecorded}.\n`;
  const converged = !result.interrupted && result.failed.length === 0 && result.unrecorded.length === 0 && after.plan.operations.length === 0;
  return `${converged ? `${summary}${matchesLine(prepared.plan, 'now ')}\n` : summary}${renderAdopted(applied.adopted)}`;
}

/** The result of an apply in `format`; failures are reported apart, as errors. */
export function renderApplyResult(applied: ApplyResult, format: 'text' | 'json'): string {
  return format === 'json' ? renderApplyJson(applied) : renderApplyText(applied);
}
