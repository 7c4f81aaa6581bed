/** `portalctl apply`: the engine's apply use case, with the terminal's confirmation, Ctrl-C and output. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyConfig, applyFailure, recordedBeforeWriting, refreshOnly, type ApplyPhase, type ApplyProgressSoFar, type ApplyResult } from '../../engine/apply/apply.js';
import type { PreparedPlan } from '../../engine/plan/prepare.js';
import { parseSavedPlans } from '../../engine/plan/saved-plan.js';
import type { Plan } from '../../engine/plan/plan.js';
import { applyResultValue, renderApplyResult, renderOutcomeLine } from '../../engine/render/apply.js';
import { FailureWithResult } from '../exit.js';
import { counted, listed } from '../../core/words.js';
import { redactPlan } from '../../engine/plan/redact.js';
import { renderPlanText } from '../../engine/render/text.js';
import { redactRecords, renderRefreshOnlyPlan, renderRefreshOnlyResult } from '../../engine/render/refresh-only.js';
import { UsageError } from '../../core/errors.js';
import { isPostgresUrl, stateSpec } from '../../state/index.js';
import { assertPrivateInvitesDir, saveInvitationFile } from '../invites.js';
import { fleetNames, isFleet, plannedEnvironments, refuseOneStateOrPortal, requestedEnvironments, singleEnvironment, type EnvironmentRequest } from '../environments.js';
import { envParallelism, MemberFailure, printFleet, runFleet, type MemberResult } from '../fleet.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';
import type { GracefulStopTexts } from '../interrupts.js';
import { showProgress } from '../progress.js';
import { assertTargetsMatch } from '../../engine/plan/targets.js';
import { environmentStateOptions, printWarnings, withSession, type SharedOptions } from './common.js';
import { parseDuration, parsePositiveInt } from '../flag-values.js';
import type { Environment } from '../../engine/config/index.js';

export { ApplyCancelledError } from '../../engine/apply/apply.js';

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
 * the current directory. An environment's state is its own, and so is its recovery file.
 */
function recoveryFileFor(options: ApplyOptions, io: CommandIO, environment: Environment | undefined): string {
  const where = environmentStateOptions(options, io, environment);
  const spec = stateSpec(where.state, io.env);
  if (isPostgresUrl(spec)) return resolve(io.cwd, `portalctl-${where.stateName ?? 'default'}.recovery.json`);
  return `${resolve(io.cwd, spec)}.recovery.json`;
}

/** How one apply runs: alone (asks, handles Ctrl-C itself) or as one environment of a fleet (approved beforehand, stopped by the fleet). */
interface ApplyRun {
  environment?: string;
  saved?: Plan;
  /** Set by a fleet: aborted by its first Ctrl-C; absent, the apply registers its own Ctrl-C handling. */
  stop?: AbortSignal;
}

/** What the first Ctrl-C says while an earlier apply's leftovers are recorded (ApplyPhase `recording`). */
const FINISHING_RECORDING: GracefulStopTexts = {
  first: 'Interrupted: finishing recording what an earlier apply left (nothing is sent to the portal), then stopping. Press Ctrl-C again to stop at once.',
  atOnce: 'Stopped at once, while recording what an earlier apply left: that recording may or may not have completed (the next apply records it again); nothing was sent to the portal.',
};

/** While the live values just read are recorded (ApplyPhase `adopting`): one state write, finished before stopping. */
const FINISHING_ADOPTING: GracefulStopTexts = {
  first: 'Interrupted: finishing recording the live values just read (nothing is sent to the portal), then stopping. Press Ctrl-C again to stop at once.',
  atOnce: 'Stopped at once, while recording the live values just read: that recording may or may not have completed (run plan or drift to see); nothing was sent to the portal.',
};

/** While apply checks that the portal converged (ApplyPhase `checking`): its reads are abandoned, and what was applied is reported. */
const STOPPING_CHECK: GracefulStopTexts = {
  first: 'Interrupted: abandoning the check that the portal converged; what was applied is recorded.',
  atOnce: 'Stopped at once, while ending the check that the portal converged: what was applied is recorded (run plan to see what is left).',
};

/** Once the check's reads are done, what they saw is recorded (ApplyPhase `recordingObserved`): one state write, finished before stopping. */
const FINISHING_OBSERVED: GracefulStopTexts = {
  first: 'Interrupted: finishing recording what the check that the portal converged read (nothing more is sent to the portal), then stopping. Press Ctrl-C again to stop at once.',
  atOnce: 'Stopped at once, while recording what the check that the portal converged read: what was applied is recorded; that recording may or may not have completed (run plan to see what is left).',
};

/** `apply --refresh-only` over several environments sends nothing: its first Ctrl-C lets the recordings under way finish. */
const FLEET_REFRESH_STOP: GracefulStopTexts = {
  first: 'Interrupted: finishing the recordings under way (nothing is sent to the portal), starting no other. Press Ctrl-C again to stop at once.',
  atOnce: 'Stopped at once. Recordings under way may or may not have completed (run drift to see); nothing was sent to the portal.',
};

/** How one run (an apply, or a refresh-only run) takes Ctrl-C: the engine's stopRequested and onPhase, and its client's stopReading. */
interface RunStop {
  stopRequested: () => boolean;
  stopReading: AbortSignal;
  onPhase: (phase: ApplyPhase, soFar: ApplyProgressSoFar) => void;
  /** The run ended: its Ctrl-C handling goes. */
  end: () => void;
}

/**
 * One run's Ctrl-C by phase (ApplyPhase), for an apply or a refresh-only run alone: recording,
 * adopting and writing let what is under way finish (`stop` then ends the run); reading stops
 * the process at once, saying what was recorded before; checking abandons the check's reads
 * (`stopReading`), so that the run still reports what it applied.
 */
function singleRunStop(io: CommandIO): RunStop {
  let stop = false;
  const reading = new AbortController();
  let removeHook: (() => void) | undefined;
  // Without texts: the default, writes in flight (interrupts.ts).
  const hook = (texts: GracefulStopTexts | undefined, then?: () => void): void => {
    removeHook = io.onInterrupt?.(() => {
      stop = true;
      then?.();
    }, texts);
  };
  return {
    stopRequested: () => stop,
    stopReading: reading.signal,
    onPhase: (phase, { recorded, result }) => {
      removeHook?.();
      removeHook = undefined;
      // The note is what an interrupt says once the phase's hook is gone (the run ended, its report not printed yet).
      if (phase === 'recording') return hook(FINISHING_RECORDING);
      if (phase === 'adopting') {
        io.interruptNote?.(recordedBeforeWriting([...recorded, 'the live values just read were recorded in the state']));
        return hook(FINISHING_ADOPTING);
      }
      if (phase === 'writing') return hook(undefined);
      if (phase === 'checking') {
        const applied = result?.applied.length ?? 0;
        const failed = result?.failed.length ?? 0;
        const notSent = result?.skipped.length ?? 0;
        io.interruptNote?.(
          `${counted(applied, 'operation')} ${applied === 1 ? 'was' : 'were'} applied and recorded${failed ? `, ${failed} failed` : ''}${notSent ? `, ${notSent} not sent` : ''}; ` +
            'the check that the portal converged did not finish (run plan to see what is left)',
        );
        return hook(STOPPING_CHECK, () => reading.abort());
      }
      if (phase === 'recordingObserved') {
        const applied = result?.applied.length ?? 0;
        io.interruptNote?.(`${counted(applied, 'operation')} ${applied === 1 ? 'was' : 'were'} applied and recorded, and what the check that the portal converged read was recorded`);
        return hook(FINISHING_OBSERVED);
      }
      io.interruptNote?.(recordedBeforeWriting(recorded));
    },
    end: () => removeHook?.(),
  };
}

/**
 * One environment of a fleet stopped by its first Ctrl-C: reading (the portal, or checking the
 * result) is abandoned at once, since nothing needs finishing there; writes in flight and a
 * recording under way finish first (the apply stops after them, ApplyPhase).
 */
function fleetStop(stop: AbortSignal): RunStop {
  const reading = new AbortController();
  let finishing = false;
  const stopReads = (): void => {
    if (stop.aborted && !finishing) reading.abort();
  };
  stop.addEventListener('abort', stopReads, { once: true });
  return {
    stopRequested: () => stop.aborted,
    stopReading: reading.signal,
    onPhase: (phase) => {
      finishing = phase === 'recording' || phase === 'adopting' || phase === 'writing' || phase === 'recordingObserved';
      stopReads();
    },
    end: () => stop.removeEventListener('abort', stopReads),
  };
}

/** How a run stops at Ctrl-C: as one environment of a fleet (`stop`, aborted by the fleet's first Ctrl-C), or alone. */
const runStop = (io: CommandIO, stop: AbortSignal | undefined): RunStop => (stop ? fleetStop(stop) : singleRunStop(io));

async function applyOne(paths: string[], options: ApplyOptions, io: CommandIO, run: ApplyRun): Promise<ApplyResult> {
  const parallelism = parsePositiveInt(options.parallelism, '--parallelism');
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const { saved } = run;
  if (saved?.environment !== undefined && run.environment !== undefined && saved.environment !== run.environment) {
    throw new UsageError(`The saved plan was made in environment ${saved.environment}, not ${run.environment}.`);
  }
  const environment = run.environment ?? saved?.environment;
  const text = options.format !== 'json';
  const invitesDir = resolve(io.cwd, options.invitesDir);

  // Progress for one run; a fleet's environments run side by side, and their summary says how each went.
  const progress = run.stop ? undefined : showProgress(io);
  const stopping = runStop(io, run.stop);
  // A saved plan is applied with the config it was made from, unless paths are given.
  return withSession(
    paths.length || !saved ? paths : saved.sources,
    options,
    io,
    async ({ config, url, store, client, about }) => {
      if (!client) throw new Error('apply always reads the portal');
      // Checked against another state, a plan made against none passed as current and its records went there.
      if (saved?.about && saved.about.state !== about?.state) {
        // A fleet refuses --state-name: each environment's state name is its own, from the config.
        const withState = run.stop ? "the --state it was made with (each environment's state name is its environments.<name>.state)" : 'the --state (and --state-name) it was made with';
        throw new UsageError(`The saved plan was made against the state ${saved.about.state}, not ${about?.state ?? 'this one'}: apply it with ${withState}; nothing was applied.`);
      }
      assertTargetsMatch(options.target ?? [], config);
      // Applied with its own config, a saved plan is about the paths it was made from, not the files they held.
      const aboutRun = about && saved?.about && paths.length === 0 ? { ...about, config: saved.about.config } : about;
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
          recoveryFile: recoveryFileFor(options, io, config.environment),
          onNotice: (message) => io.stderr(`${message}\n`),
          ...(progress ? { progress: progress.observer } : {}),
          stopRequested: stopping.stopRequested,
          onPhase: stopping.onPhase,
          onDone: (outcome, invitation) => text && io.stdout(renderOutcomeLine(outcome, invitation)),
          ...(aboutRun ? { about: aboutRun } : {}),
        });
      } finally {
        stopping.end();
      }
    },
    { ...(environment === undefined ? {} : { environment }), stopReading: stopping.stopReading },
  ).finally(() => progress?.stop());
}

export async function applyCommand(paths: string[], options: ApplyOptions, io: CommandIO): Promise<number> {
  if (options.plan && options.target?.length) throw new UsageError('--target cannot be combined with --plan: the saved plan already fixes its targets.');
  const request = requestedEnvironments(options, io.env);
  if (options.refreshOnly) {
    if (options.plan) throw new UsageError('--refresh-only cannot be combined with --plan: a saved plan sends writes, a refresh-only run sends none.');
    // Each lets a write through; a refresh-only run sends none, so either would be taken and ignored.
    const allowing = [options.allowDestructive ? '--allow-destructive' : undefined, options.force ? '--force' : undefined].filter((flag) => flag !== undefined);
    if (allowing.length > 0) {
      throw new UsageError(`--refresh-only sends nothing to the portal, so ${listed(allowing)} ${allowing.length === 1 ? 'has' : 'have'} nothing to allow: leave ${allowing.length === 1 ? 'it' : 'them'} out.`);
    }
    if (!isFleet(request)) {
      io.stdout((await refreshOnlyOne(paths, options, io, singleEnvironment(request))).text);
      return 0;
    }
    return refreshOnlyFleet(paths, options, io, request);
  }
  const planFile = options.plan;
  const planText = planFile ? await withFile('Could not read the plan file', planFile, () => readFile(resolve(io.cwd, planFile), 'utf8')) : undefined;
  const savedPlans = planFile && planText !== undefined ? parseSavedPlans(planText, planFile) : undefined;
  const index = savedPlans && 'fleet' in savedPlans ? savedPlans.fleet : undefined;
  const saved = savedPlans && 'plan' in savedPlans ? savedPlans.plan : undefined;
  // Applied over several environments, one plan would leave every one of them to a plan made now, unreviewed.
  if (saved && isFleet(request)) {
    throw new UsageError(
      `${planFile} holds the plan of one environment (${saved.environment ?? 'a config without environments'}); apply it alone with \`portalctl apply --plan ${planFile}\`, or save the plans of several with \`portalctl plan --env a,b --out FILE\`.`,
    );
  }
  if (!isFleet(request) && !index) {
    const environment = singleEnvironment(request);
    const applied = await applyOne(paths, options, io, { ...(environment === undefined ? {} : { environment }), ...(saved ? { saved } : {}) });
    if (applied.prepared.plan.operations.length === 0) printWarnings(applied.prepared.warnings, io);
    const failure = applyFailure(applied);
    // Under --format json a failed apply is one error document that carries the result.
    if (failure && options.format === 'json') throw new FailureWithResult(failure, applyResultValue(applied));
    io.stdout(renderApplyResult(applied, options.format));
    if (failure) throw failure;
    return 0;
  }

  // A fleet: every environment applied on its own (approved beforehand), a failure in one stopping none of the others.
  if (!index && !options.autoApprove) throw new UsageError('Applying to several environments asks no questions: review them with `portalctl plan --env ...` and pass --auto-approve (or apply their saved plans with --plan FILE).');
  refuseOneStateOrPortal(options);
  const names = index ? plannedEnvironments(index, request) : await fleetNames(request, paths, io, options);
  const stop = new AbortController();
  const removeHook = io.onInterrupt?.(() => stop.abort());
  try {
    const members = await runFleet(
      names,
      envParallelism(options.envParallelism),
      io,
      Boolean(options.verbose),
      async (environment, own): Promise<MemberResult> => {
        const entry = index?.fleet.find((candidate) => candidate.environment === environment);
        if (index && !entry?.plan) throw new UsageError(`No saved plan for ${environment}: ${(entry?.error ?? 'it is not in the plan file').replace(/\.$/, '')}.`);
        const saved = entry?.plan;
        const applied = await applyOne(paths, options, own, { environment, ...(saved ? { saved } : {}), stop: stop.signal });
        if (applied.prepared.plan.operations.length === 0) printWarnings(applied.prepared.warnings, own);
        const failure = applyFailure(applied);
        const counted = { changes: applied.result.applied.length, drift: applied.prepared.plan.summary.drift, url: applied.prepared.plan.portal.url };
        if (failure && options.format === 'json') throw new MemberFailure(new FailureWithResult(failure, applyResultValue(applied)), counted);
        const report = renderApplyResult(applied, options.format);
        if (failure) {
          own.stdout(report);
          throw new MemberFailure(failure, counted);
        }
        return {
          outcome: applied.prepared.plan.operations.length === 0 ? 'no changes' : 'applied',
          exitCode: 0,
          ...counted,
          text: report,
          ...(options.format === 'json' ? { json: applyResultValue(applied) } : {}),
        };
      },
      () => !stop.signal.aborted,
    );
    return printFleet('apply', members, options.format, io);
  } finally {
    removeHook?.();
  }
}

/**
 * `apply --refresh-only` in one environment: records the live value of every managed object that
 * drifted or is not recorded, sending nothing to the portal; shows (on `io`) what it will record
 * and asks, like apply. Returns the result's rendering (what follows what it showed) and counts.
 */
async function refreshOnlyOne(paths: string[], options: ApplyOptions, io: CommandIO, environment: string | undefined, stop?: AbortSignal): Promise<MemberResult> {
  const parallelism = parsePositiveInt(options.parallelism, '--parallelism');
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const text = options.format !== 'json';
  const stopping = runStop(io, stop);
  const done = await withSession(
    paths,
    options,
    io,
    async ({ config, url, store, client, about }) => {
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
        recoveryFile: recoveryFileFor(options, io, config.environment),
        onNotice: (message) => io.stderr(`${message}\n`),
        ...(about ? { about } : {}),
        stopRequested: stopping.stopRequested,
        onPhase: stopping.onPhase,
        confirm: async (records, prepared) => {
          printWarnings(prepared.warnings, io);
          if (text) io.stdout(renderRefreshOnlyPlan(redactRecords(records, config.redact), redactPlan(prepared.plan, config.redact), { color: io.color, ...(io.width ? { width: io.width } : {}) }));
          if (options.autoApprove) return true;
          if (!io.confirm) throw new UsageError('Not running on a terminal: review what will be recorded and pass --auto-approve.');
          return io.confirm(`\nRecord these ${counted(records.length, 'live value')} in the state at ${store.describe()}?`);
        },
      }).finally(() => stopping.end());
      return { ...result, where: store.describe() };
    },
    { ...(environment === undefined ? {} : { environment }), stopReading: stopping.stopReading },
  );
  const records = redactRecords(done.records, done.prepared.config.redact);
  const result = renderRefreshOnlyResult({ records, plan: done.prepared.plan, state: done.state, where: done.where, namesRecorded: done.namesRecorded }, text ? 'text' : 'json');
  return {
    outcome: records.length === 0 ? 'nothing to record' : 'recorded',
    exitCode: 0,
    changes: records.length,
    drift: records.filter((record) => record.reason === 'drift').length,
    url: done.prepared.plan.portal.url,
    // With nothing to record no question was asked, so nothing was shown yet.
    text: text && records.length === 0 ? `${renderRefreshOnlyPlan(records, done.prepared.plan, { color: io.color })}${result}` : result,
    ...(text ? {} : { json: JSON.parse(result) as unknown }),
  };
}

/** `apply --refresh-only` over several environments: each records its own live values; approved beforehand. */
async function refreshOnlyFleet(paths: string[], options: ApplyOptions, io: CommandIO, request: EnvironmentRequest): Promise<number> {
  if (!options.autoApprove) throw new UsageError('Recording live values in several environments asks no questions: review them with `portalctl drift --env ...` and pass --auto-approve.');
  refuseOneStateOrPortal(options);
  const names = await fleetNames(request, paths, io, options);
  // The first Ctrl-C: environments recording finish that, those reading stop at once, no other starts (as a fleet apply).
  const stop = new AbortController();
  const removeHook = io.onInterrupt?.(() => stop.abort(), FLEET_REFRESH_STOP);
  try {
    const members = await runFleet(
      names,
      envParallelism(options.envParallelism),
      io,
      Boolean(options.verbose),
      (environment, own) => refreshOnlyOne(paths, options, own, environment, stop.signal),
      () => !stop.signal.aborted,
    );
    return printFleet('apply --refresh-only', members, options.format === 'json' ? 'json' : 'text', io);
  } finally {
    removeHook?.();
  }
}
