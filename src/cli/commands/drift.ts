/**
 * `portalctl drift`: read-only. Drift (recorded versus live: changed outside portalctl) is
 * reported apart from pending changes (desired versus live: Git is ahead). Exit 0 in sync,
 * 2 pending only, 3 drift (drift wins). It never writes and never takes the lock.
 */
import { preparePlan } from '../../engine/pipeline.js';
import type { Plan } from '../../engine/plan.js';
import { fieldChanges, formatValue } from '../../engine/render/fields.js';
import { renderPlanMarkdown } from '../../engine/render/markdown.js';
import { redactPlan } from '../../engine/render/redact.js';
import type { CommandIO } from '../io.js';
import { connect, loadDesired, portalUrl, printWarnings, stateStore, withClient, type SharedOptions } from './common.js';

export interface DriftOptions extends SharedOptions {
  format: 'text' | 'json' | 'markdown';
}

export const DRIFT_EXIT = { inSync: 0, pending: 2, drift: 3 } as const;

function renderDriftText(plan: Plan): string {
  const lines: string[] = [];
  if (plan.drift.length === 0 && plan.operations.length === 0) return 'In sync: the portal matches the configuration and the recorded state.\n';
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
  return `${lines.join('\n')}\n`;
}

export async function driftCommand(paths: string[], options: DriftOptions, io: CommandIO): Promise<number> {
  const config = await loadDesired(paths, io);
  const url = portalUrl(config, options);
  const recorded = await stateStore(options, io).read();
  const client = connect(url, options, io);
  const prepared = await withClient(client, () => preparePlan({ config, url, recorded, client }));
  printWarnings(prepared.warnings, io);
  const plan = redactPlan(prepared.plan, config.redact);
  const status = plan.drift.length ? 'drift' : plan.operations.length ? 'pending' : 'inSync';

  if (options.format === 'json') {
    io.stdout(`${JSON.stringify({ status, recordedState: plan.state, drift: plan.drift, pending: plan.operations }, null, 2)}\n`);
  } else if (options.format === 'markdown') {
    io.stdout(renderPlanMarkdown(plan));
  } else {
    io.stdout(renderDriftText(plan));
    if (!recorded) io.stdout('No recorded state yet: drift is measured from the first apply on.\n');
  }
  return DRIFT_EXIT[status];
}
