#!/usr/bin/env node
// The GitLab CI component's and template's step (templates/portalctl.yml): runs portalctl plan,
// apply or drift, then
//  - writes PORTALCTL_EXIT_CODE and the counts as a dotenv report (PORTALCTL_CI_DOTENV),
//  - writes the markdown report to a file kept as an artifact (PORTALCTL_CI_MARKDOWN), and the
//    plan as text to the job log,
//  - plan: writes the Terraform report the merge-request widget reads ({create, update, delete},
//    PORTALCTL_CI_TERRAFORM_REPORT), and in a merge-request pipeline creates or updates one note
//    (found by a hidden marker and written by the token's own account);
//  - apply: fetches the plan saved by the plan job of the merged merge request and applies exactly
//    that plan (`apply --plan`); a missing or stale plan is not applied: a plan made now goes into
//    the note and the job fails. The result is posted on that merge request;
//  - drift: keeps one open issue per config, state and environment(s) while drift lasts (PORTALCTL_CI_ISSUE).
// Same logic as the GitHub Action; GitLab's predefined variables say where to write.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { commentBody, commentMarker, driftIssueId, driftIssueTitle, issueMarker, syncDriftIssue, upsertComment } from './comment.mjs';
import { gitlabApi } from './gitlab-api.mjs';
import { runPortalctl, succeeded } from './run-portalctl.mjs';

const env = process.env;
const setting = (name, fallback = '') => (env[`PORTALCTL_CI_${name}`] ?? fallback).trim();
const say = (text) => process.stdout.write(text);
const short = (sha) => String(sha ?? '').slice(0, 12);

const inputs = {
  command: setting('COMMAND', 'plan'),
  config: setting('CONFIG', '.'),
  state: setting('STATE'),
  stateName: setting('STATE_NAME'),
  env: setting('ENV'),
  args: setting('ARGS'),
  planFile: setting('PLAN_FILE') || 'portalctl-plan.json',
};
const failOnDrift = setting('FAIL_ON_DRIFT', 'true') !== 'false';
/** What a merged-results pipeline's plan job records beside the plan: the commits it merged. */
const planCommitsFile = setting('PLAN_COMMITS_FILE', 'portalctl-plan-commits.json');
const api = gitlabApi(env);
const canCallApi = Boolean(env.CI_API_V4_URL && env.PORTALCTL_GITLAB_TOKEN);
let mergeRequest = env.CI_MERGE_REQUEST_IID;

if (inputs.command === 'apply' && setting('REVIEWED_PLAN', 'true') !== 'false') {
  inputs.reviewed = await reviewedPlan();
  if (inputs.reviewed.iid) mergeRequest = inputs.reviewed.iid;
}

/** The plan the merged merge request's plan job saved for its last commit, written to a file. */
async function reviewedPlan() {
  if (!canCallApi) return { missing: 'no PORTALCTL_GITLAB_TOKEN to fetch the plan reviewed on the merge request' };
  try {
    const sha = env.CI_COMMIT_SHA;
    const merged = sha ? await api.mergedMergeRequest(sha) : undefined;
    if (!merged) return { missing: `commit ${short(sha)} is not the merge of a merge request, so no plan was reviewed for it` };
    const found = await planReviewedOn(merged);
    if (found.missing) return { missing: `no plan was saved for merge request !${merged.iid}: ${found.missing}`, iid: merged.iid };
    const file = resolve(setting('REVIEWED_PLAN_FILE', 'portalctl-reviewed-plan.json'));
    await writeFile(file, found.text, { mode: 0o600 });
    return { file, source: `merge request !${merged.iid} (job ${found.job})`, iid: merged.iid };
  } catch (error) {
    return { missing: `the reviewed plan could not be fetched (${error.message})` };
  }
}

/**
 * The plan saved by the plan job of the newest pipeline that ran for the merged merge request's
 * last commit. A merged-results pipeline ran on GitLab's merge of a commit into the target branch
 * as it was then; which commit, its plan job recorded (below). Whether the target branch moved
 * since does not matter here: `apply --plan` makes the plan again from the merged config and
 * applies nothing unless it gives the same operations against the same state and portal.
 */
async function planReviewedOn(merged) {
  const jobName = setting('PLAN_JOB', 'portalctl:plan');
  const [pipeline] = await api.mergeRequestPipelines(merged.iid, merged.headSha);
  if (!pipeline) return { missing: `no pipeline ran for the last commit ${short(merged.headSha)} of merge request !${merged.iid}` };
  if (pipeline.mergedResults) {
    const recorded = await api.pipelineArtifact(pipeline.id, jobName, planCommitsFile);
    if (recorded.missing) {
      // A plan job copied from a template older than this file keeps the plan alone.
      return { missing: `merged-results pipeline ${pipeline.id} did not record which commit it merged: ${recorded.missing}; the ${jobName} job's artifacts:paths must hold ${planCommitsFile} beside the plan (see templates/portalctl.yml)` };
    }
    let commits;
    try {
      commits = JSON.parse(recorded.text);
    } catch {
      return { missing: `merged-results pipeline ${pipeline.id}: ${planCommitsFile} is not JSON` };
    }
    if (commits?.source !== merged.headSha) {
      return { missing: `merged-results pipeline ${pipeline.id} planned commit ${short(commits?.source) || '(none recorded)'}, not the merge request's last commit ${short(merged.headSha)}` };
    }
  }
  return api.pipelineArtifact(pipeline.id, jobName, inputs.planFile);
}

const result = await runPortalctl(inputs, env, { log: say });
const { exitCode, counts, markdown } = result;
const ok = succeeded(inputs.command, exitCode, { failOnDrift });
const upper = (key) => `PORTALCTL_${key.toUpperCase().replace(/-/g, '_')}`;
await writeFile(
  setting('DOTENV', 'portalctl.env'),
  Object.entries({ 'exit-code': exitCode, ...counts }).map(([key, value]) => `${upper(key)}=${value}\n`).join(''),
);
// A merged-results pipeline plans a merge commit of its own: which commit of the merge request it
// merged is recorded for the apply job. Both variables are set only in merged-results pipelines
// (https://docs.gitlab.com/ci/variables/predefined_variables/; CI_COMMIT_SHA is then the merge).
if (inputs.command === 'plan' && env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA && env.CI_MERGE_REQUEST_TARGET_BRANCH_SHA) {
  await writeFile(planCommitsFile, `${JSON.stringify({ source: env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA, target: env.CI_MERGE_REQUEST_TARGET_BRANCH_SHA, merged: env.CI_COMMIT_SHA })}\n`);
}
// The merge-request widget of GitLab's Terraform integration reads exactly these three counts
// (artifacts:reports:terraform; lib/gitlab/ci/parsers/terraform/tfplan.rb requires the keys).
if (inputs.command === 'plan' && result.plan) {
  await writeFile(setting('TERRAFORM_REPORT', 'portalctl-plan.tfreport.json'), `${JSON.stringify({ create: counts.create, update: counts.update, delete: counts.delete })}\n`);
}

const commentId = setting('COMMENT_ID') || `${inputs.command}:${inputs.config}${inputs.stateName ? `:${inputs.stateName}` : ''}${inputs.env ? `:${inputs.env}` : ''}`;
const body = commentBody(commentMarker(commentId), markdown, { hint: env.CI_JOB_URL ? `the [job's artifacts](${env.CI_JOB_URL})` : "the job's artifacts" });
await writeFile(setting('MARKDOWN', `portalctl-${inputs.command}.md`), body);

// The apply result goes back to the merge request that was merged.
if (inputs.command === 'apply' && !mergeRequest && canCallApi && env.CI_COMMIT_SHA) {
  mergeRequest = await api.mergedMergeRequest(env.CI_COMMIT_SHA).then(
    (found) => found?.iid,
    (error) => say(`portalctl: could not find the merged merge request of ${env.CI_COMMIT_SHA}: ${error.message}\n`),
  );
}

if (mergeRequest && setting('COMMENT', 'true') !== 'false') {
  if (!env.PORTALCTL_GITLAB_TOKEN) say('portalctl: no PORTALCTL_GITLAB_TOKEN: the merge-request note was not written.\n');
  else {
    try {
      const done = await upsertComment(api.mergeRequestNotes(mergeRequest), commentMarker(commentId), body);
      say(`portalctl: ${done.action} note ${done.id} on merge request !${mergeRequest}\n`);
    } catch (error) {
      say(`portalctl: could not write the merge-request note: ${error.message}\n`);
    }
  }
}

// One open issue per config, state and environments while drift lasts, closed when it is gone.
if (inputs.command === 'drift' && setting('ISSUE', 'false') === 'true' && result.report) {
  if (!canCallApi) say('portalctl: no PORTALCTL_GITLAB_TOKEN: the drift issue was not written.\n');
  else if (result.report.driftJudged !== false) {
    const id = setting('COMMENT_ID') || driftIssueId(inputs);
    const checked = `checked ${new Date().toISOString()}${env.CI_JOB_URL ? ` by [this job](${env.CI_JOB_URL})` : ''}`;
    try {
      const done = await syncDriftIssue(api, issueMarker(id), {
        drift: result.drifted,
        title: driftIssueTitle(inputs, result.report.portal),
        body: commentBody(issueMarker(id), `${markdown.trimEnd()}\n\n_Last ${checked}._`),
        closingNote: `No drift any more (${checked}): closing.`,
      });
      if (done.action !== 'none') say(`portalctl: ${done.action} drift issue #${done.id}\n`);
    } catch (error) {
      say(`portalctl: could not write the drift issue: ${error.message}\n`);
    }
  }
}
process.exitCode = ok ? 0 : exitCode || 1;
