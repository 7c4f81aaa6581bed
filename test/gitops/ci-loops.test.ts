/**
 * The three GitOps loops end to end, as a team runs them: the CI scripts (GitHub Action, GitLab
 * component) driving the real CLI against the bundled emulator, with local stand-ins of GitHub's
 * and GitLab's comment, issue, pull-request and artifact endpoints (test/action/forge-stub.ts).
 *
 * - drift: a hand edit on the portal opens ONE drift issue, updated in place while it lasts; the
 *   YAML edited to match and applied records the live value, drift is clean and the issue closed;
 * - reviewed plan: the plan made on the pull request is the plan applied after the merge
 *   (`apply --plan`), found from the merge commit; a portal change between review and merge makes
 *   it stale: not applied, reported with a plan made now; a push that no pull request reviewed is
 *   not applied either;
 * - results: the apply result is posted on the merged pull request and in the job summary, and
 *   the job log shows the plan.
 * The artifact download between the GitHub jobs is GitHub's own action (actions/download-artifact):
 * here the file is copied where it puts it.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type LoggedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { POLICY_AND_ROLE, SAMPLE_ORG } from '../support/cli.js';
import { startForgeStub, type ForgeStub } from '../action/forge-stub.js';
import { readKeyValues, runScript, tempDir } from '../action/run-script.js';

const TOKEN = 'ci-token-0123456789';
const MERGE_SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const HEAD_SHA = 'f0e1d2c3b4a5968778695a4b3c2d1e0f98765432';
/** The target branch's head when a merged-results pipeline ran, and GitLab's merge commit for that pipeline. */
const TARGET_SHA = '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567';
const MERGE_REF_SHA = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432';

let emulator: RunningEmulator;
let forge: ForgeStub;
let dir: string;
let config: string;

beforeEach(async () => {
  emulator = await startEmulator({ port: 0, data: SAMPLE_ORG });
  forge = await startForgeStub({ token: TOKEN });
  dir = await tempDir('portalctl-loops-');
  config = join(dir, 'portal');
  await mkdir(config);
  await writeConfig(POLICY_AND_ROLE);
});

afterEach(async () => {
  await emulator.close();
  await forge.close();
  await rm(dir, { recursive: true, force: true });
});

const writeConfig = (text: string) => writeFile(join(config, 'portalctl.yaml'), text);

/** Someone edits the role on the portal by hand (the REST API, as an administrator would). */
async function editRoleByHand(description: string): Promise<void> {
  const response = await fetch(`${emulator.url}/portals/self/roles/r7HkQ2/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esri-authorization': 'Bearer admin-token' },
    body: new URLSearchParams({ name: 'Field Analyst', description, f: 'json' }),
  });
  expect(await response.json()).toMatchObject({ success: true });
}

async function portalWrites(): Promise<LoggedRequest[]> {
  const response = await fetch(`${emulator.controlUrl}/requests`);
  const { requests } = (await response.json()) as { requests: LoggedRequest[] };
  return requests.filter((request) => request.access === 'write');
}

const clearPortalLog = async (): Promise<void> => void (await fetch(`${emulator.controlUrl}/requests`, { method: 'DELETE' }));

/** The shared settings of every job: the state (a file here, PostgreSQL in CI), the portal, the token. */
const shared = (): Record<string, string> => ({ PORTALCTL_TOKEN: 'admin-token' });

/** What the pull request changes: the password rule and the role's description (two updates). */
const CHANGED = POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 14').replace('description: Edits field data', 'description: Reviewed change');

// ---- GitHub ----

type GithubEvent = { pull_request: { number: number } } | { ref: string };

async function github(script: 'github.mjs' | 'github-reviewed-plan.mjs', inputs: Record<string, string>, event: GithubEvent, extra: Record<string, string> = {}) {
  await writeFile(join(dir, 'event.json'), JSON.stringify(event));
  await rm(join(dir, 'output'), { force: true });
  const env: Record<string, string> = {
    ...shared(),
    GITHUB_API_URL: forge.url,
    GITHUB_GRAPHQL_URL: `${forge.url}/graphql`,
    GITHUB_REPOSITORY: 'acme/portal-settings',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '77',
    GITHUB_TOKEN: TOKEN,
    INPUT_CONFIG: config,
    INPUT_STATE: join(dir, 'portalctl.state.json'),
    INPUT_STATE_NAME: '',
    // Only apply takes --invites-dir (the component's apply-args, the workflow's apply args).
    INPUT_ARGS: `--portal ${emulator.url}${inputs['command'] === 'apply' ? ` --invites-dir ${join(dir, 'invites')}` : ''}`,
    ...extra,
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  const result = await runScript(script, env, dir);
  return { ...result, outputs: await readKeyValues(join(dir, 'output')).catch(() => ({}) as Record<string, string>) };
}

/** The pull request #42 (last commit HEAD_SHA) merged as MERGE_SHA, its plan kept by run 555. */
function mergePullRequest(artifact: string): void {
  forge.pulls.push({ number: 42, merged_at: '2026-11-25T10:00:00Z', merge_commit_sha: MERGE_SHA, head: { sha: HEAD_SHA } });
  forge.artifacts.push({ id: 9001, name: artifact, expired: false, created_at: '2026-11-25T09:00:00Z', workflow_run: { id: 555, head_sha: HEAD_SHA } });
}

/** The apply job after the merge: find the reviewed plan, download it (GitHub's action, copied here), apply. */
async function githubApplyAfterMerge(savedPlan: string) {
  const found = await github('github-reviewed-plan.mjs', {}, { ref: 'refs/heads/main' }, { GITHUB_SHA: MERGE_SHA });
  expect(found.code).toBe(0);
  const downloaded = join(dir, 'runner-temp', 'portalctl-reviewed-plan');
  if (found.outputs['run-id']) {
    await mkdir(downloaded, { recursive: true });
    await copyFile(savedPlan, join(downloaded, 'portalctl-plan.json'));
  }
  const apply = await github(
    'github.mjs',
    { command: 'apply', 'pr-number': found.outputs['pr-number'] ?? '', 'reviewed-plan-missing': found.outputs['missing'] ?? '', 'reviewed-plan-dir': found.outputs['run-id'] ? downloaded : '' },
    { ref: 'refs/heads/main' },
    { GITHUB_SHA: MERGE_SHA },
  );
  return { found, apply };
}

const commentOn = (target: number, command: string) => forge.comments.find((comment) => comment.target === target && comment.body.includes(`portalctl-comment: ${command}:`));

describe('GitHub: the reviewed plan is the applied plan, and the result goes back to the pull request', () => {
  it('pull request plan -> merge -> exactly that plan applied; the result posted on the merged pull request and in the summary; the log shows the plan', async () => {
    await writeConfig(CHANGED);
    const plan = await github('github.mjs', { command: 'plan' }, { pull_request: { number: 42 } });
    expect(plan.code).toBe(0);
    expect(plan.outputs).toMatchObject({ 'exit-code': '2', 'plan-artifact': 'portalctl-plan-pr42', refusals: '0' });
    // The log shows the plan as text, not only the comment.
    expect(plan.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete.');
    expect(plan.stdout).toContain('~ organization.securityPolicy');
    expect(commentOn(42, 'plan')?.body).toContain('Portal **Riverside County GIS**');
    const saved = JSON.parse(await readFile(join(dir, 'portalctl-plan.json'), 'utf8')) as { operations: { address: string; request: { path: string } }[] };

    mergePullRequest('portalctl-plan-pr42');
    await clearPortalLog();
    const { found, apply } = await githubApplyAfterMerge(join(dir, 'portalctl-plan.json'));
    expect(found.outputs).toMatchObject({ 'pr-number': '42', 'run-id': '555', artifact: 'portalctl-plan-pr42' });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.outputs).toMatchObject({ 'exit-code': '0', applied: '2', failed: '0', skipped: '0', 'pr-number': '42' });
    // The writes sent are the reviewed plan's requests, nothing else.
    expect((await portalWrites()).map((request) => request.path).sort()).toEqual(saved.operations.map((op) => op.request.path).sort());
    expect(apply.stdout).toContain('The reviewed plan (pull request #42), applied unchanged:');
    expect(apply.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete.');
    expect(apply.stdout).toContain('portalctl apply: 2 applied, 0 failed, 0 skipped; converged.');

    const result = commentOn(42, 'apply');
    expect(result?.body).toContain('**Apply finished: 2 applied, 0 failed, 0 skipped.**');
    expect(result?.body).toContain('Applied the plan reviewed on pull request #42, unchanged (`apply --plan`).');
    expect(result?.body).toContain('✅ The portal now matches the configuration.');
    expect(result?.body).toContain('Portal **Riverside County GIS**');
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('**Apply finished: 2 applied, 0 failed, 0 skipped.**');
    for (const text of [apply.stdout, result?.body ?? '']) expect(text).not.toContain('admin-token');
  });

  it('a portal change between review and merge: the stale plan is refused, nothing is written, and a plan made now is reported', async () => {
    await writeConfig(CHANGED);
    expect((await github('github.mjs', { command: 'plan' }, { pull_request: { number: 42 } })).code).toBe(0);
    mergePullRequest('portalctl-plan-pr42');
    await editRoleByHand('Changed while the pull request waited');
    await clearPortalLog();

    const { apply } = await githubApplyAfterMerge(join(dir, 'portalctl-plan.json'));
    expect(apply.code).toBe(1);
    expect(apply.outputs).toMatchObject({ 'exit-code': '1', applied: '0' });
    expect(await portalWrites()).toEqual([]);
    expect(apply.stdout).toContain('::error::portalctl apply: not applied: the reviewed plan is stale: the portal changed since the plan was made');
    const report = commentOn(42, 'apply')?.body ?? '';
    expect(report).toMatch(/\*\*Not applied: the reviewed plan is stale: the portal changed since the plan was made[^*]*\.\*\* Nothing was sent to the portal\./);
    expect(report).toContain('#### The plan now');
    expect(report).toContain('role[r7HkQ2]');
    // The plan made now is in the log too.
    expect(apply.stdout).toMatch(/not applied: the reviewed plan is stale[^\n]*The plan made now:\nSaved plan of/);
  });

  it('a push that no pull request reviewed is not applied', async () => {
    await writeConfig(CHANGED);
    const { found, apply } = await githubApplyAfterMerge(join(dir, 'nothing.json'));
    expect(found.outputs['missing']).toBe('commit a1b2c3d4e5f6 is not the merge of a pull request, so no plan was reviewed for it');
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('**Not applied: commit a1b2c3d4e5f6 is not the merge of a pull request, so no plan was reviewed for it.**');
  });

  it('a plan saved for an earlier commit of the pull request is not the reviewed one', async () => {
    expect((await github('github.mjs', { command: 'plan' }, { pull_request: { number: 42 } })).code).toBe(0);
    forge.pulls.push({ number: 42, merged_at: '2026-11-25T10:00:00Z', merge_commit_sha: MERGE_SHA, head: { sha: HEAD_SHA } });
    forge.artifacts.push({ id: 9001, name: 'portalctl-plan-pr42', expired: false, created_at: '2026-11-25T09:00:00Z', workflow_run: { id: 554, head_sha: '0'.repeat(40) } });
    const { found, apply } = await githubApplyAfterMerge(join(dir, 'portalctl-plan.json'));
    expect(found.outputs['missing']).toBe(`no plan was saved for pull request #42 (its last commit ${HEAD_SHA.slice(0, 12)}; artifact portalctl-plan-pr42)`);
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
  });
});

describe('GitHub: drift that can be accepted, with one issue', () => {
  it('hand edit -> one drift issue, updated in place; YAML edited to match -> apply records it, drift clean, issue closed', async () => {
    const first = await github('github.mjs', { command: 'apply', 'reviewed-plan': 'false' }, { ref: 'refs/heads/main' });
    expect(first.code).toBe(0);
    await editRoleByHand('Hand edited');

    const drift = () => github('github.mjs', { command: 'drift', issue: 'true', 'fail-on-drift': 'false' }, { ref: 'refs/heads/main' });
    const night1 = await drift();
    expect(night1.code).toBe(0);
    expect(night1.outputs).toMatchObject({ 'exit-code': '3', drift: '1', 'issue-action': 'opened', 'issue-number': '1' });
    expect(forge.issues).toHaveLength(1);
    expect(forge.issues[0]).toMatchObject({ title: 'Portal drift: Riverside County GIS', state: 'open', author: 'github-actions[bot]' });
    expect(forge.issues[0]?.body).toContain('role[r7HkQ2]');
    expect(forge.issues[0]?.body).toContain('`portalctl apply --refresh-only`');

    const night2 = await drift();
    expect(night2.outputs).toMatchObject({ 'issue-action': 'updated', 'issue-number': '1' });
    expect(forge.issues).toHaveLength(1);

    // The team accepts the portal's value: the YAML says the same, and apply records it.
    await writeConfig(POLICY_AND_ROLE.replace('description: Edits field data', 'description: Hand edited'));
    await clearPortalLog();
    const accept = await github('github.mjs', { command: 'apply', 'reviewed-plan': 'false' }, { ref: 'refs/heads/main' });
    expect(accept.code).toBe(0);
    expect(await portalWrites()).toEqual([]);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain("Drift resolved by adopting the portal's value");

    const night3 = await drift();
    expect(night3.outputs).toMatchObject({ 'exit-code': '0', drift: '0', 'issue-action': 'closed', 'issue-number': '1' });
    expect(forge.issues[0]).toMatchObject({ state: 'closed' });
    expect(forge.issues[0]?.notes[0]).toMatch(/^No drift any more \(checked .*\): closing\.$/);
    const night4 = await drift();
    expect(night4.outputs).toMatchObject({ 'issue-action': 'none' });
    expect(forge.issues).toHaveLength(1);
  });
});

// ---- GitLab ----

async function gitlab(settings: Record<string, string>, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    ...shared(),
    CI_API_V4_URL: `${forge.url}/api/v4`,
    CI_PROJECT_ID: '4711',
    CI_JOB_URL: 'https://gitlab.example/acme/portal/-/jobs/9',
    PORTALCTL_GITLAB_TOKEN: TOKEN,
    PORTALCTL_CI_CONFIG: config,
    PORTALCTL_CI_STATE: join(dir, 'portalctl.state.json'),
    PORTALCTL_CI_ARGS: `--portal ${emulator.url}${settings['COMMAND'] === 'apply' ? ` --invites-dir ${join(dir, 'invites')}` : ''}`,
    ...extra,
  };
  for (const [name, value] of Object.entries(settings)) env[`PORTALCTL_CI_${name}`] = value;
  const result = await runScript('gitlab.mjs', env, dir);
  return { ...result, dotenv: await readKeyValues(join(dir, 'portalctl.env')) };
}

/** Merge request !5 (last commit HEAD_SHA) merged as MERGE_SHA; its pipeline's plan job kept the plan. */
async function mergeMergeRequest(): Promise<void> {
  forge.mergeRequests.push({ iid: 5, state: 'merged', merge_commit_sha: MERGE_SHA, squash_commit_sha: null, sha: HEAD_SHA });
  forge.pipelines.push({ id: 301, mergeRequest: 5, sha: HEAD_SHA });
  forge.jobs.push({ id: 401, pipeline: 301, name: 'portalctl:plan', status: 'success', artifacts: { 'portalctl-plan.json': await readFile(join(dir, 'portalctl-plan.json'), 'utf8') } });
}

/**
 * Merge request !5 (last commit HEAD_SHA) merged as MERGE_SHA; its merged-results pipeline kept
 * the plan and the commits it merged (`kept`: a plan job copied from an older template keeps the plan alone).
 */
async function mergeAfterMergedResults(kept = ['portalctl-plan.json', 'portalctl-plan-commits.json']): Promise<void> {
  forge.mergeRequests.push({ iid: 5, state: 'merged', merge_commit_sha: MERGE_SHA, squash_commit_sha: null, sha: HEAD_SHA });
  forge.pipelines.push({ id: 302, mergeRequest: 5, sha: MERGE_REF_SHA, ref: 'refs/merge-requests/5/merge' });
  const artifacts: Record<string, string> = {};
  for (const name of kept) artifacts[name] = await readFile(join(dir, name), 'utf8');
  forge.jobs.push({ id: 402, pipeline: 302, name: 'portalctl:plan', status: 'success', artifacts });
}

const mergedResultsPipeline = { CI_MERGE_REQUEST_IID: '5', CI_COMMIT_SHA: MERGE_REF_SHA, CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: HEAD_SHA, CI_MERGE_REQUEST_TARGET_BRANCH_SHA: TARGET_SHA };

describe('GitLab: the same loops through the component', () => {
  it('merged-results pipeline -> merge -> that plan applied', async () => {
    await writeConfig(CHANGED);
    expect((await gitlab({ COMMAND: 'plan' }, mergedResultsPipeline)).code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'portalctl-plan-commits.json'), 'utf8'))).toEqual({ source: HEAD_SHA, target: TARGET_SHA, merged: MERGE_REF_SHA });
    const saved = JSON.parse(await readFile(join(dir, 'portalctl-plan.json'), 'utf8')) as { operations: { request: { path: string } }[] };
    await mergeAfterMergedResults();
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('The reviewed plan (merge request !5 (job 402)), applied unchanged:');
    expect((await portalWrites()).map((request) => request.path).sort()).toEqual(saved.operations.map((op) => op.request.path).sort());
  });

  it('merged-results pipeline, then the target branch brought other config before the merge: the plan is stale, nothing is written', async () => {
    await writeConfig(CHANGED);
    expect((await gitlab({ COMMAND: 'plan' }, mergedResultsPipeline)).code).toBe(0);
    await mergeAfterMergedResults();
    // The merge commit holds a config the merged-results pipeline never saw.
    await writeConfig(CHANGED.replace('description: Reviewed change', 'description: Changed on the target branch meanwhile'));
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
    expect(commentOn(5, 'apply')?.body).toContain('**Not applied: the reviewed plan is stale: the configuration now gives other operations');
  });

  it('a merged-results pipeline that planned an earlier commit of the merge request is not the reviewed one', async () => {
    await writeConfig(CHANGED);
    expect((await gitlab({ COMMAND: 'plan' }, { ...mergedResultsPipeline, CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: TARGET_SHA })).code).toBe(0);
    await mergeAfterMergedResults();
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
    expect(commentOn(5, 'apply')?.body).toContain(`merged-results pipeline 302 planned commit ${TARGET_SHA.slice(0, 12)}, not the merge request's last commit ${HEAD_SHA.slice(0, 12)}`);
  });

  it("a merged-results pipeline whose plan job kept the plan alone (an older template's artifacts) says what to add, and nothing is written", async () => {
    await writeConfig(CHANGED);
    expect((await gitlab({ COMMAND: 'plan' }, mergedResultsPipeline)).code).toBe(0);
    await mergeAfterMergedResults(['portalctl-plan.json']);
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
    expect(commentOn(5, 'apply')?.body).toContain(
      "merged-results pipeline 302 did not record which commit it merged: job 402 (portalctl:plan) of pipeline 302 has no artifact portalctl-plan-commits.json (HTTP 404); the portalctl:plan job's artifacts:paths must hold portalctl-plan-commits.json beside the plan (see templates/portalctl.yml)",
    );
  });

  it('merge request plan -> merge -> that plan applied, the result on the merged merge request; the widget report counts it', async () => {
    await writeConfig(CHANGED);
    const plan = await gitlab({ COMMAND: 'plan' }, { CI_MERGE_REQUEST_IID: '5' });
    expect(plan.code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'portalctl-plan.tfreport.json'), 'utf8'))).toEqual({ create: 0, update: 2, delete: 0 });
    expect(plan.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete.');
    const saved = JSON.parse(await readFile(join(dir, 'portalctl-plan.json'), 'utf8')) as { operations: { request: { path: string } }[] };

    await mergeMergeRequest();
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(0);
    expect(apply.dotenv).toMatchObject({ PORTALCTL_EXIT_CODE: '0', PORTALCTL_APPLIED: '2', PORTALCTL_FAILED: '0' });
    expect((await portalWrites()).map((request) => request.path).sort()).toEqual(saved.operations.map((op) => op.request.path).sort());
    expect(apply.stdout).toContain('The reviewed plan (merge request !5 (job 401)), applied unchanged:');
    const result = commentOn(5, 'apply');
    expect(result?.body).toContain('**Apply finished: 2 applied, 0 failed, 0 skipped.**');
    expect(result?.body).toContain('Applied the plan reviewed on merge request !5 (job 401), unchanged');
    expect(result?.author).toBe('900');
  });

  it('a stale plan is refused and reported on the merge request; nothing is written', async () => {
    await writeConfig(CHANGED);
    expect((await gitlab({ COMMAND: 'plan' }, { CI_MERGE_REQUEST_IID: '5' })).code).toBe(0);
    await mergeMergeRequest();
    await editRoleByHand('Changed while the merge request waited');
    await clearPortalLog();
    const apply = await gitlab({ COMMAND: 'apply' }, { CI_COMMIT_SHA: MERGE_SHA });
    expect(apply.code).toBe(1);
    expect(await portalWrites()).toEqual([]);
    expect(commentOn(5, 'apply')?.body).toContain('**Not applied: the reviewed plan is stale: the portal changed since the plan was made');
  });

  it('hand edit -> one drift issue, updated in place; YAML edited to match -> apply records it, issue closed', async () => {
    expect((await gitlab({ COMMAND: 'apply', REVIEWED_PLAN: 'false' })).code).toBe(0);
    await editRoleByHand('Hand edited');
    const drift = () => gitlab({ COMMAND: 'drift', ISSUE: 'true', FAIL_ON_DRIFT: 'false' });
    expect((await drift()).dotenv).toMatchObject({ PORTALCTL_EXIT_CODE: '3', PORTALCTL_DRIFT: '1' });
    expect((await drift()).stdout).toContain('portalctl: updated drift issue #1');
    expect(forge.issues).toHaveLength(1);
    expect(forge.issues[0]).toMatchObject({ title: 'Portal drift: Riverside County GIS', state: 'open', author: '900' });

    await writeConfig(POLICY_AND_ROLE.replace('description: Edits field data', 'description: Hand edited'));
    await clearPortalLog();
    expect((await gitlab({ COMMAND: 'apply', REVIEWED_PLAN: 'false' })).code).toBe(0);
    expect(await portalWrites()).toEqual([]);
    const clean = await drift();
    expect(clean.dotenv).toMatchObject({ PORTALCTL_EXIT_CODE: '0', PORTALCTL_DRIFT: '0' });
    expect(clean.stdout).toContain('portalctl: closed drift issue #1');
    expect(forge.issues[0]).toMatchObject({ state: 'closed' });
  });
});
