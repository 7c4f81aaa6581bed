/**
 * The GitLab CI template (examples/ci/gitlab/) and its script (scripts/action/gitlab.mjs)
 * against the bundled emulator and a local stub of GitLab's merge-request notes API: one note,
 * edited in place on the next push; the exit code and counts as a dotenv report; the markdown
 * kept as a file.
 */
import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { commandArgs, outputArgs } from '../../scripts/action/run-portalctl.mjs';
import { CLI, REPO_ROOT, SAMPLE_ORG } from '../support/cli.js';
import { startForgeStub, type ForgeStub } from './forge-stub.js';
import { readKeyValues, runScript, tempDir } from './run-script.js';

const GITLAB_TOKEN = 'glpat-stubtoken0123456789';
const MINIMAL = join(REPO_ROOT, 'examples/minimal');
const TEMPLATE = join(REPO_ROOT, 'examples/ci/gitlab/portalctl.gitlab-ci.yml');
const COMPONENT = join(REPO_ROOT, 'templates/portalctl.yml');

let emulator: RunningEmulator;
let forge: ForgeStub;
let dir: string;

beforeEach(async () => {
  emulator = await startEmulator({ port: 0, data: SAMPLE_ORG });
  forge = await startForgeStub({ token: GITLAB_TOKEN });
  dir = await tempDir('portalctl-gitlab-');
});

afterEach(async () => {
  await emulator.close();
  await forge.close();
  await rm(dir, { recursive: true, force: true });
});

function gitlabEnv(settings: Record<string, string>, mergeRequest = true): Record<string, string> {
  const env: Record<string, string> = {
    CI_API_V4_URL: `${forge.url}/api/v4`,
    CI_PROJECT_ID: '4711',
    CI_JOB_URL: 'https://gitlab.example/acme/portal/-/jobs/9',
    PORTALCTL_GITLAB_TOKEN: GITLAB_TOKEN,
    PORTALCTL_TOKEN: 'admin-token',
    PORTALCTL_CI_STATE: join(dir, 'portalctl.state.json'),
    PORTALCTL_CI_ARGS: `--portal ${emulator.url}`,
    ...(mergeRequest ? { CI_MERGE_REQUEST_IID: '5' } : {}),
  };
  for (const [name, value] of Object.entries(settings)) env[`PORTALCTL_CI_${name}`] = value;
  return env;
}

const writes = (calls: ForgeStub['calls']) => calls.filter((call) => call.method !== 'GET').map((call) => `${call.method} ${call.path}`);

/** The template with its inputs put in, as GitLab interpolates `$[[ inputs.x ]]` (defaults unless given). */
function interpolated(text: string, given: Record<string, unknown> = {}): Record<string, Job> {
  const [header, body] = parseAllDocuments(text).map((doc) => doc.toJS() as unknown);
  const inputs = (header as { spec: { inputs: Record<string, { default?: unknown }> } }).spec.inputs;
  const value = (name: string): unknown => (name in given ? given[name] : inputs[name]?.default);
  const source = text.slice(text.indexOf('\n---\n') + 5).replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_, name: string) => {
    const input = value(name);
    return Array.isArray(input) ? JSON.stringify(input) : String(input);
  });
  expect(body).toBeTruthy();
  return parse(source) as Record<string, Job>;
}

interface Job {
  extends?: string;
  script?: string[];
  variables?: Record<string, string>;
  artifacts?: { paths?: string[]; reports?: { dotenv?: string; terraform?: string } };
  rules?: { if?: string; changes?: string[] }[];
}

describe('GitLab CI component and template', () => {
  it('are one file: a component under templates/ (include: component:) and the same text as the local template, with spec inputs pinned by default', async () => {
    const text = await readFile(COMPONENT, 'utf8');
    expect(await readFile(TEMPLATE, 'utf8')).toBe(text);
    const [header] = parseAllDocuments(text).map((doc) => doc.toJS() as { spec: { inputs: Record<string, { default?: unknown; type?: string }> } });
    const inputs = header!.spec.inputs;
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    // The release installed is this package's own, and the image a pinned Node release: never `latest`.
    expect(inputs['version']?.default).toBe(version);
    expect(String(inputs['image']?.default)).toMatch(/^node:\d+\.\d+\.\d+-slim$/);
    expect(text).not.toMatch(/@latest|:latest|default: latest/);
    for (const [name, input] of Object.entries(inputs)) expect(input, name).toHaveProperty('default');
    // Every input is used, and nothing interpolates an input that is not declared.
    const used = new Set([...text.matchAll(/\$\[\[ inputs\.([\w-]+) \]\]/g)].map((match) => match[1]));
    expect([...used].sort()).toEqual(Object.keys(inputs).sort());
  });

  it('runs the shared script with plan, apply and drift jobs, a dotenv report and the Terraform report of the merge-request widget', async () => {
    const jobs = interpolated(await readFile(COMPONENT, 'utf8'));
    const base = jobs['.portalctl']!;
    expect(base.script?.join('\n')).toContain('portalctl/scripts/action/gitlab.mjs');
    expect(base.script?.join('\n')).toContain('npm install --global --no-audit --no-fund "portalctl@${PORTALCTL_VERSION}"');
    expect(base.artifacts?.reports?.dotenv).toBe('portalctl.env');
    expect(Object.keys(jobs).filter((name) => jobs[name]?.extends === '.portalctl').sort()).toEqual(['portalctl:apply', 'portalctl:drift', 'portalctl:plan']);
    expect(jobs['portalctl:plan']?.artifacts?.reports?.terraform).toBe('portalctl-plan.tfreport.json');
    expect(jobs['portalctl:plan']?.artifacts?.paths).toContain('portalctl-plan.json');
    expect(jobs['portalctl:plan']?.rules?.[0]?.changes).toEqual(['portal/**/*']);
    expect(jobs['portalctl:apply']?.variables).toMatchObject({ PORTALCTL_CI_COMMAND: 'apply', PORTALCTL_CI_REVIEWED_PLAN: 'true', PORTALCTL_CI_PLAN_JOB: 'portalctl:plan' });
    expect(jobs['portalctl:drift']?.variables).toMatchObject({ PORTALCTL_CI_COMMAND: 'drift', PORTALCTL_CI_ISSUE: 'true', PORTALCTL_CI_FAIL_ON_DRIFT: 'false' });
    // Every PORTALCTL_CI_* variable the component sets is one the script reads, with the script's defaults where they meet.
    const script = await readFile(join(REPO_ROOT, 'scripts/action/gitlab.mjs'), 'utf8');
    const variables = Object.values(jobs).flatMap((job) => Object.keys(job.variables ?? {})).filter((name) => name.startsWith('PORTALCTL_CI_'));
    for (const name of new Set(variables)) expect(script, name).toContain(`setting('${name.slice('PORTALCTL_CI_'.length)}'`);
    expect(script).toContain("setting('TERRAFORM_REPORT', 'portalctl-plan.tfreport.json')");
    expect(script).toContain("setting('PLAN_JOB', 'portalctl:plan')");

    // Included twice (two environments): jobs apart by name, each apply looking for its own plan job.
    const staging = interpolated(await readFile(COMPONENT, 'utf8'), { name: 'staging', 'state-name': 'staging' });
    expect(Object.keys(staging).sort()).toEqual(['.staging', 'staging:apply', 'staging:drift', 'staging:plan']);
    expect(staging['staging:apply']?.variables?.['PORTALCTL_CI_PLAN_JOB']).toBe('staging:plan');
  });

  it('its jobs run only flags portalctl has', async () => {
    const jobs = interpolated(await readFile(COMPONENT, 'utf8'));
    for (const job of Object.values(jobs).filter((entry) => entry.extends === '.portalctl')) {
      const settings = { ...jobs['.portalctl']?.variables, ...job.variables };
      const args = commandArgs({ command: settings['PORTALCTL_CI_COMMAND'], config: settings['PORTALCTL_CI_CONFIG'], stateName: settings['PORTALCTL_CI_STATE_NAME'] ?? '', args: settings['PORTALCTL_CI_ARGS'] ?? '', reviewedPlan: 'plan.json' }) as string[];
      const help = spawnSync(process.execPath, [CLI, args[0]!, '--help'], { encoding: 'utf8' }).stdout;
      for (const output of outputArgs(args[0]) as string[][]) {
        for (const flag of [...args, ...output].filter((word) => word.startsWith('--'))) expect(help, `${args[0]} ${flag}`).toContain(flag);
      }
    }
  });

  it("never edits another member's note that holds the marker: only the token's own account's (GET /user)", async () => {
    const marker = `<!-- portalctl-comment: plan:${MINIMAL} -->`;
    forge.comments.push({ id: 3, body: `${marker}\nplanted`, author: '42' });
    expect((await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'plan', CONFIG: MINIMAL }), dir)).code).toBe(0);
    expect((await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'plan', CONFIG: MINIMAL }), dir)).code).toBe(0);
    expect(forge.comments).toHaveLength(2);
    expect(forge.comments[0]).toEqual({ id: 3, body: `${marker}\nplanted`, author: '42' });
    const ours = forge.comments[1]!;
    expect(ours.author).toBe('900');
    expect(writes(forge.calls)).toEqual(['POST /api/v4/projects/4711/merge_requests/5/notes', `PUT /api/v4/projects/4711/merge_requests/5/notes/${ours.id}`]);
    expect(forge.calls.filter((call) => call.path === '/api/v4/user')).toHaveLength(2);
  });

  it('plans, writes one merge-request note, and edits that same note on the next push', async () => {
    forge.comments.push({ id: 1, body: 'Please also review the roles.' });
    const first = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'plan', CONFIG: MINIMAL }), dir);
    expect(first.code).toBe(0);
    expect(writes(forge.calls)).toEqual(['POST /api/v4/projects/4711/merge_requests/5/notes']);
    const note = forge.comments[1]!;
    expect(note.body.startsWith(`<!-- portalctl-comment: plan:${MINIMAL} -->\n### portalctl plan`)).toBe(true);
    expect(note.body).toMatch(/\*\*Plan: \d+ to create, \d+ to update, \d+ to delete\.\*\*/);
    expect(forge.calls.every((call) => call.privateToken === GITLAB_TOKEN && call.authorization === undefined)).toBe(true);

    const dotenv = await readKeyValues(join(dir, 'portalctl.env'));
    expect(dotenv['PORTALCTL_EXIT_CODE']).toBe('2');
    expect(Number(dotenv['PORTALCTL_CREATE']) + Number(dotenv['PORTALCTL_UPDATE']) + Number(dotenv['PORTALCTL_DELETE'])).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'portalctl-plan.md'), 'utf8')).toBe(note.body);
    expect(JSON.parse(await readFile(join(dir, 'portalctl-plan.json'), 'utf8'))).toMatchObject({ formatVersion: 1 });
    // The merge-request widget's report: the three counts of GitLab's Terraform integration.
    expect(JSON.parse(await readFile(join(dir, 'portalctl-plan.tfreport.json'), 'utf8'))).toEqual({
      create: Number(dotenv['PORTALCTL_CREATE']),
      update: Number(dotenv['PORTALCTL_UPDATE']),
      delete: Number(dotenv['PORTALCTL_DELETE']),
    });
    for (const text of [note.body, first.stdout, await readFile(join(dir, 'portalctl.env'), 'utf8')]) {
      expect(text).not.toContain(GITLAB_TOKEN);
      expect(text).not.toContain('admin-token');
    }

    forge.calls.length = 0;
    const second = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'plan', CONFIG: MINIMAL }), dir);
    expect(second.code).toBe(0);
    expect(writes(forge.calls)).toEqual([`PUT /api/v4/projects/4711/merge_requests/5/notes/${note.id}`]);
    expect(forge.comments).toHaveLength(2);
    expect(second.stdout).toContain(`updated note ${note.id} on merge request !5`);
  });

  it('applies on the default branch (no merge request: no note), then drift reports in sync', async () => {
    const apply = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'apply', CONFIG: MINIMAL, REVIEWED_PLAN: 'false', ARGS: `--portal ${emulator.url} --invites-dir ${join(dir, 'invites')}` }, false), dir);
    expect(apply.code).toBe(0);
    expect(forge.calls).toEqual([]);
    const applied = await readKeyValues(join(dir, 'portalctl.env'));
    expect(applied).toMatchObject({ PORTALCTL_EXIT_CODE: '0', PORTALCTL_FAILED: '0', PORTALCTL_SKIPPED: '0' });
    expect(Number(applied['PORTALCTL_APPLIED'])).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'portalctl-apply.md'), 'utf8')).toMatch(/Apply finished: \d+ applied, 0 failed, 0 skipped/);

    const drift = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'drift', CONFIG: MINIMAL }, false), dir);
    expect(drift.code).toBe(0);
    expect(await readKeyValues(join(dir, 'portalctl.env'))).toMatchObject({ PORTALCTL_EXIT_CODE: '0', PORTALCTL_DRIFT: '0', PORTALCTL_PENDING: '0' });
  });

  it('drift exit 3 fails the job, unless PORTALCTL_CI_FAIL_ON_DRIFT is false', async () => {
    expect((await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'apply', CONFIG: MINIMAL, REVIEWED_PLAN: 'false' }, false), dir)).code).toBe(0);
    // Someone changes the password policy by hand.
    const changed = await fetch(`${emulator.url}/portals/self/securityPolicy/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer admin-token' },
      body: 'minLength=20&f=json',
    });
    expect(changed.ok).toBe(true);
    const failing = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'drift', CONFIG: MINIMAL }), dir);
    expect(failing.code).toBe(3);
    expect(await readKeyValues(join(dir, 'portalctl.env'))).toMatchObject({ PORTALCTL_EXIT_CODE: '3', PORTALCTL_DRIFT: '1' });
    expect(forge.comments.at(-1)!.body).toContain('Drift: 1 object changed outside portalctl');
    const tolerated = await runScript('gitlab.mjs', gitlabEnv({ COMMAND: 'drift', CONFIG: MINIMAL, FAIL_ON_DRIFT: 'false' }), dir);
    expect(tolerated.code).toBe(0);
    expect(forge.comments).toHaveLength(1);
  });
});
