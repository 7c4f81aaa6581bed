/**
 * The GitHub Action's script (scripts/action/github.mjs, run by action.yml) against the bundled
 * emulator and a local stub of GitHub's issue-comment endpoints: one comment, found by its
 * marker and edited in place on the next push; outputs in GITHUB_OUTPUT; the report in the job
 * summary; the comment capped like the markdown plan.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { economyOrganization } from '../../bench/lib/generate.mjs';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CLI, REPO_ROOT, SAMPLE_ORG } from '../support/cli.js';
import { startForgeStub, type ForgeStub } from './forge-stub.js';
import { declaredActionOutputs, readKeyValues, runScript, tempDir } from './run-script.js';

const GITHUB_TOKEN = 'ghs_stubtoken0123456789';
const MINIMAL = join(REPO_ROOT, 'examples/minimal');

let emulator: RunningEmulator;
let forge: ForgeStub;
let dir: string;

beforeEach(async () => {
  emulator = await startEmulator({ port: 0, data: SAMPLE_ORG });
  forge = await startForgeStub({ token: GITHUB_TOKEN });
  dir = await tempDir('portalctl-action-');
  await writeFile(join(dir, 'event.json'), JSON.stringify({ pull_request: { number: 42 } }));
});

afterEach(async () => {
  await emulator.close();
  await forge.close();
  await rm(dir, { recursive: true, force: true });
});

function githubEnv(inputs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    GITHUB_API_URL: forge.url,
    GITHUB_REPOSITORY: 'acme/portal-settings',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '77',
    GITHUB_TOKEN,
    PORTALCTL_TOKEN: 'admin-token',
    INPUT_STATE: join(dir, 'portalctl.state.json'),
    INPUT_ARGS: `--portal ${emulator.url}`,
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  return env;
}

/** The plan's own counts, from `plan --format json` run directly (asynchronously: the emulator runs in this process). */
async function planSummary(config: string): Promise<Record<string, number>> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'plan', config, '--format', 'json', '--portal', emulator.url, '--state', join(dir, 'portalctl.state.json')], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', PORTALCTL_TOKEN: 'admin-token' },
  });
  return (JSON.parse(stdout) as { summary: Record<string, number> }).summary;
}

/** The writes the script sent (the GraphQL question of who the token is excepted). */
const writes = (calls: ForgeStub['calls']) => calls.filter((call) => call.method !== 'GET' && call.path !== '/graphql').map((call) => `${call.method} ${call.path}`);

describe('GitHub Action script', () => {
  it('action.yml runs the script with every input it declares, and maps every output the script writes', async () => {
    const action = parse(await readFile(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { value: string }>;
      runs: { using: string; steps: { id?: string; if?: string; uses?: string; run?: string; with?: Record<string, string>; env?: Record<string, string> }[] };
    };
    expect(action.runs.using).toBe('composite');
    const step = action.runs.steps.find((entry) => entry.id === 'run');
    expect(step?.run).toContain('scripts/action/github.mjs');
    for (const name of Object.keys(action.inputs).filter((key) => !['github-token', 'version', 'pr-number'].includes(key))) {
      expect(step?.env?.[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`], name).toBe(`\${{ inputs.${name} }}`);
    }
    // On apply the pull request is the merged one the step before found, unless given.
    expect(step?.env?.['INPUT_PR_NUMBER']).toBe('${{ inputs.pr-number || steps.reviewed.outputs.pr-number }}');
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.run.outputs.${name} }}`);
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['exit-code', 'create', 'update', 'delete', 'destructive', 'refusals', 'drift', 'pending', 'applied', 'failed', 'skipped', 'plan-artifact']));

    // The reviewed plan: found by one script, downloaded by GitHub's own action, handed to the run step.
    const reviewed = action.runs.steps.find((entry) => entry.id === 'reviewed');
    expect(reviewed?.if).toBe("inputs.command == 'apply' && inputs.reviewed-plan != 'false'");
    expect(reviewed?.run).toContain('scripts/action/github-reviewed-plan.mjs');
    // It looks for the artifact the plan job named, which names the environment(s) too.
    expect(reviewed?.env?.['INPUT_ENV']).toBe('${{ inputs.env }}');
    const download = action.runs.steps.find((entry) => entry.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toMatchObject({ name: '${{ steps.reviewed.outputs.artifact }}', 'run-id': '${{ steps.reviewed.outputs.run-id }}', path: '${{ runner.temp }}/portalctl-reviewed-plan' });
    expect(step?.env?.['INPUT_REVIEWED_PLAN_DIR']).toContain("format('{0}/portalctl-reviewed-plan', runner.temp)");
    expect(step?.env?.['INPUT_REVIEWED_PLAN_MISSING']).toBe('${{ steps.reviewed.outputs.missing }}');
    // The plan of a pull request is kept under the name the script chose, for the apply job.
    const upload = action.runs.steps.find((entry) => entry.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with).toMatchObject({ name: '${{ steps.run.outputs.plan-artifact }}', path: '${{ inputs.plan-file }}' });
    expect(action.runs.steps.map((entry) => entry.id ?? entry.uses ?? '')).toEqual(['', 'reviewed', 'actions/download-artifact@v4', 'run', 'actions/upload-artifact@v4']);
  });

  it('plans, comments once on the pull request, and updates that same comment on the next push', async () => {
    forge.comments.push({ id: 1, body: 'LGTM, but please check the roles' });
    const expected = await planSummary(MINIMAL);
    expect(expected['update']! + expected['create']! + expected['delete']!).toBeGreaterThan(0);

    const first = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(first.stderr).not.toMatch(/error|warning/i);
    expect(first.code).toBe(0);
    const outputs = await readKeyValues(join(dir, 'output'));
    const declared = await declaredActionOutputs();
    expect(outputs).toMatchObject({
      'exit-code': '2',
      create: String(expected['create']),
      update: String(expected['update']),
      delete: String(expected['delete']),
      destructive: String(expected['destructive']),
      drift: String(expected['drift']),
      'has-changes': 'true',
    });
    expect(writes(forge.calls)).toEqual(['POST /repos/acme/portal-settings/issues/42/comments']);
    expect(forge.comments).toHaveLength(2);
    const comment = forge.comments[1]!;
    expect(comment.body.startsWith(`<!-- portalctl-comment: plan:${MINIMAL} -->\n### portalctl plan`)).toBe(true);
    expect(comment.body).toMatch(/\*\*Plan: \d+ to create, \d+ to update, \d+ to delete\.\*\*/);
    expect(comment.body).toContain('organization.securityPolicy');
    expect(outputs['comment-id']).toBe(String(comment.id));
    expect(Object.keys(outputs).filter((name) => !declared.includes(name))).toEqual([]);
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(comment.body);
    for (const text of [comment.body, summary, first.stdout]) {
      expect(text).not.toContain('admin-token');
      expect(text).not.toContain(GITHUB_TOKEN);
    }
    expect(forge.calls.every((call) => call.authorization === `Bearer ${GITHUB_TOKEN}`)).toBe(true);

    // A new push: the portal changed meanwhile (the policy applied by hand), so the plan differs.
    await fetch(`${emulator.url}/portals/self/securityPolicy/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer admin-token' },
      body: 'minLength=12&minDigit=1&minOther=&f=json',
    });
    forge.calls.length = 0;
    const second = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(second.code).toBe(0);
    expect(writes(forge.calls)).toEqual([`PATCH /repos/acme/portal-settings/issues/comments/${comment.id}`]);
    expect(forge.comments).toHaveLength(2);
    expect(forge.comments[0]!.body).toBe('LGTM, but please check the roles');
    expect(forge.comments[1]!.id).toBe(comment.id);
    expect(forge.comments[1]!.body).toContain('### portalctl plan');
    expect(second.stdout).toContain(`updated comment ${comment.id} on pull request #42`);
  });

  it("never edits another participant's comment that holds the marker: only the token's own account's", async () => {
    const marker = `<!-- portalctl-comment: plan:${MINIMAL} -->`;
    // Posted first by someone else, marker and all, to have the bot write the plan into it.
    forge.comments.push({ id: 7, body: `${marker}\nI will be replaced by the plan`, author: 'mallory' });
    const first = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(first.code).toBe(0);
    expect(writes(forge.calls)).toEqual(['POST /repos/acme/portal-settings/issues/42/comments']);
    expect(forge.comments[0]).toEqual({ id: 7, body: `${marker}\nI will be replaced by the plan`, author: 'mallory' });
    const ours = forge.comments[1]!;
    expect(ours.author).toBe('github-actions[bot]');
    // Who the token is comes from GraphQL's viewer (GET /user refuses the workflow token).
    expect(forge.calls.some((call) => call.method === 'POST' && call.path === '/graphql')).toBe(true);

    forge.calls.length = 0;
    expect((await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir)).code).toBe(0);
    expect(writes(forge.calls)).toEqual([`PATCH /repos/acme/portal-settings/issues/comments/${ours.id}`]);
    expect(forge.comments[0]!.body).toBe(`${marker}\nI will be replaced by the plan`);
  });

  it('finds its comment past the first page of comments, and keeps a separate comment per command', async () => {
    for (let i = 0; i < 130; i++) forge.comments.push({ id: i + 1, body: `comment ${i}` });
    const run = () => runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect((await run()).code).toBe(0);
    const ours = forge.comments.at(-1)!;
    forge.calls.length = 0;
    expect((await run()).code).toBe(0);
    expect(writes(forge.calls)).toEqual([`PATCH /repos/acme/portal-settings/issues/comments/${ours.id}`]);
    expect(forge.calls.filter((call) => call.method === 'GET')).toHaveLength(2);

    const drift = await runScript('github.mjs', githubEnv({ command: 'drift', config: MINIMAL }), dir);
    expect(drift.code).toBe(0);
    expect(forge.comments).toHaveLength(132);
    expect(forge.comments.at(-1)!.body).toContain(`<!-- portalctl-comment: drift:${MINIMAL} -->`);
    expect(forge.comments.at(-1)!.body).toContain('Pending:');
    const outputs = await readKeyValues(join(dir, 'output'));
    expect(outputs['exit-code']).toBe('2');
    expect(Number(outputs['pending'])).toBeGreaterThan(0);
    expect(outputs['drift']).toBe('0');
  });

  it('applies (reviewed-plan false: plans and applies at once): counts applied, failed and skipped; then plan and drift say there is nothing to do', async () => {
    const expected = await planSummary(MINIMAL);
    const apply = await runScript('github.mjs', githubEnv({ command: 'apply', config: MINIMAL, 'reviewed-plan': 'false' }), dir);
    expect(apply.code).toBe(0);
    expect(await readKeyValues(join(dir, 'output'))).toMatchObject({
      'exit-code': '0',
      applied: String(expected['create']! + expected['update']! + expected['delete']!),
      failed: '0',
      skipped: '0',
    });
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('### portalctl apply');
    expect(summary).toMatch(/Apply finished: \d+ applied, 0 failed, 0 skipped/);

    await rm(join(dir, 'output'));
    const plan = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(plan.code).toBe(0);
    expect(await readKeyValues(join(dir, 'output'))).toMatchObject({ 'exit-code': '0', create: '0', update: '0', delete: '0', 'has-changes': 'false' });
    expect(forge.comments.find((comment) => comment.body.includes('portalctl-comment: plan:'))?.body).toContain('No changes');

    await rm(join(dir, 'output'));
    const drift = await runScript('github.mjs', githubEnv({ command: 'drift', config: MINIMAL }), dir);
    expect(drift.code).toBe(0);
    expect(await readKeyValues(join(dir, 'output'))).toMatchObject({ 'exit-code': '0', drift: '0', pending: '0' });
  });

  it('fails the step on an invalid config, with the error in the comment, and nothing sent to the portal', async () => {
    const config = join(dir, 'bad');
    await writeFile(join(dir, 'bad.yaml'), 'version: 1\nportal:\n  url: http://127.0.0.1:9/x\n  edition: self-managed\n  version: "11.3"\norganization:\n  securityPolicy:\n    minLength: -4\n');
    const result = await runScript('github.mjs', githubEnv({ command: 'plan', config: `${config}.yaml` }), dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad.yaml:8');
    expect(await readKeyValues(join(dir, 'output'))).toMatchObject({ 'exit-code': '1' });
    expect(forge.comments).toHaveLength(1);
    expect(forge.comments[0]!.body).toContain('**Failed (exit 1).**');
    expect(forge.comments[0]!.body).toContain('minLength');
  });

  it('a token that may not comment (a fork) leaves a warning, the summary and the outputs, and the step still passes', async () => {
    forge.refuseWrites = 403;
    const result = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/::warning::Could not write the pull-request comment: POST \/repos\/acme\/portal-settings\/issues\/42\/comments answered HTTP 403/);
    expect(result.stdout).not.toContain(GITHUB_TOKEN);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('### portalctl plan');
    expect((await readKeyValues(join(dir, 'output')))['exit-code']).toBe('2');
  });

  it('outside a pull request (a push) it writes no comment, only the summary and outputs', async () => {
    await writeFile(join(dir, 'event.json'), JSON.stringify({ ref: 'refs/heads/main' }));
    const result = await runScript('github.mjs', githubEnv({ command: 'plan', config: MINIMAL }), dir);
    expect(result.code).toBe(0);
    expect(forge.calls).toEqual([]);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('### portalctl plan');
  });

  it('caps a very large plan comment at 60,000 characters, cut at whole lines, and still updates it in place', async () => {
    await emulator.close();
    const generated = economyOrganization({ seed: 7, url: 'http://127.0.0.1:9/portal/sharing/rest', groups: 100, items: 200, users: 75, tasksPerUser: 2, roles: 50, writes: 450 }) as {
      data: unknown;
      config: { portal: Record<string, unknown> };
    };
    emulator = await startEmulator({ port: 0, data: generated.data as never });
    const config = join(dir, 'large.json');
    await writeFile(config, JSON.stringify({ ...generated.config, portal: { ...generated.config.portal, url: emulator.url } }));
    for (let run = 0; run < 2; run++) {
      const result = await runScript('github.mjs', githubEnv({ command: 'plan', config }), dir);
      expect(result.code).toBe(0);
    }
    expect(writes(forge.calls)).toEqual(['POST /repos/acme/portal-settings/issues/42/comments', 'PATCH /repos/acme/portal-settings/issues/comments/1000']);
    const body = forge.comments[0]!.body;
    expect(body.length).toBeLessThanOrEqual(60_000);
    expect(body).toContain('Truncated');
    expect(body).toContain('Full plan: the saved plan file `portalctl-plan.json`');
    expect(body).toMatch(/\*\*Plan: \d+ to create, \d+ to update, \d+ to delete\.\*\*/);
    expect(body.trimEnd().endsWith('Full plan: the saved plan file `portalctl-plan.json`.')).toBe(true);
    const outputs = await readKeyValues(join(dir, 'output'));
    expect(Number(outputs['create']) + Number(outputs['update']) + Number(outputs['delete'])).toBe(450);
  });
});
