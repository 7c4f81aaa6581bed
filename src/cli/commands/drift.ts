/**
 * `portalctl drift`: read-only. Drift (recorded versus live: changed outside portalctl) is
 * reported apart from pending changes (desired versus live: Git is ahead). Exit 0 in sync,
 * 2 pending only, 3 drift (drift wins). It never writes and never takes the lock. Over several
 * environments, each is checked on its own and the exit code is the worst of them.
 */
import { planSession } from '../../engine/plan/prepare.js';
import { driftStatus, renderDrift } from '../../engine/render/drift.js';
import { sectionLimit } from '../../engine/render/fleet.js';
import { redactPlan } from '../../engine/plan/redact.js';
import { fleetNames, isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';
import { envParallelism, printFleet, runFleet, type MemberResult } from '../fleet.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { printWarnings, withSession, type SharedOptions } from './common.js';

export interface DriftOptions extends SharedOptions {
  format: 'text' | 'json' | 'markdown';
}

export const DRIFT_EXIT = { inSync: 0, pending: 2, drift: 3 } as const;
const OUTCOME = { inSync: 'in sync', pending: 'pending', drift: 'drift' } as const;

/** `fleet`: the number of environments checked together (each one's markdown gets a share of the limit). */
async function driftOne(paths: string[], options: DriftOptions, io: CommandIO, environment: string | undefined, fleet?: number): Promise<MemberResult> {
  const progress = fleet !== undefined ? undefined : showProgress(io);
  const prepared = await withSession(paths, options, io, (session) => planSession(session, [], { digest: false, ...(progress ? { progress: progress.observer } : {}) }), environment === undefined ? {} : { environment }).finally(() =>
    progress?.stop(),
  );
  printWarnings(prepared.warnings, io);
  const plan = redactPlan(prepared.plan, prepared.config.redact);
  const status = driftStatus(plan);
  const recorded = prepared.recorded !== undefined;
  const format = fleet !== undefined && options.format !== 'json' ? 'text' : options.format;
  return {
    outcome: OUTCOME[status],
    exitCode: DRIFT_EXIT[status],
    changes: plan.operations.length,
    // Without a recorded state drift cannot be judged: unknown in the summary, not 0.
    ...(recorded ? { drift: plan.drift.length } : {}),
    url: plan.portal.url,
    text: renderDrift(plan, format, recorded, { color: io.color, ...(io.width ? { width: io.width } : {}) }),
    ...(fleet !== undefined && options.format === 'markdown' ? { markdown: renderDrift(plan, 'markdown', recorded, { color: false, markdownLimit: sectionLimit(fleet) }) } : {}),
    ...(fleet !== undefined && options.format === 'json' ? { json: JSON.parse(renderDrift(plan, 'json', recorded)) as unknown } : {}),
  };
}

export async function driftCommand(paths: string[], options: DriftOptions, io: CommandIO): Promise<number> {
  const request = requestedEnvironments(options, io.env);
  if (!isFleet(request)) {
    const result = await driftOne(paths, options, io, singleEnvironment(request));
    io.stdout(result.text);
    return result.exitCode;
  }
  const names = await fleetNames(request, paths, io, options);
  const members = await runFleet(names, envParallelism(options.envParallelism), io, Boolean(options.verbose), (environment, own) => driftOne(paths, options, own, environment, names.length));
  return printFleet('drift', members, options.format, io);
}
