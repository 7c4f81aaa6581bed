#!/usr/bin/env node
// The GitLab CI template's step (examples/ci/gitlab/): runs portalctl plan, apply or drift, then
//  - writes PORTALCTL_EXIT_CODE and the counts as a dotenv report (PORTALCTL_CI_DOTENV),
//  - writes the markdown report to a file kept as an artifact (PORTALCTL_CI_MARKDOWN),
//  - in a merge-request pipeline, creates or updates one note (found by a hidden marker).
// Same logic as the GitHub Action; GitLab's predefined variables say where to write.
import { writeFile } from 'node:fs/promises';
import { allPages, commentBody, commentMarker, requestJson, upsertComment } from './comment.mjs';
import { runPortalctl, succeeded } from './run-portalctl.mjs';

const env = process.env;
const setting = (name, fallback = '') => (env[`PORTALCTL_CI_${name}`] ?? fallback).trim();

function mergeRequestNotes() {
  const base = `${env.CI_API_V4_URL.replace(/\/$/, '')}/projects/${encodeURIComponent(env.CI_PROJECT_ID)}/merge_requests/${env.CI_MERGE_REQUEST_IID}/notes`;
  // CI_JOB_TOKEN may not write notes: a project or group access token with the api scope.
  const headers = { 'private-token': env.PORTALCTL_GITLAB_TOKEN };
  return {
    list: () => allPages((page) => requestJson(`${base}?per_page=100&page=${page}&sort=asc`, { headers })),
    create: (body) => requestJson(base, { method: 'POST', headers, body: { body } }),
    update: (id, body) => requestJson(`${base}/${id}`, { method: 'PUT', headers, body: { body } }),
  };
}

const inputs = {
  command: setting('COMMAND', 'plan'),
  config: setting('CONFIG', '.'),
  state: setting('STATE'),
  stateName: setting('STATE_NAME'),
  env: setting('ENV'),
  args: setting('ARGS'),
  planFile: setting('PLAN_FILE'),
};
const failOnDrift = setting('FAIL_ON_DRIFT', 'true') !== 'false';

const { exitCode, counts, markdown } = await runPortalctl(inputs, env);
const ok = succeeded(inputs.command, exitCode, { failOnDrift });
const upper = (key) => `PORTALCTL_${key.toUpperCase().replace(/-/g, '_')}`;
await writeFile(
  setting('DOTENV', 'portalctl.env'),
  Object.entries({ 'exit-code': exitCode, ...counts }).map(([key, value]) => `${upper(key)}=${value}\n`).join(''),
);

const marker = commentMarker(setting('COMMENT_ID') || `${inputs.command}:${inputs.config}${inputs.stateName ? `:${inputs.stateName}` : ''}${inputs.env ? `:${inputs.env}` : ''}`);
const body = commentBody(marker, markdown, { hint: env.CI_JOB_URL ? `the [job's artifacts](${env.CI_JOB_URL})` : "the job's artifacts" });
await writeFile(setting('MARKDOWN', `portalctl-${inputs.command}.md`), body);

if (env.CI_MERGE_REQUEST_IID && setting('COMMENT', 'true') !== 'false') {
  if (!env.PORTALCTL_GITLAB_TOKEN) process.stdout.write('portalctl: no PORTALCTL_GITLAB_TOKEN: the merge-request note was not written.\n');
  else {
    try {
      const done = await upsertComment(mergeRequestNotes(), marker, body);
      process.stdout.write(`portalctl: ${done.action} note ${done.id} on merge request !${env.CI_MERGE_REQUEST_IID}\n`);
    } catch (error) {
      process.stdout.write(`portalctl: could not write the merge-request note: ${error.message}\n`);
    }
  }
}
process.exitCode = ok ? 0 : exitCode || 1;
