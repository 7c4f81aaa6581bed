import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { OperationOutcome } from '../../engine/execute.js';
import { assertPlanCurrent, parsePlanFile } from '../../engine/plan-file.js';
import { ApplyFailedError, NotConvergedError, applyPlan, refuseUnapprovedDestruction, type ApplyReport } from '../../engine/apply.js';
import { preparePlan } from '../../engine/pipeline.js';
import { redactPlan } from '../../engine/render/redact.js';
import { NO_CHANGES, renderPlanText } from '../../engine/render/text.js';
import { PortalctlError, UsageError } from '../../core/errors.js';
import { withStateLock } from '../../state/index.js';
import type { CommandIO } from '../io.js';
import { connect, loadDesired, parseDuration, parsePositiveInt, portalUrl, printWarnings, stateStore, withClient, type SharedOptions } from './common.js';

export interface ApplyOptions extends SharedOptions {
  plan?: string;
  autoApprove?: boolean;
  parallelism: string;
  allowDestructive?: boolean;
  target?: string[];
  format: 'text' | 'json';
  invitesDir: string;
}

export class ApplyCancelledError extends PortalctlError {}

function outcomeLine(outcome: OperationOutcome, detail: string | undefined): string {
  const { op } = outcome;
  if (outcome.status === 'applied') return `applied  ${op.address}  (${op.operation.id})${detail ? `  invitation saved to ${detail}` : ''}\n`;
  if (outcome.status === 'failed') return `FAILED   ${op.address}  (${op.operation.id}): ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}\n`;
  return `skipped  ${op.address}: ${outcome.reason}\n`;
}

function reportJson(report: ApplyReport): string {
  const { result } = report;
  return `${JSON.stringify(
    {
      applied: result.applied.map((op) => op.address),
      failed: result.failed.map(({ op, error }) => ({ address: op.address, error: error instanceof Error ? error.message : String(error) })),
      skipped: result.skipped.map(({ op, reason }) => ({ address: op.address, reason })),
      interrupted: result.interrupted,
      invitations: report.invitations,
      converged: report.after.plan.operations.length === 0,
      state: { lineage: report.state.lineage, serial: report.state.serial },
    },
    null,
    2,
  )}\n`;
}

export async function applyCommand(paths: string[], options: ApplyOptions, io: CommandIO): Promise<number> {
  if (options.plan && options.target?.length) throw new UsageError('--target cannot be combined with --plan: the saved plan already fixes its targets.');
  const parallelism = parsePositiveInt(options.parallelism, '--parallelism');
  const saved = options.plan ? parsePlanFile(await readFile(resolve(io.cwd, options.plan), 'utf8'), options.plan) : undefined;
  // A saved plan is applied with the config it was made from, unless paths are given.
  const config = await loadDesired(paths.length || !saved ? paths : saved.sources, io);
  const url = portalUrl(config, options);
  const store = stateStore(options, io);
  const client = connect(url, options, io);
  const text = options.format !== 'json';

  const report = await withClient(client, () =>
    withStateLock(store, { operation: 'apply', timeoutMs: parseDuration(options.lockTimeout, '--lock-timeout') }, async () => {
      const prepared = await preparePlan({ config, url, recorded: await store.read(), client, targets: saved?.targets ?? options.target ?? [] });
      printWarnings(prepared.warnings, io);
      if (saved) assertPlanCurrent(saved, prepared.plan, config.redact);
      if (prepared.plan.operations.length === 0) return undefined;
      refuseUnapprovedDestruction(prepared.plan, Boolean(options.allowDestructive));

      if (text) io.stdout(renderPlanText(redactPlan(prepared.plan, config.redact), { color: io.color }));
      if (!saved && !options.autoApprove) {
        if (!io.confirm) throw new UsageError('Not running on a terminal: review the plan and pass --auto-approve (or apply a saved plan with --plan FILE).');
        if (!(await io.confirm(`\nApply ${prepared.plan.operations.length} operation(s) to ${url}?`))) throw new ApplyCancelledError('Apply cancelled; nothing was changed.');
      }

      let stop = false;
      const removeHook = io.onInterrupt?.(() => (stop = true));
      try {
        if (text) io.stdout('\n');
        return await applyPlan({
          prepared,
          client,
          store,
          url,
          parallelism,
          allowDestructive: Boolean(options.allowDestructive),
          invitesDir: resolve(io.cwd, options.invitesDir),
          stopRequested: () => stop,
          onOutcome: (outcome, detail) => text && io.stdout(outcomeLine(outcome, detail)),
        });
      } finally {
        removeHook?.();
      }
    }),
  );

  if (!report) {
    io.stdout(options.format === 'json' ? `${JSON.stringify({ applied: [], failed: [], skipped: [], converged: true }, null, 2)}\n` : `${NO_CHANGES}\n`);
    return 0;
  }
  const { result } = report;
  if (options.format === 'json') io.stdout(reportJson(report));
  else io.stdout(`\nApply finished: ${result.applied.length} applied, ${result.failed.length} failed, ${result.skipped.length} skipped.\n`);

  if (result.interrupted) throw new ApplyFailedError(`Apply was interrupted: ${result.applied.length} applied and recorded, ${result.skipped.length} not started. Run apply again to finish.`);
  if (result.failed.length) throw new ApplyFailedError(`${result.failed.length} operation(s) failed: ${result.failed.map(({ op }) => op.address).join(', ')}. Successful ones are recorded; fix the cause and run apply again.`);
  if (report.after.plan.operations.length) {
    throw new NotConvergedError(
      `The portal did not converge: a new plan still has ${report.after.plan.operations.length} operation(s) (${report.after.plan.operations.map((op) => op.address).join(', ')}).`,
    );
  }
  if (text) io.stdout('The portal now matches the configuration.\n');
  return 0;
}
