/**
 * `drift` output. Drift (recorded versus live: changed outside portalctl) is reported apart
 * from pending changes (desired versus live: Git is ahead).
 */
import type { Plan } from '../plan.js';
import { fieldChanges, formatValue } from './fields.js';
import { renderPlanMarkdown } from './markdown.js';

export type DriftStatus = 'inSync' | 'pending' | 'drift';

/** Drift wins over pending changes. */
export function driftStatus(plan: Plan): DriftStatus {
  return plan.drift.length ? 'drift' : plan.operations.length ? 'pending' : 'inSync';
}

function renderDriftText(plan: Plan, hasRecordedState: boolean): string {
  const lines: string[] = [];
  if (plan.drift.length === 0 && plan.operations.length === 0) {
    lines.push('In sync: the portal matches the configuration and the recorded state.');
  } else {
    lines.push(`Drift: ${plan.drift.length} object(s) changed outside portalctl since the last apply.`);
    for (const entry of plan.drift) {
      lines.push(`  ! ${entry.address}`);
      for (const field of fieldChanges(entry.before, entry.after, entry.patch)) {
        lines.push(`      ${field.path}: recorded ${formatValue(field.before)}, now ${formatValue(field.after)}`);
      }
    }
    lines.push('', `Pending: ${plan.operations.length} operation(s) the configuration asks for.`);
    for (const op of plan.operations) {
      lines.push(`  ${op.action === 'create' ? '+' : op.action === 'delete' ? '-' : '~'} ${op.address}`);
      for (const field of fieldChanges(op.before, op.after, op.patch)) lines.push(`      ${field.path}: ${formatValue(field.before)} -> ${formatValue(field.after)}`);
    }
  }
  if (!hasRecordedState) lines.push('No recorded state yet: drift is measured from the first apply on.');
  return `${lines.join('\n')}\n`;
}

/** The drift report of a redacted plan in `format`. */
export function renderDrift(plan: Plan, format: 'text' | 'json' | 'markdown', hasRecordedState: boolean): string {
  if (format === 'json') return `${JSON.stringify({ status: driftStatus(plan), recordedState: plan.state, drift: plan.drift, pending: plan.operations }, null, 2)}\n`;
  if (format === 'markdown') return renderPlanMarkdown(plan);
  return renderDriftText(plan, hasRecordedState);
}
