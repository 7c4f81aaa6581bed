// Shared by the GitHub Action and the GitLab template: runs one portalctl command the way CI
// needs it and returns its exit code, its counts and a markdown report for the comment.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
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

/** The words after `portalctl` for one run (`format` and `out` are added by runPortalctl). */
export function commandArgs({ command, config = '', state = '', stateName = '', args = '' }) {
  if (!COMMANDS.includes(command)) throw new Error(`command must be one of ${COMMANDS.join(', ')}, not "${command}".`);
  return [
    command,
    ...splitWords(config),
    ...(command === 'apply' ? ['--auto-approve'] : []),
    ...(state ? ['--state', state] : []),
    ...(stateName ? ['--state-name', stateName] : []),
    ...splitWords(args),
  ];
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
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), stdout, stderr }));
  });
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
const { fencedLine, markdownCode, markdownText } = createRequire(import.meta.url)('../../dist/bin/escape.cjs');

const fence = (text) => ['```', ...text.trimEnd().split('\n').map(fencedLine), '```'].join('\n');

function failureMarkdown(command, result) {
  const lines = [`### portalctl ${command}`, '', `**Failed (exit ${result.code}).**`];
  const output = result.stderr.trim() || result.stdout.trim();
  if (output) lines.push('', fence(output.length > 20_000 ? `…${output.slice(-20_000)}` : output));
  return `${lines.join('\n')}\n`;
}

const listOf = (title, entries) => (entries.length ? ['', `<details><summary>${title} (${entries.length})</summary>`, '', ...entries.map((entry) => `- ${entry}`), '', '</details>'] : []);

function applyMarkdown(report) {
  const code = (address) => markdownCode(String(address));
  const lines = [
    '### portalctl apply',
    '',
    report.applied.length + report.failed.length + report.skipped.length === 0
      ? '**No changes. The portal matches the configuration.**'
      : `**Apply finished: ${report.applied.length} applied, ${report.failed.length} failed, ${report.skipped.length} skipped.**`,
  ];
  if (report.converged === false && report.failed.length === 0) lines.push('', '⚠️ The portal did not converge: a new plan still has operations.');
  lines.push(...listOf('Failed', report.failed.map((entry) => `${code(entry.address)}: ${markdownText(String(entry.error))}`)));
  lines.push(...listOf('Applied', report.applied.map(code)));
  lines.push(...listOf('Skipped', report.skipped.map((entry) => `${code(entry.address)}: ${markdownText(String(entry.reason))}`)));
  return `${lines.join('\n')}\n`;
}

const actionCounts = (operations) => ({
  create: operations.filter((op) => op.action === 'create').length,
  update: operations.filter((op) => op.action === 'update').length,
  delete: operations.filter((op) => op.action === 'delete').length,
});

/**
 * Runs the command. Returns { exitCode, counts, markdown }: counts are numbers by name
 * (plan: create, update, delete, destructive, drift; drift: drift, pending, create, update,
 * delete; apply: applied, failed, skipped), empty when the command failed before counting.
 */
export async function runPortalctl(inputs, env = process.env) {
  const base = [...portalctlCommand(env), ...commandArgs(inputs)];
  const { command } = inputs;
  if (command === 'plan') {
    // Kept in the working directory: an artifact to upload, and what the truncated comment points to.
    const planFile = inputs.planFile || 'portalctl-plan.json';
    {
      const result = await spawnCollect([...base, ...outputArgs('plan', planFile)[0]], env);
      if (!succeeded('plan', result.code)) return { exitCode: result.code, counts: {}, markdown: failureMarkdown(command, result) };
      const { summary } = JSON.parse(await readFile(resolve(planFile), 'utf8'));
      const counts = { create: summary.create, update: summary.update, delete: summary.delete, destructive: summary.destructive, drift: summary.drift };
      return { exitCode: result.code, counts, markdown: result.stdout };
    }
  }
  if (command === 'drift') {
    const [asJson, asMarkdown] = outputArgs('drift');
    const json = await spawnCollect([...base, ...asJson], env);
    if (![0, 2, 3].includes(json.code)) return { exitCode: json.code, counts: {}, markdown: failureMarkdown(command, json) };
    const report = JSON.parse(json.stdout);
    const counts = { drift: report.drift.length, pending: report.pending.length, ...actionCounts(report.pending) };
    const markdown = await spawnCollect([...base, ...asMarkdown], env);
    const heading = { inSync: 'In sync: the portal matches the configuration and the recorded state.', pending: `Pending: ${counts.pending} operation(s) the configuration asks for.`, drift: `Drift: ${counts.drift} object(s) changed outside portalctl since the last apply.` }[report.status];
    return { exitCode: json.code, counts, markdown: `### portalctl drift\n\n**${heading}**\n\n${markdown.stdout.replace(/^### portalctl plan\n/, '')}` };
  }
  const result = await spawnCollect([...base, ...outputArgs('apply')[0]], env);
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    return { exitCode: result.code, counts: {}, markdown: failureMarkdown(command, result) };
  }
  const counts = { applied: report.applied.length, failed: report.failed.length, skipped: report.skipped.length };
  const markdown = applyMarkdown(report) + (result.code === 0 ? '' : `\n${failureMarkdown(command, { ...result, stdout: '' }).split('\n').slice(2).join('\n')}`);
  return { exitCode: result.code, counts, markdown };
}
