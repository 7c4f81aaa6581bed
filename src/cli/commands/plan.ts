import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { serializePlan, serializeFleetPlans, type FleetPlanEntry } from '../../engine/plan/saved-plan.js';
import { planSession } from '../../engine/plan/prepare.js';
import { renderPlanMarkdown } from '../../engine/render/markdown.js';
import { renderPlan } from '../../engine/render/plan-output.js';
import { sectionLimit } from '../../engine/render/fleet.js';
import { redactPlan } from '../../engine/plan/redact.js';
import { fileErrorReason, UsageError } from '../../core/errors.js';
import { shellWord } from '../../core/words.js';
import { redactPostgresUrl } from '../../state/index.js';
import { fleetNames, isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';
import { envParallelism, printFleet, runFleet, type MemberResult } from '../fleet.js';
import { isStandardOutput, refuseDirectoryAsOut, unwritableReason, withFile, writeKeptFile } from '../files.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { assertTargetsMatch } from '../../engine/plan/targets.js';
import { unrecordedPerformed } from '../../engine/plan/unknown-outcomes.js';
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

/** One plan (in `environment` when named): rendered, saved with --out, with its exit code. */
async function planOne(paths: string[], options: PlanOptions, io: CommandIO, environment: string | undefined, out: string | undefined, fleet?: { markdownLimit?: number }): Promise<MemberResult & { url: string }> {
  const markdownLimit = fleet?.markdownLimit;
  const refresh = parseRefresh(options.refresh);
  const targets = options.target ?? [];
  // Progress for one run; a fleet's environments run side by side, and their summary says how each went.
  const progress = fleet ? undefined : showProgress(io);
  const { plan, config, warnings } = await withSession(
    paths,
    options,
    io,
    (session) => {
      assertTargetsMatch(targets, session.config);
      return planSession(session, targets, { digest: out !== undefined || fleet !== undefined || options.format === 'json', ...(progress ? { progress: progress.observer } : {}) });
    },
    { refresh, ...(environment === undefined ? {} : { environment }) },
  ).finally(() => progress?.stop());
  printWarnings(warnings, io);

  if (out) {
    await withFile('Could not write the plan to', out, () => writeKeptFile(resolve(io.cwd, out), serializePlan(plan, config.redact), PLAN_FILE));
    // With the portal and state flags given here: a saved plan is checked against that portal and
    // state (without them, it was applied to the config's portal.url, or stale).
    const flags = [
      options.portal === undefined ? '' : ` --portal ${shellWord(options.portal)}`,
      options.insecure ? ' --insecure' : '',
      options.state === undefined ? '' : ` --state ${shellWord(redactPostgresUrl(options.state))}`,
      options.stateName === undefined ? '' : ` --state-name ${shellWord(options.stateName)}`,
    ].join('');
    io.stderr(`Saved the plan to ${out}; apply it with: portalctl apply --plan ${shellWord(out)}${flags}\n`);
  }
  const shown = redactPlan(plan, config.redact);
  // A write the portal performed whose answer was lost is work for apply too (it records it, and recovers an invitation's file).
  const toRecord = unrecordedPerformed(plan).length > 0;
  const exitCode = options.detailedExitcode && (plan.operations.length > 0 || toRecord) ? 2 : 0;
  return {
    outcome: plan.operations.length > 0 ? 'changes' : toRecord ? 'to record' : 'no changes',
    exitCode,
    ...(fleet ? { saved: redactPlan(plan, config.redact) } : {}),
    changes: plan.operations.length,
    drift: plan.summary.drift,
    url: plan.portal.url,
    text: renderPlan(shown, options.format === 'markdown' && markdownLimit === undefined ? 'markdown' : options.format === 'json' ? 'json' : 'text', { color: io.color, ...(io.width ? { width: io.width } : {}), ...(out ? { savedTo: out } : {}) }),
    ...(markdownLimit === undefined ? {} : { markdown: renderPlanMarkdown(shown, { maxLength: markdownLimit, ...(out ? { fullPlanHint: `the saved plan file \`${out}\`` } : {}) }) }),
    ...(options.format === 'json' ? { json: shown } : {}),
  };
}

/** A plan file replaces the plan saved before (renamed over it: a reviewed plan is never half-written); a new one is the owner's alone. */
const PLAN_FILE = { replace: true, mode: 0o600 };

/**
 * `--out` replaces a plan saved before, never another file (`--out portalctl.yaml` by mistake
 * would have written the plan over a config): checked before anything is read. A plan file's
 * JSON starts with its formatVersion; an empty file is taken too (one made to hold it).
 */
async function refuseToOverwriteOtherFiles(out: string, cwd: string): Promise<void> {
  await refuseDirectoryAsOut(out, cwd, { example: 'plan.json', nothing: 'nothing was read or written' });
  const file = resolve(cwd, out);
  const failed = (error: unknown) => new UsageError(`Could not write the plan to ${out}: ${fileErrorReason(error)}; nothing was read or written.`, { cause: error });
  const existing = await stat(file).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw failed(error);
  });
  if (!existing) return;
  // This command's own standard output is not one to write to: the plan's text goes there too
  // (a pipe, a terminal, or the file it is redirected to, which a rename would replace).
  if (isStandardOutput(existing)) {
    throw new UsageError(`--out ${out} is this command's standard output, where the plan's text goes too: save the plan to a file, or print it with --format json; nothing was read or written.`);
  }
  // A device or a pipe is written to, never read: reading it could wait forever.
  if (!existing.isFile()) return;
  let head: string;
  try {
    const handle = await open(file, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw failed(error);
  }
  // A state file starts with a formatVersion too: its lineage, next, tells it apart (a plan's
  // `--out portalctl.state.json` wrote the plan over the state).
  const isState = /"lineage"\s*:/.test(head);
  if (head.trim() === '' || (/^\{\s*"formatVersion"\s*:/.test(head) && !isState)) return;
  if (isState) {
    throw new UsageError(`${out} is a portalctl state file: --out replaces only a plan file. Save the plan to another path, such as plan.json; nothing was read or written.`);
  }
  throw new UsageError(`${out} exists and is not a saved plan: --out replaces only a plan file. Choose another path, or remove ${out}; nothing was read or written.`);
}

export async function planCommand(paths: string[], options: PlanOptions, io: CommandIO): Promise<number> {
  if (options.out !== undefined) {
    await refuseToOverwriteOtherFiles(options.out, io.cwd);
    const unwritable = await unwritableReason(resolve(io.cwd, options.out), PLAN_FILE);
    if (unwritable) throw new UsageError(`Could not write the plan to ${options.out}: ${unwritable}; nothing was read or written.`);
  }
  const request = requestedEnvironments(options, io.env);
  if (!isFleet(request)) {
    const result = await planOne(paths, options, io, singleEnvironment(request), options.out);
    io.stdout(result.text);
    return result.exitCode;
  }
  // A fleet: each environment's plan, then one report (and with --out one file holding every plan).
  const names = await fleetNames(request, paths, io, options);
  const members = await runFleet(names, envParallelism(options.envParallelism), io, Boolean(options.verbose), (environment, own) =>
    planOne(paths, options, own, environment, undefined, options.format === 'markdown' ? { markdownLimit: sectionLimit(names.length) } : {}),
  );
  if (options.out) {
    const out = options.out;
    const entries: FleetPlanEntry[] = members.map((member) => ({
      environment: member.environment,
      exitCode: member.exitCode,
      outcome: member.outcome,
      ...(member.saved ? { plan: member.saved } : { error: member.error ?? member.outcome }),
    }));
    await withFile('Could not write the plans to', out, () => writeKeptFile(resolve(io.cwd, out), serializeFleetPlans(entries), PLAN_FILE));
    io.stderr(`Saved the plans of ${entries.filter((entry) => entry.plan).length} environment(s) to ${out}; apply them with: portalctl apply --plan ${out}\n`);
  }
  return printFleet('plan', members, options.format, io);
}
