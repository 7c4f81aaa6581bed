/** The plan for a terminal: summary first, one line per operation, then field-level before/after. */
import type { Action } from '../../kinds/contract.js';
import type { Plan, PlannedOperation } from '../plan.js';
import { fieldChanges, formatValue } from './fields.js';

const SYMBOL: Record<Action, string> = { create: '+', update: '~', delete: '-' };
const COLOUR: Record<Action, string> = { create: '\x1b[32m', update: '\x1b[33m', delete: '\x1b[31m' };
const RESET = '\x1b[0m';

export const NO_CHANGES = 'No changes. The portal matches the configuration.';

export function summaryLine(plan: Plan): string {
  const { create, update, delete: del, destructive } = plan.summary;
  if (plan.operations.length === 0) return NO_CHANGES;
  const parts = [`${create} to create`, `${update} to update`, `${del} to delete`];
  return `Plan: ${parts.join(', ')}${destructive ? ` (${destructive} destructive)` : ''}.`;
}

function operationLine(op: PlannedOperation, color: boolean): string {
  const mark = color ? `${COLOUR[op.action]}${SYMBOL[op.action]}${RESET}` : SYMBOL[op.action];
  const flags = [op.destructive ? 'DESTRUCTIVE' : '', op.dependsOn.length ? `after ${op.dependsOn.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  return `  ${mark} ${op.address}  (${op.operation.id} ${op.operation.name})${flags ? `  [${flags}]` : ''}`;
}

export function renderPlanText(plan: Plan, options: { color: boolean }): string {
  const lines: string[] = [summaryLine(plan)];
  if (!plan.refreshed) lines.push('Planned against the recorded state (--refresh=false): the portal was not read.');
  if (plan.targets.length) lines.push(`Targets: ${plan.targets.join(', ')}`);

  if (plan.operations.length) {
    const kinds = Object.entries(plan.summary.byKind).sort(([a], [b]) => (a < b ? -1 : 1));
    lines.push('', 'By kind:', ...kinds.map(([kind, count]) => `  ${kind}: ${count}`));
    lines.push('', 'Operations, in order:', ...plan.operations.map((op) => operationLine(op, options.color)));
    lines.push('', 'Changes:');
    for (const op of plan.operations) {
      lines.push(`  ${SYMBOL[op.action]} ${op.address}`);
      for (const field of fieldChanges(op.before, op.after, op.patch)) {
        lines.push(`      ${field.path}: ${formatValue(field.before)} -> ${formatValue(field.after)}`);
      }
    }
  }

  const warnings = plan.warnings ?? [];
  if (warnings.length) {
    lines.push('', `Warnings (${warnings.length}):`, ...warnings.map((warning) => `  ! ${warning.address}: ${warning.message}`));
  }

  if (plan.drift.length) {
    lines.push('', `Drift: ${plan.drift.length} object(s) changed outside portalctl since the last apply:`);
    for (const entry of plan.drift) {
      lines.push(`  ! ${entry.address}`);
      for (const field of fieldChanges(entry.before, entry.after, entry.patch)) {
        lines.push(`      ${field.path}: recorded ${formatValue(field.before)}, now ${formatValue(field.after)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
