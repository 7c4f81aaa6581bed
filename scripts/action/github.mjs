#!/usr/bin/env node
// The GitHub Action's step (action.yml): runs portalctl plan, apply or drift, then
//  - writes exit-code and the counts to GITHUB_OUTPUT,
//  - writes the markdown report to GITHUB_STEP_SUMMARY,
//  - on a pull request, creates or updates one comment (found by a hidden marker).
// Plain Node, no dependencies: inputs come as INPUT_* variables set by action.yml.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { allPages, commentBody, commentMarker, requestJson, upsertComment } from './comment.mjs';
import { runPortalctl, succeeded } from './run-portalctl.mjs';

const env = process.env;
const input = (name, fallback = '') => (env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback).trim();

/** The pull request number: the `pr-number` input, else the triggering event's. */
async function pullRequestNumber() {
  if (input('pr-number')) return Number(input('pr-number'));
  if (!env.GITHUB_EVENT_PATH) return undefined;
  try {
    const event = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8'));
    return event.pull_request?.number ?? (event.issue?.pull_request ? event.issue.number : undefined);
  } catch {
    return undefined;
  }
}

function githubIssueComments(number) {
  const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/$/, '');
  const repo = env.GITHUB_REPOSITORY;
  const headers = { authorization: `Bearer ${env.GITHUB_TOKEN}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'portalctl-action' };
  return {
    list: () => allPages((page) => requestJson(`${api}/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`, { headers })),
    create: (body) => requestJson(`${api}/repos/${repo}/issues/${number}/comments`, { method: 'POST', headers, body: { body } }),
    update: (id, body) => requestJson(`${api}/repos/${repo}/issues/comments/${id}`, { method: 'PATCH', headers, body: { body } }),
  };
}

/** GITHUB_OUTPUT lines; a multi-line value would need a delimiter, ours are single words. */
async function writeOutputs(values) {
  if (!env.GITHUB_OUTPUT) return;
  await appendFile(env.GITHUB_OUTPUT, Object.entries(values).map(([key, value]) => `${key}=${value}\n`).join(''));
}

const inputs = {
  command: input('command', 'plan'),
  config: input('config', '.'),
  state: input('state'),
  stateName: input('state-name'),
  env: input('env'),
  args: input('args'),
  planFile: input('plan-file'),
};
const failOnDrift = input('fail-on-drift', 'true') !== 'false';

const { exitCode, counts, markdown } = await runPortalctl(inputs, env);
const ok = succeeded(inputs.command, exitCode, { failOnDrift });
await writeOutputs({ 'exit-code': exitCode, ...counts, 'has-changes': String((counts.create ?? 0) + (counts.update ?? 0) + (counts.delete ?? 0) > 0) });

const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
const marker = commentMarker(input('comment-id') || `${inputs.command}:${inputs.config}${inputs.stateName ? `:${inputs.stateName}` : ''}${inputs.env ? `:${inputs.env}` : ''}`);
const body = commentBody(marker, markdown, { hint: runUrl ? `the [job summary](${runUrl})` : 'the job summary' });
if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${body}\n`);
// The same report as a file, for a later step (an issue on drift, an artifact).
await writeFile(input('report-file') || `portalctl-${inputs.command}.md`, body);

const number = input('comment', 'true') === 'false' ? undefined : await pullRequestNumber();
if (number) {
  if (!env.GITHUB_TOKEN) process.stdout.write('::warning::No GITHUB_TOKEN: the pull-request comment was not written.\n');
  else {
    try {
      const done = await upsertComment(githubIssueComments(number), marker, body);
      process.stdout.write(`portalctl: ${done.action} comment ${done.id} on pull request #${number}\n`);
      await writeOutputs({ 'comment-id': done.id });
    } catch (error) {
      // A fork's pull request gets a read-only token: the plan is still in the summary.
      process.stdout.write(`::warning::Could not write the pull-request comment: ${error.message}\n`);
    }
  }
}
process.exitCode = ok ? 0 : exitCode || 1;
