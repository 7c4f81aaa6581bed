// Shared by the GitHub Action and the GitLab template: runs one portalctl command the way CI
// needs it and returns its exit code, its counts and a markdown report for the comment; the
// job log gets the plan as text (`portalctl show`), not only the comment.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMMANDS = ['plan', 'apply', 'drift'];

/** Exit codes that mean the command did its job: 2 is "changes present" / "pending". */
export function succeeded(command, exitCode, { failOnDrift = true } = {}) {
  if (command === 'apply') return exitCode === 0;
  if (command === 'drift') return exitCode === 0 || exitCode === 2 || (exitCode === 3 && !failOnDrift);
  return exitCode === 0 || exitCode === 2;
}

/** Splits a CI input into words like a shell would (quotes group, no expansion). */
export function splitWords(text) {
  const words = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of String(text ?? '').matchAll(pattern)) words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]));
  return words;
}

/**
 * Which portalctl to run: PORTALCTL_BIN, else the bundled CLI beside this script when it is
 * part of an installed package (or a built checkout), else `portalctl` on the PATH.
 */
export function portalctlCommand(env = process.env) {
  const bin = env.PORTALCTL_BIN;
  if (bin) return /\.[cm]?js$/.test(bin) ? [process.execPath, bin] : [bin];
  const bundled = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bin', 'portalctl.js');
  return existsSync(bundled) ? [process.execPath, bundled] : ['portalctl'];
}

/** `env`: one environment, several separated by commas (a fleet), or `all` (--all-envs); empty: none. */
export function environmentArgs(env = '') {
  const text = String(env).trim();
  if (text === '') return [];
  return text === 'all' ? ['--all-envs'] : ['--env', text.split(/[\s,]+/).filter(Boolean).join(',')];
}

/** Whether `env` makes the run a fleet (several environments, one report). */
export const isFleet = (env = '') => String(env).trim() === 'all' || String(env).split(/[\s,]+/).filter(Boolean).length > 1;

/**
 * The words after `portalctl` for one run (`format` and `out` are added by runPortalctl).
 * `reviewedPlan`: apply exactly that saved plan (`apply --plan`), with the config of this checkout.
 */
export function commandArgs({ command, config = '', state = '', stateName = '', env = '', args = '', reviewedPlan = '' }) {
  if (!COMMANDS.includes(command)) throw new Error(`command must be one of ${COMMANDS.join(', ')}, not "${command}".`);
  return [
    command,
    ...splitWords(config),
    ...(command === 'apply' ? ['--auto-approve'] : []),
    ...(command === 'apply' && reviewedPlan ? ['--plan', reviewedPlan] : []),
    ...(state ? ['--state', state] : []),
    ...(stateName ? ['--state-name', stateName] : []),
    ...environmentArgs(env),
    ...splitWords(args),
  ];
}

/** The shared options of a run (state, name, portal, ...) for a `plan` made in its place. */
function planArgs(inputs) {
  return commandArgs({ ...inputs, command: 'plan', args: withoutApplyFlags(inputs.args) });
}

/** Flags only apply takes, dropped when the same settings make a plan. */
function withoutApplyFlags(args) {
  const words = splitWords(args);
  const kept = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (['--allow-destructive', '--force', '--auto-approve'].includes(word)) continue;
    if (['--invites-dir', '--parallelism', '--plan'].includes(word)) {
      i++;
      continue;
    }
    if (/^--(invites-dir|parallelism|plan)=/.test(word)) continue;
    kept.push(/\s/.test(word) ? `'${word}'` : word);
  }
  return kept.join(' ');
}

function spawnCollect(argv, env) {
  const [file, ...rest] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(file, rest, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    // Errors and warnings stay visible in the job log as they come.
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(withErrorDocument({ code: code ?? (signal ? 1 : 0), stdout, stderr })));
  });
}

/**
 * Under --format json portalctl prints an error as a JSON document on stdout (README "Machine
 * output"): its message and diagnostics become stderr text again, for the job log and the
 * comment, and a failed apply's result (in the document) becomes its stdout.
 */
function withErrorDocument(result) {
  if (result.code === 0) return result;
  let document;
  try {
    document = JSON.parse(result.stdout);
  } catch {
    return result;
  }
  if (!document || typeof document.error !== 'string' || !Array.isArray(document.diagnostics) || document.exitCode === undefined) return result;
  const where = (diagnostic) => (diagnostic.location ? `${diagnostic.location.file}:${diagnostic.location.line}:${diagnostic.location.column}: ` : '');
  const lines = document.diagnostics.length > 1 || document.diagnostics[0]?.location
    ? document.diagnostics.map((diagnostic) => `${where(diagnostic)}${diagnostic.severity}: ${diagnostic.message}${diagnostic.address ? ` [${diagnostic.address}]` : ''} (${diagnostic.code})`)
    : [];
  const text = `${[...lines, `Error: ${document.error}`].join('\n')}\n`;
  process.stderr.write(text);
  return { code: result.code, stdout: document.result === undefined ? '' : JSON.stringify(document.result), stderr: `${result.stderr}${text}`, diagnostics: document.diagnostics };
}

/** The output flags each command is run with, after commandArgs (the CI recipes test checks them too). */
export function outputArgs(command, planFile = 'portalctl-plan.json') {
  if (command === 'plan') return [['--format', 'markdown', '--detailed-exitcode', '--out', planFile]];
  if (command === 'drift') return [['--format', 'json'], ['--format', 'markdown']];
  return [['--format', 'json']];
}

/**
 * The CLI's own escaping of untrusted text (src/engine/render/escape.ts, bundled beside the CLI):
 * the portal's messages and names in this script's markdown go through it too.
 */
const { fencedLine, markdownCode, markdownText, terminalText } = createRequire(import.meta.url)('../../dist/bin/escape.cjs');

const fence = (text) => ['```', ...text.trimEnd().split('\n').map(fencedLine), '```'].join('\n');

/** Text from the portal or the config inside markdown: nothing in it may open HTML or break a line or a table. */
const inline = (text) => markdownText(String(text));
const code = (text) => markdownCode(String(text));

function failureMarkdown(command, result) {
  const lines = [`### portalctl ${command}`, '', `**Failed (exit ${result.code}).**`];
  const output = result.stderr.trim() || result.stdout.trim();
  if (output) lines.push('', fence(output.length > 20_000 ? `…${output.slice(-20_000)}` : output));
  return `${lines.join('\n')}\n`;
}

const listOf = (title, entries) => (entries.length ? ['', `<details><summary>${title} (${entries.length})</summary>`, '', ...entries.map((entry) => `- ${entry}`), '', '</details>'] : []);

/** The line naming what a report is about (as the markdown plan's): portal, state, config, release. */
export function aboutMarkdown({ portal, about }) {
  if (!portal?.url) return '';
  const parts = [`Portal ${portal.name ? `**${inline(portal.name)}** ` : ''}${code(portal.url)}`];
  if (about) parts.push(`state ${code(about.state)}`, `config ${about.config.map(code).join(' ')}`, `portalctl ${inline(about.portalctl)}`);
  return parts.join(' · ');
}

/** The apply result as a comment: counts, convergence, then what was applied, failed, skipped and adopted. */
export function applyMarkdown(report, { reviewed } = {}) {
  const lines = [
    '### portalctl apply',
    '',
    report.applied.length + report.failed.length + report.skipped.length === 0
      ? '**No changes. The portal matches the configuration.**'
      : `**Apply finished: ${report.applied.length} applied, ${report.failed.length} failed, ${report.skipped.length} skipped.**`,
  ];
  const about = aboutMarkdown(report);
  if (about) lines.push('', about);
  if (reviewed) lines.push('', `Applied the plan reviewed on ${reviewed}, unchanged (\`apply --plan\`).`);
  if (report.converged === false && report.failed.length === 0) lines.push('', '⚠️ The portal did not converge: a new plan still has operations.');
  else if (report.converged && report.failed.length === 0 && report.applied.length > 0) lines.push('', '✅ The portal now matches the configuration.');
  lines.push(...listOf('Failed', report.failed.map((entry) => `${code(entry.address)}: ${inline(entry.error)}`)));
  lines.push(...listOf('Applied', report.applied.map(code)));
  lines.push(...listOf('Skipped', report.skipped.map((entry) => `${code(entry.address)}: ${inline(entry.reason)}`)));
  const adopted = (report.adopted ?? []).filter((entry) => entry.reason === 'drift');
  lines.push(...listOf("Drift resolved by adopting the portal's value (the configuration matches it; recorded, nothing sent)", adopted.map((entry) => code(entry.address))));
  return `${lines.join('\n')}\n`;
}

/** The apply result for the job log, as plain lines. */
function applyLog(report) {
  const lines = [`portalctl apply: ${report.applied.length} applied, ${report.failed.length} failed, ${report.skipped.length} skipped; ${report.converged ? 'converged' : 'did not converge'}.`];
  // The job log is read in a terminal-like view: the portal's text gets no say in it.
  for (const address of report.applied) lines.push(`  applied  ${terminalText(String(address))}`);
  for (const entry of report.failed) lines.push(`  FAILED   ${terminalText(String(entry.address))}: ${terminalText(String(entry.error))}`);
  for (const entry of report.skipped) lines.push(`  skipped  ${terminalText(String(entry.address))}: ${terminalText(String(entry.reason))}`);
  return `${lines.join('\n')}\n`;
}

const actionCounts = (operations) => ({
  create: operations.filter((op) => op.action === 'create').length,
  update: operations.filter((op) => op.action === 'update').length,
  delete: operations.filter((op) => op.action === 'delete').length,
});

/** The plan's counts as outputs: what it does, and what apply would refuse in it. */
const planCounts = (plan) => ({
  create: plan.summary.create,
  update: plan.summary.update,
  delete: plan.summary.delete,
  destructive: plan.summary.destructive,
  drift: plan.summary.drift,
  refusals: (plan.refusals ?? []).length,
});

/**
 * What made `apply --plan` refuse a stale plan (src/engine/plan/saved-plan.ts), from its JSON error
 * document's `stale-plan` diagnostic; undefined for any other failure. Decided by the code, never
 * by the message text.
 */
export function staleReason(result) {
  const stale = result.diagnostics?.find((diagnostic) => diagnostic.code === 'stale-plan');
  return stale ? String(stale.value ?? stale.message) : undefined;
}

/**
 * Runs the command. Returns { exitCode, counts, markdown, ... }: counts are numbers by name
 * (plan: create, update, delete, destructive, drift, refusals; drift: drift, pending, create,
 * update, delete; apply: applied, failed, skipped), empty when the command failed before
 * counting. `log` writes to the job log. drift: `drifted` (drift in the portal, or in any of the
 * environments) and `report` (`driftJudged` false: no state, or an environment not read, to
 * judge its absence by) decide the drift issue.
 *
 * `inputs.reviewed` (apply only): `{ file, source }` applies exactly that saved plan, or
 * `{ missing }` says why there is none; either refusal (none, or stale) is never applied: the
 * result is a plan made now, in the comment, and exit 1.
 */
export async function runPortalctl(inputs, env = process.env, { log = (text) => process.stdout.write(text) } = {}) {
  if (isFleet(inputs.env)) return runFleet(inputs, env, log);
  const cli = portalctlCommand(env);
  const { command } = inputs;
  const show = async (file) => {
    const shown = await spawnCollect([...cli, 'show', file, '--format', 'text'], env);
    if (shown.code === 0) log(shown.stdout);
  };
  if (command === 'plan') {
    // Kept in the working directory: an artifact to upload, and what the truncated comment points to.
    const planFile = inputs.planFile || 'portalctl-plan.json';
    await rm(resolve(planFile), { force: true });
    const result = await spawnCollect([...cli, ...commandArgs(inputs), ...outputArgs('plan', planFile)[0]], env);
    if (!succeeded('plan', result.code)) return { exitCode: result.code, counts: {}, markdown: failureMarkdown(command, result) };
    const plan = JSON.parse(await readFile(resolve(planFile), 'utf8'));
    await show(planFile);
    return { exitCode: result.code, counts: planCounts(plan), markdown: result.stdout, plan };
  }
  if (command === 'drift') {
    const base = [...cli, ...commandArgs(inputs)];
    const [asJson, asMarkdown] = outputArgs('drift');
    const json = await spawnCollect([...base, ...asJson], env);
    if (![0, 2, 3].includes(json.code)) return { exitCode: json.code, counts: {}, markdown: failureMarkdown(command, json) };
    const report = JSON.parse(json.stdout);
    const counts = { drift: report.drift.length, pending: report.pending.length, ...actionCounts(report.pending) };
    const markdown = await spawnCollect([...base, ...asMarkdown], env);
    log(markdown.stdout);
    return { exitCode: json.code, counts, markdown: markdown.stdout, report, drifted: json.code === 3 };
  }

  const reviewed = inputs.reviewed;
  if (reviewed?.missing) return notApplied(inputs, env, cli, reviewed.missing, log);
  if (reviewed?.file) {
    log(`The reviewed plan${reviewed.source ? ` (${reviewed.source})` : ''}, applied unchanged:\n`);
    await show(reviewed.file);
  }
  const result = await spawnCollect([...cli, ...commandArgs({ ...inputs, reviewedPlan: reviewed?.file ?? '' }), ...outputArgs('apply')[0]], env);
  const stale = reviewed?.file && result.code !== 0 ? staleReason(result) : undefined;
  if (stale) return notApplied(inputs, env, cli, `the reviewed plan is stale: ${stale}`, log);
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    return { exitCode: result.code, counts: {}, markdown: failureMarkdown(command, result) };
  }
  if (!reviewed?.file && report.plan) {
    // Without a reviewed plan the log shows the plan that was applied.
    const applied = resolve(inputs.appliedPlanFile || 'portalctl-applied-plan.json');
    await writeFile(applied, `${JSON.stringify(report.plan, null, 2)}\n`);
    log('The plan that was applied:\n');
    await show(applied);
  }
  log(applyLog(report));
  const counts = { applied: report.applied.length, failed: report.failed.length, skipped: report.skipped.length };
  const markdown = applyMarkdown(report, { reviewed: reviewed?.source }) + (result.code === 0 ? '' : `\n${failureMarkdown(command, { ...result, stdout: '' }).split('\n').slice(2).join('\n')}`);
  return { exitCode: result.code, counts, markdown, report };
}

/**
 * An apply that must not run (no reviewed plan, or a stale one): nothing is applied; a plan is
 * made now into the report, for review, and the run fails.
 */
async function notApplied(inputs, env, cli, reason, log) {
  const planFile = inputs.replanFile || 'portalctl-replan.json';
  const replan = await spawnCollect([...cli, ...planArgs(inputs), '--format', 'markdown', '--out', planFile], env);
  const lines = [
    '### portalctl apply',
    '',
    `**Not applied: ${inline(reason)}.** Nothing was sent to the portal.`,
    '',
    'The plan made now against this configuration is below. Review it; to apply it, open a pull request (its plan is then the reviewed one), or run the apply by hand once it is reviewed.',
  ];
  const plan = replan.code === 0 ? replan.stdout.replace(/^### portalctl plan\n/, '#### The plan now\n') : failureMarkdown('plan', replan);
  log(`portalctl apply: not applied: ${reason}. The plan made now:\n`);
  if (replan.code === 0) {
    const shown = await spawnCollect([...cli, 'show', planFile, '--format', 'text'], env);
    if (shown.code === 0) log(shown.stdout);
  }
  return { exitCode: 1, counts: { applied: 0, failed: 0, skipped: 0 }, markdown: `${lines.join('\n')}\n\n${plan}`, notApplied: reason };
}

const sum = (entries, pick) => entries.reduce((total, entry) => total + (pick(entry) ?? 0), 0);

/**
 * A fleet run (`env` names several environments, or `all`): portalctl's own fleet report is the
 * markdown, and the counts are the sums over the environments, plus `environments` (how many
 * ran) and `failed-environments` (how many failed: apart from `failed`, apply's failed operations). A plan saves one file holding every environment's plan
 * (the artifact reviewed); an apply applies that file when it was reviewed, and, like a single
 * apply, applies nothing when the reviewed plans are missing.
 */
async function runFleet(inputs, env, log) {
  const cli = portalctlCommand(env);
  const base = [...cli, ...commandArgs(inputs)];
  const { command } = inputs;
  if (command === 'plan') {
    const planFile = inputs.planFile || 'portalctl-plan.json';
    // A file left by an earlier run (a runner that keeps its workspace) must not pass for this run's plans.
    await rm(resolve(planFile), { force: true });
    const result = await spawnCollect([...base, ...outputArgs('plan', planFile)[0]], env);
    let plans;
    try {
      plans = JSON.parse(await readFile(resolve(planFile), 'utf8'));
    } catch {
      return { exitCode: result.code, counts: {}, markdown: result.stdout.trim() ? result.stdout : failureMarkdown(command, result) };
    }
    const planned = plans.fleet.filter((entry) => entry.plan).map((entry) => entry.plan);
    const counts = { ...Object.fromEntries(['create', 'update', 'delete', 'destructive', 'drift'].map((key) => [key, sum(planned, (plan) => plan.summary[key])])), refusals: sum(planned, (plan) => plan.refusals?.length) };
    return { exitCode: result.code, counts: { ...counts, environments: plans.fleet.length, 'failed-environments': plans.fleet.length - planned.length }, markdown: result.stdout, plan: plans };
  }
  if (command === 'apply' && inputs.reviewed?.missing) {
    const plan = await spawnCollect([...cli, ...commandArgs({ ...inputs, command: 'plan' }), '--format', 'markdown'], env);
    log(`portalctl apply: not applied: ${inputs.reviewed.missing}.\n`);
    const lines = ['### portalctl apply', '', `**Not applied: ${inline(inputs.reviewed.missing)}.** Nothing was sent to any portal.`, '', 'The plans made now against this configuration are below.'];
    return { exitCode: 1, counts: { applied: 0, failed: 0, skipped: 0 }, markdown: `${lines.join('\n')}\n\n${plan.stdout}`, notApplied: inputs.reviewed.missing };
  }
  const json = await spawnCollect([...cli, ...commandArgs({ ...inputs, reviewedPlan: inputs.reviewed?.file ?? '' }), '--format', 'json'], env);
  let report;
  try {
    report = JSON.parse(json.stdout);
  } catch {
    return { exitCode: json.code, counts: {}, markdown: failureMarkdown(command, json) };
  }
  // A failed environment's report is portalctl's JSON error document; an apply that failed half-way has its result in it.
  const resultOf = (entry) => (entry.error === undefined ? entry.report : entry.report?.result);
  const reports = report.environments.map(resultOf).filter(Boolean);
  const failed = report.environments.filter((entry) => entry.error !== undefined).length;
  if (command === 'drift') {
    const pending = reports.flatMap((entry) => entry.pending ?? []);
    const counts = { drift: sum(reports, (entry) => entry.drift?.length), pending: pending.length, ...actionCounts(pending), environments: report.environments.length, 'failed-environments': failed };
    const markdown = await spawnCollect([...base, '--format', 'markdown'], env);
    // For the drift issue: drift in any environment is drift; its absence counts only when every environment was judged.
    const judgedAll = failed === 0 && reports.every((entry) => entry.driftJudged !== false);
    const drifted = reports.some((entry) => (entry.drift?.length ?? 0) > 0);
    return { exitCode: json.code, counts, markdown: markdown.stdout, report: { driftJudged: drifted || judgedAll }, drifted };
  }
  const counts = { applied: sum(reports, (entry) => entry.applied?.length), failed: sum(reports, (entry) => entry.failed?.length), skipped: sum(reports, (entry) => entry.skipped?.length), environments: report.environments.length, 'failed-environments': failed };
  const rows = report.environments.map((entry) => `| ${entry.environment} | ${entry.changes ?? '-'} | ${entry.outcome}${entry.error ? `: ${inline(entry.error)}` : ''} |`);
  const sections = report.environments.map((entry) => {
    const result = resultOf(entry);
    const applied = result ? applyMarkdown(result, inputs.reviewed?.source ? { reviewed: inputs.reviewed.source } : {}).replace(/^### portalctl apply\n+/, '') : '';
    const failure = entry.error === undefined ? '' : `**Failed:** ${inline(entry.error)}\n`;
    return `#### ${entry.environment}\n\n${failure}${failure && applied ? '\n' : ''}${applied}`;
  });
  const markdown = [`### portalctl apply: ${report.environments.length} environments`, '', '| environment | applied | outcome |', '|---|---|---|', ...rows, '', ...sections].join('\n');
  return { exitCode: json.code, counts, markdown: `${markdown}\n`, report };
}
