/**
 * `portalctl drift`: read-only. Drift (recorded versus live: changed outside portalctl) is
 * reported apart from pending changes (desired versus live: Git is ahead). Exit 0 in sync,
 * 2 pending only, 3 drift (drift wins). It never writes and never takes the lock.
 */
import { planSession } from '../../engine/pipeline.js';
import { driftStatus, renderDrift } from '../../engine/render/drift.js';
import { redactPlan } from '../../engine/render/redact.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { printWarnings, withSession, type SharedOptions } from './common.js';

export interface DriftOptions extends SharedOptions {
  format: 'text' | 'json' | 'markdown';
}

export const DRIFT_EXIT = { inSync: 0, pending: 2, drift: 3 } as const;

export async function driftCommand(paths: string[], options: DriftOptions, io: CommandIO): Promise<number> {
  const progress = showProgress(io);
  const prepared = await withSession(paths, options, io, (session) => planSession(session, [], { digest: false, progress: progress.observer })).finally(() => progress.stop());
  printWarnings(prepared.warnings, io);
  const plan = redactPlan(prepared.plan, prepared.config.redact);
  io.stdout(renderDrift(plan, options.format, prepared.recorded !== undefined, { color: io.color, ...(io.width ? { width: io.width } : {}) }));
  return DRIFT_EXIT[driftStatus(plan)];
}
