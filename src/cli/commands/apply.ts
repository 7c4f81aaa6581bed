/** `portalctl apply`: the engine's apply use case, with the terminal's confirmation, Ctrl-C and output. */
import { counted } from '../../core/words.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyConfig, applyFailure, refreshOnly } from '../../engine/apply.js';
import type { PreparedPlan } from '../../engine/pipeline.js';
import { parsePlanFile } from '../../engine/plan-file.js';
import { applyResultValue, renderApplyResult, renderOutcomeLine } from '../../engine/render/apply.js';
import { FailureWithResult } from '../exit.js';
import { redactPlan } from '../../engine/render/redact.js';
import { renderPlanText } from '../../engine/render/text.js';
import { redactRecords, renderRefreshOnlyPlan, renderRefreshOnlyResult } from '../../engine/render/refresh-only.js';
import { UsageError } from '../../core/errors.js';
import { isPostgresUrl, stateSpec } from '../../state/index.js';
import { assertPrivateInvitesDir, saveInvitationFile } from '../invites.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { assertTargetsMatch } from '../targets.js';
import { parseDuration, parsePositiveInt, printWarnings, withSession, type SharedOptions } from './common.js';

export { ApplyCancelledError } from '../../engine/apply.js';

export interface ApplyOptions extends SharedOptions {
  plan?: string;
  refreshOnly?: boolean;
  autoApprove?: boolean;
  parallelism: string;
  allowDestructive?: boolean;
  force?: boolean;
  target?: string[];
  format: 'text' | 'json';
  invitesDir: string;
}

/**
 * Where operations applied but not recorded are kept (README "The state"): beside a state file
 * as `<file>.recovery.json`; for a PostgreSQL state, `portalctl-<state name>.recovery.json` in
 * the current directory.
 */
function recoveryFileFor(options: ApplyOptions, io: CommandIO): string {
  const spec = stateSpec(options.state, io.env);
  if (isPostgresUrl(spec)) return resolve(io.cwd, `portalctl-${options.stateName ?? 'default'}.recovery.json`);
  return `${resolve(io.cwd, spec)}.recovery.json`;
}

export async function applyCommand(paths: string[], options: ApplyOptions, io: CommandIO): Promise<number> {
  if (options.plan && options.target?.length) throw new UsageError('--target cannot be combined with --plan: the saved plan already fixes its targets.');
  if (options.refreshOnly) {
    if (options.plan) throw new UsageError('--refresh-only cannot be combined with --plan: a saved plan sends writes, a refresh-only run sends none.');
    return refreshOnlyCommand(paths, options, io);
  }
  const parallelism = parsePositiveInt(options.parallelism, '--parallelism');
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const planFile = options.plan;
  const saved = planFile
    ? parsePlanFile(await withFile('Could not read the plan file', planFile, () => readFile(resolve(io.cwd, planFile), 'utf8')), planFile)
    : undefined;
  const text = options.format !== 'json';
  const invitesDir = resolve(io.cwd, options.invitesDir);

  const progress = showProgress(io);
  // A saved plan is applied with the config it was made from, unless paths are given.
  const applied = await withSession(paths.length || !saved ? paths : saved.sources, options, io, async ({ config, url, store, client }) => {
    if (!client) throw new Error('apply always reads the portal');
    assertTargetsMatch(options.target ?? [], config);
    // Shown before any change: the warnings and, on text output, the plan; asked unless approved beforehand.
    const confirm = async ({ plan, warnings }: PreparedPlan): Promise<boolean> => {
      // Before any write: an invitation's file must have a safe place to go.
      if (plan.operations.some((op) => op.request.response === 'file')) await assertPrivateInvitesDir(invitesDir);
      printWarnings(warnings, io);
      if (text) io.stdout(renderPlanText(redactPlan(plan, config.redact), { color: io.color }));
      if (!saved && !options.autoApprove) {
        if (!io.confirm) throw new UsageError('Not running on a terminal: review the plan and pass --auto-approve (or apply a saved plan with --plan FILE).');
        if (!(await io.confirm(`\nApply ${counted(plan.operations.length, 'operation')} to ${url}?`))) return false;
      }
      if (text) io.stdout('\n');
      return true;
    };
    let stop = false;
    let removeHook: (() => void) | undefined;
    try {
      return await applyConfig({
        config,
        url,
        store,
        client,
        lockTimeoutMs,
        ...(saved ? { saved } : {}),
        targets: options.target ?? [],
        allowDestructive: Boolean(options.allowDestructive),
        force: Boolean(options.force),
        parallelism,
        confirm,
        saveInvitation: (filename, content) => saveInvitationFile(invitesDir, filename, content),
        recoveryFile: recoveryFileFor(options, io),
        onNotice: (message) => io.stderr(`${message}\n`),
        progress: progress.observer,
        stopRequested: () => stop,
        onPhase: (phase, result) => {
          if (phase === 'writing') {
            removeHook = io.onInterrupt?.(() => (stop = true));
            return;
          }
          removeHook?.();
          removeHook = undefined;
          io.interruptNote?.(`${counted(result?.applied.length ?? 0, 'operation')} ${result?.applied.length === 1 ? 'was' : 'were'} applied and recorded; the check that the portal converged did not finish (run plan to see)`);
        },
        onDone: (outcome, invitation) => text && io.stdout(renderOutcomeLine(outcome, invitation)),
      });
    } finally {
      removeHook?.();
    }
  }).finally(() => progress.stop());

  if (applied.prepared.plan.operations.length === 0) printWarnings(applied.prepared.warnings, io);
  const failure = applyFailure(applied);
  // Under --format json a failed apply is one error document that carries the result.
  if (failure && !text) throw new FailureWithResult(failure, applyResultValue(applied));
  io.stdout(renderApplyResult(applied, options.format));
  if (failure) throw failure;
  return 0;
}

/**
 * `apply --refresh-only`: records the live value of every managed object that drifted or is not
 * recorded, sending nothing to the portal; shows what it will record and asks, like apply.
 */
async function refreshOnlyCommand(paths: string[], options: ApplyOptions, io: CommandIO): Promise<number> {
  const parallelism = parsePositiveInt(options.parallelism, '--parallelism');
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const text = options.format !== 'json';
  const done = await withSession(paths, options, io, async ({ config, url, store, client, about }) => {
    if (!client) throw new Error('apply always reads the portal');
    assertTargetsMatch(options.target ?? [], config);
    const result = await refreshOnly({
      config,
      url,
      store,
      client,
      lockTimeoutMs,
      targets: options.target ?? [],
      parallelism,
      recoveryFile: recoveryFileFor(options, io),
      onNotice: (message) => io.stderr(`${message}\n`),
      ...(about ? { about } : {}),
      confirm: async (records, prepared) => {
        printWarnings(prepared.warnings, io);
        if (text) io.stdout(renderRefreshOnlyPlan(redactRecords(records, config.redact), redactPlan(prepared.plan, config.redact), { color: io.color, ...(io.width ? { width: io.width } : {}) }));
        if (options.autoApprove) return true;
        if (!io.confirm) throw new UsageError('Not running on a terminal: review what will be recorded and pass --auto-approve.');
        return io.confirm(`\nRecord these ${counted(records.length, 'live value')} in the state at ${store.describe()}?`);
      },
    });
    return { ...result, where: store.describe() };
  });
  const records = redactRecords(done.records, done.prepared.config.redact);
  if (text && records.length === 0) io.stdout(renderRefreshOnlyPlan(records, done.prepared.plan, { color: io.color }));
  io.stdout(renderRefreshOnlyResult({ records, plan: done.prepared.plan, state: done.state, where: done.where }, text ? 'text' : 'json'));
  return 0;
}
