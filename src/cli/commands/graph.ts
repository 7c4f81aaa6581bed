/**
 * `portalctl graph`: the operations of the plan and their dependencies, as Mermaid or DOT. The
 * same plan value as `plan` (and the same graph its markdown shows); read-only.
 */
import { planSession } from '../../engine/plan/prepare.js';
import { graphNote, renderGraph } from '../../engine/render/graph.js';
import { redactPlan } from '../../engine/plan/redact.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { assertTargetsMatch } from '../../engine/plan/targets.js';
import { parseRefresh } from './plan.js';
import { printWarnings, withSession, type SharedOptions } from './common.js';
import { UsageError } from '../../core/errors.js';
import { isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';

export interface GraphOptions extends SharedOptions {
  format: 'mermaid' | 'dot';
  refresh: string;
  target?: string[];
}

/** Why graph takes one environment, in its refusals. */
const ONE_ENVIRONMENT = "graph draws one environment's plan";

export async function graphCommand(paths: string[], options: GraphOptions, io: CommandIO): Promise<number> {
  const request = requestedEnvironments(options, io.env);
  if (isFleet(request)) throw new UsageError(`${ONE_ENVIRONMENT}: name it with --env NAME.`);
  const environment = singleEnvironment(request);
  const refresh = parseRefresh(options.refresh);
  const targets = options.target ?? [];
  const progress = showProgress(io);
  const { plan, config, warnings } = await withSession(
    paths,
    options,
    io,
    (session) => {
      assertTargetsMatch(targets, session.config);
      return planSession(session, targets, { progress: progress.observer });
    },
    { refresh, oneEnvironment: ONE_ENVIRONMENT, ...(environment === undefined ? {} : { environment }) },
  ).finally(() => progress.stop());
  printWarnings(warnings, io);
  // The diagram on stdout, valid however empty (a pipe into `dot -Tsvg`); what it cannot say for itself, for people, on stderr.
  const note = graphNote(plan);
  if (note) io.stderr(note);
  io.stdout(renderGraph(redactPlan(plan, config.redact), options.format));
  return 0;
}
