#!/usr/bin/env node
// The GitHub Action's step (action.yml): runs portalctl plan, apply or drift, then
//  - writes exit-code and the counts to GITHUB_OUTPUT,
//  - writes the markdown report to GITHUB_STEP_SUMMARY, and the plan as text to the log,
//  - plan: on a pull request, creates or updates one comment (found by a hidden marker and
//    written by the token's own account), and names the artifact the plan is kept in;
//  - apply: applies the plan reviewed on the merged pull request (fetched by the steps before)
//    and posts the result on that pull request; a missing or stale plan is never applied;
//  - drift: keeps one open issue per config, state and environment(s) while drift lasts (`issue: true`).
// Plain Node, no dependencies: inputs come as INPUT_* variables set by action.yml.
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { commentBody, commentMarker, driftIssueId, driftIssueTitle, issueMarker, syncDriftIssue, upsertComment } from './comment.mjs';
import { githubApi, planArtifactName } from './github-api.mjs';
import { runPortalctl, succeeded } from './run-portalctl.mjs';

const env = process.env;
const input = (name, fallback = '') => (env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback).trim();
const say = (text) => process.stdout.write(text);

async function readEvent() {
  if (!env.GITHUB_EVENT_PATH) return {};
  try {
    return JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8'));
  } catch {
    return {};
  }
}

/** GITHUB_OUTPUT lines; a multi-line value would need a delimiter, ours are single lines. */
async function writeOutputs(values) {
  if (!env.GITHUB_OUTPUT) return;
  await appendFile(env.GITHUB_OUTPUT, Object.entries(values).map(([key, value]) => `${key}=${String(value).replace(/[\r\n]+/g, ' ')}\n`).join(''));
}

/** The saved plan the download step put in `dir` (the plan-file's name, else its one JSON file). */
async function reviewedPlanIn(dir, planFile) {
  const files = await readdir(dir).catch(() => []);
  const name = files.includes(basename(planFile)) ? basename(planFile) : files.filter((file) => file.endsWith('.json')).length === 1 ? files.find((file) => file.endsWith('.json')) : undefined;
  return name ? join(dir, name) : undefined;
}

const inputs = {
  command: input('command', 'plan'),
  config: input('config', '.'),
  state: input('state'),
  stateName: input('state-name'),
  env: input('env'),
  args: input('args'),
  planFile: input('plan-file') || 'portalctl-plan.json',
};
const failOnDrift = input('fail-on-drift', 'true') !== 'false';
const event = await readEvent();
const api = githubApi(env);
const onPullRequest = event.pull_request?.number ?? (event.issue?.pull_request ? event.issue.number : undefined);
let number = input('pr-number') ? Number(input('pr-number')) : onPullRequest;

if (inputs.command === 'apply' && input('reviewed-plan', 'true') !== 'false') {
  // Found and downloaded by the steps before this one (github-reviewed-plan.mjs, download-artifact).
  const missing = input('reviewed-plan-missing');
  const file = missing ? undefined : input('reviewed-plan-dir') && (await reviewedPlanIn(input('reviewed-plan-dir'), inputs.planFile));
  inputs.reviewed = file ? { file, source: number ? `pull request #${number}` : 'the pull request' } : { missing: missing || 'no reviewed plan was downloaded' };
}

const result = await runPortalctl(inputs, env, { log: say });
const { exitCode, counts, markdown } = result;
const ok = succeeded(inputs.command, exitCode, { failOnDrift });
if (result.notApplied) say(`::error::portalctl apply: not applied: ${result.notApplied}.\n`);
const changes = (counts.create ?? 0) + (counts.update ?? 0) + (counts.delete ?? 0);
await writeOutputs({ 'exit-code': exitCode, ...counts, ...(inputs.command === 'apply' ? {} : { 'has-changes': String(changes > 0) }) });

const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
const commentId = input('comment-id') || `${inputs.command}:${inputs.config}${inputs.stateName ? `:${inputs.stateName}` : ''}${inputs.env ? `:${inputs.env}` : ''}`;
const body = commentBody(commentMarker(commentId), markdown, { hint: runUrl ? `the [job summary](${runUrl})` : 'the job summary' });
if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${body}\n`);
// The same report as a file, for a later step (an artifact).
await writeFile(input('report-file') || `portalctl-${inputs.command}.md`, body);

// The plan of a pull request is kept as an artifact under a name the apply job can find.
if (inputs.command === 'plan' && onPullRequest && result.plan) {
  await writeOutputs({ 'plan-artifact': planArtifactName({ base: input('plan-artifact'), stateName: inputs.stateName, env: inputs.env, number: onPullRequest }) });
}

// The apply result goes back to the pull request that was merged.
if (inputs.command === 'apply' && !number && env.GITHUB_SHA && env.GITHUB_TOKEN) {
  number = await api.mergedPullRequest(env.GITHUB_SHA).then(
    (pull) => pull?.number,
    (error) => say(`::warning::Could not find the merged pull request of ${env.GITHUB_SHA}: ${error.message}\n`),
  );
}

if (number && input('comment', 'true') !== 'false') {
  if (!env.GITHUB_TOKEN) say('::warning::No GITHUB_TOKEN: the pull-request comment was not written.\n');
  else {
    try {
      const done = await upsertComment(api.issueComments(number), commentMarker(commentId), body);
      say(`portalctl: ${done.action} comment ${done.id} on pull request #${number}\n`);
      await writeOutputs({ 'comment-id': done.id, 'pr-number': number });
    } catch (error) {
      // A fork's pull request gets a read-only token: the report is still in the summary.
      say(`::warning::Could not write the pull-request comment: ${error.message}\n`);
    }
  }
}

// One open issue per config, state and environments while drift lasts, closed when it is gone.
if (inputs.command === 'drift' && input('issue', 'false') === 'true' && result.report) {
  const judged = result.report.driftJudged !== false;
  if (!env.GITHUB_TOKEN) say('::warning::No GITHUB_TOKEN: the drift issue was not written.\n');
  else if (judged) {
    const id = input('comment-id') || driftIssueId(inputs);
    try {
      const done = await syncDriftIssue(api, issueMarker(id), {
        drift: result.drifted,
        title: driftIssueTitle(inputs, result.report.portal),
        body: commentBody(issueMarker(id), `${markdown.trimEnd()}\n\n_Last checked ${new Date().toISOString()}${runUrl ? ` by [this run](${runUrl})` : ''}._`),
        closingNote: `No drift any more (checked ${new Date().toISOString()}${runUrl ? ` by [this run](${runUrl})` : ''}): closing.`,
      });
      if (done.action !== 'none') say(`portalctl: ${done.action} drift issue #${done.id}\n`);
      await writeOutputs({ 'issue-action': done.action, ...(done.id ? { 'issue-number': done.id } : {}) });
    } catch (error) {
      say(`::warning::Could not write the drift issue: ${error.message}\n`);
    }
  }
}
process.exitCode = ok ? 0 : exitCode || 1;
