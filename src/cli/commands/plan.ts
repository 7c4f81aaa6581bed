import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { serializePlan } from '../../engine/plan-file.js';
import { planSession } from '../../engine/pipeline.js';
import { renderPlan } from '../../engine/render/plan.js';
import { redactPlan } from '../../engine/render/redact.js';
import { UsageError } from '../../core/errors.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { assertTargetsMatch } from '../targets.js';
import { printWarnings, withSession, type SharedOptions } from './common.js';

export interface PlanOptions extends SharedOptions {
  out?: string;
  format: 'text' | 'json' | 'markdown';
  detailedExitcode?: boolean;
  refresh: string;
  target?: string[];
}

export function parseRefresh(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--refresh takes true or false, not "${value}".`);
}

export async function planCommand(paths: string[], options: PlanOptions, io: CommandIO): Promise<number> {
  const refresh = parseRefresh(options.refresh);
  const targets = options.target ?? [];
  const progress = showProgress(io);
  const { plan, config, warnings } = await withSession(
    paths,
    options,
    io,
    (session) => {
      assertTargetsMatch(targets, session.config);
      return planSession(session, targets, { digest: options.out !== undefined || options.format === 'json', progress: progress.observer });
    },
    { refresh },
  ).finally(() => progress.stop());
  printWarnings(warnings, io);

  if (options.out) {
    const out = options.out;
    await withFile('Could not write the plan to', out, () => writeFile(resolve(io.cwd, out), serializePlan(plan, config.redact), { mode: 0o600 }));
    io.stderr(`Saved the plan to ${options.out}; apply it with: portalctl apply --plan ${options.out}\n`);
  }
  io.stdout(renderPlan(redactPlan(plan, config.redact), options.format, { color: io.color, ...(io.width ? { width: io.width } : {}), ...(options.out ? { savedTo: options.out } : {}) }));
  return options.detailedExitcode && plan.operations.length > 0 ? 2 : 0;
}
