/**
 * The GitHub Action and the GitLab template over several environments (input `env` /
 * PORTALCTL_CI_ENV): one comment with a section per environment, the counts summed over them,
 * a failed environment counted and shown while the others still run.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../support/fleet.js';
import { startForgeStub, type ForgeStub } from './forge-stub.js';
import { declaredActionOutputs, readKeyValues, runScript } from './run-script.js';

const GITHUB_TOKEN = 'ghs_stubtoken0123456789';
let fleet: Fleet;
let forge: ForgeStub;

beforeEach(async () => {
  fleet = await startFleet();
  forge = await startForgeStub({ token: GITHUB_TOKEN });
  await writeFile(join(fleet.dir, 'event.json'), JSON.stringify({ pull_request: { number: 7 } }));
});
afterEach(async () => {
  await fleet.dispose();
  await forge.close();
});

function githubEnv(inputs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    ...fleet.env,
    GITHUB_API_URL: forge.url,
    GITHUB_REPOSITORY: 'acme/portal-settings',
    GITHUB_EVENT_PATH: join(fleet.dir, 'event.json'),
    GITHUB_OUTPUT: join(fleet.dir, 'output'),
    GITHUB_STEP_SUMMARY: join(fleet.dir, 'summary.md'),
    GITHUB_TOKEN,
    INPUT_CONFIG: 'config',
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  return env;
}

describe('the GitHub Action over several environments', () => {
  it('plans all of them into one comment and sums the counts; applies them; a portal down fails alone', async () => {
    const plan = await runScript('github.mjs', githubEnv({ command: 'plan', env: 'all' }), fleet.dir);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const outputs = await readKeyValues(join(fleet.dir, 'output'));
    const declared = await declaredActionOutputs();
    expect(outputs).toMatchObject({ 'exit-code': '2', create: '0', update: '15', delete: '0', environments: '3', 'failed-environments': '0', 'has-changes': 'true' });
    // Each of them reaches the workflow (`environments` did not: action.yml did not declare it).
    expect(Object.keys(outputs).filter((name) => !declared.includes(name))).toEqual([]);
    expect(forge.comments).toHaveLength(1);
    const comment = forge.comments[0]?.body ?? '';
    expect(comment).toContain('<!-- portalctl-comment: plan:config:all -->');
    expect(comment).toContain('### portalctl plan: 3 environments');
    for (const [name, portal] of Object.entries(fleet.portals)) expect(comment).toContain(`#### ${name} — ${portal.url}`);
    const saved = JSON.parse(await readFile(join(fleet.dir, 'portalctl-plan.json'), 'utf8')) as { fleet: { environment: string; plan: { environment: string } }[] };
    expect(saved.fleet.map((entry) => [entry.environment, entry.plan.environment])).toEqual([
      ['development', 'development'],
      ['test', 'test'],
      ['production', 'production'],
    ]);

    // As for one portal, an apply without the reviewed plans applies nothing.
    const unreviewed = await runScript('github.mjs', githubEnv({ command: 'apply', env: 'all' }), fleet.dir);
    expect(unreviewed.code).toBe(1);
    expect(await readFile(join(fleet.dir, 'portalctl-apply.md'), 'utf8')).toContain('**Not applied: no reviewed plan was downloaded.** Nothing was sent to any portal.');
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests({ writesOnly: true })).toEqual([]);

    await fleet.portals.test.close();
    const apply = await runScript('github.mjs', githubEnv({ command: 'apply', env: 'development,test,production', 'reviewed-plan': 'false' }), fleet.dir);
    expect(apply.code, apply.stdout + apply.stderr).toBe(1);
    const applied = await readKeyValues(join(fleet.dir, 'output'));
    // The environment that could not be reached failed; no operation did.
    expect(applied).toMatchObject({ 'exit-code': '1', applied: '10', failed: '0', environments: '3', 'failed-environments': '1' });
    const report = await readFile(join(fleet.dir, 'portalctl-apply.md'), 'utf8');
    expect(report).toMatch(/\| test \| - \| failed: .*could not reach the portal/);
    expect(report).toContain('#### production');
  });
});

describe('plan and apply jobs per environment on one pull request', () => {
  it('keep each environment\'s plan under its own artifact, and the apply job of production finds production\'s', async () => {
    const saved: Record<string, string> = {};
    for (const name of ['test', 'production']) {
      const plan = await runScript('github.mjs', githubEnv({ command: 'plan', env: name }), fleet.dir);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      saved[name] = (await readKeyValues(join(fleet.dir, 'output')))['plan-artifact'] ?? '';
    }
    // One name for both would make the second upload fail, or the apply job take the other environment's plan.
    expect(saved).toEqual({ test: 'portalctl-plan-test-pr7', production: 'portalctl-plan-production-pr7' });

    forge.pulls.push({ number: 7, merged_at: '2026-11-25T10:00:00Z', merge_commit_sha: 'b'.repeat(40), head: { sha: 'a'.repeat(40) } });
    forge.artifacts.push(
      { id: 1, name: saved['test'] ?? '', expired: false, created_at: '2026-11-25T09:00:00Z', workflow_run: { id: 501, head_sha: 'a'.repeat(40) } },
      { id: 2, name: saved['production'] ?? '', expired: false, created_at: '2026-11-25T09:00:01Z', workflow_run: { id: 502, head_sha: 'a'.repeat(40) } },
    );
    const found = await runScript('github-reviewed-plan.mjs', { ...githubEnv({ env: 'production' }), GITHUB_SHA: 'b'.repeat(40), GITHUB_GRAPHQL_URL: `${forge.url}/graphql` }, fleet.dir);
    expect(found.stdout).toContain('portalctl: the reviewed plan of pull request #7 is artifact portalctl-plan-production-pr7 of run 502.');
    expect(await readKeyValues(join(fleet.dir, 'output'))).toMatchObject({ 'pr-number': '7', 'run-id': '502', artifact: 'portalctl-plan-production-pr7' });
  });
});

describe('a plan over several environments that fails before planning', () => {
  it('reports the failure, not the plans file an earlier run left in the workspace', async () => {
    expect((await fleet.run(['plan', 'config', '--all-envs', '--out', 'portalctl-plan.json'])).code).toBe(0);
    const result = await runScript('github.mjs', githubEnv({ command: 'plan', env: 'all', args: '--state-name other' }), fleet.dir);
    expect(result.code).toBe(1);
    const outputs = await readKeyValues(join(fleet.dir, 'output'));
    expect(outputs['exit-code']).toBe('1');
    expect(outputs).not.toHaveProperty('update');
    expect(outputs).not.toHaveProperty('plan-artifact');
    expect(existsSync(join(fleet.dir, 'portalctl-plan.json'))).toBe(false);
    expect(await readFile(join(fleet.dir, 'portalctl-plan.md'), 'utf8')).toContain('--state-name names one state, but each environment of a fleet has its own');
  });
});

describe('the drift issue of the GitHub Action over environments', () => {
  const editRoleByHand = async (url: string, roleId: string, token: string, description: string): Promise<void> => {
    const response = await fetch(`${url}/portals/self/roles/${roleId}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esri-authorization': `Bearer ${token}` },
      body: new URLSearchParams({ name: 'Field Analyst', description, f: 'json' }),
    });
    expect(await response.json()).toMatchObject({ success: true });
  };

  it('over several environments, opens one issue while one of them drifts and closes it once every one is judged in sync', async () => {
    expect((await fleet.run(['apply', 'config', '--all-envs', '--auto-approve'])).code).toBe(0);
    await editRoleByHand(fleet.portals.production.url, 'r7HkQ2', 'prod-token', 'Hand edited');
    const drift = () => runScript('github.mjs', githubEnv({ command: 'drift', env: 'all', issue: 'true', 'fail-on-drift': 'false' }), fleet.dir);
    const acceptProduction = async () => expect((await fleet.run(['apply', 'config', '--env', 'production', '--refresh-only', '--auto-approve'])).code).toBe(0);

    const night1 = await drift();
    expect(night1.code, night1.stdout + night1.stderr).toBe(0);
    expect(await readKeyValues(join(fleet.dir, 'output'))).toMatchObject({ 'exit-code': '3', drift: '1', 'issue-action': 'opened', 'issue-number': '1' });
    expect(forge.issues).toHaveLength(1);
    expect(forge.issues[0]).toMatchObject({ title: 'Portal drift: config (environments: all)', state: 'open' });
    expect(forge.issues[0]?.body).toContain('#### production');
    expect(forge.issues[0]?.body).toContain('role[r7HkQ2]');

    // Accepted into production's state: no drift anywhere (Git is ahead there now: pending, exit 2).
    await acceptProduction();
    const night2 = await drift();
    expect(night2.code, night2.stdout + night2.stderr).toBe(0);
    expect(await readKeyValues(join(fleet.dir, 'output'))).toMatchObject({ 'exit-code': '2', drift: '0', 'issue-action': 'closed', 'issue-number': '1' });
    expect(forge.issues[0]).toMatchObject({ state: 'closed' });

    // Drift again; then, accepted, but test's portal down: nothing says every environment is in sync, so the issue stays open.
    await editRoleByHand(fleet.portals.production.url, 'r7HkQ2', 'prod-token', 'Edited again');
    await drift();
    expect(forge.issues).toMatchObject([{ state: 'closed' }, { number: 2, state: 'open' }]);
    await acceptProduction();
    await fleet.portals.test.close();
    const night4 = await drift();
    expect(night4.code).toBe(1);
    expect(night4.stdout).not.toContain('drift issue');
    expect(forge.issues).toMatchObject([{ state: 'closed' }, { number: 2, state: 'open' }]);
  });

  it('one environment at a time: each keeps its own issue', async () => {
    expect((await fleet.run(['apply', 'config', '--all-envs', '--auto-approve'])).code).toBe(0);
    await editRoleByHand(fleet.portals.production.url, 'r7HkQ2', 'prod-token', 'Hand edited');
    const production = await runScript('github.mjs', githubEnv({ command: 'drift', env: 'production', issue: 'true', 'fail-on-drift': 'false' }), fleet.dir);
    expect(production.code, production.stdout + production.stderr).toBe(0);
    expect(forge.issues).toMatchObject([{ number: 1, state: 'open' }]);

    // test has no drift: production's issue is not test's to close.
    const test = await runScript('github.mjs', githubEnv({ command: 'drift', env: 'test', issue: 'true', 'fail-on-drift': 'false' }), fleet.dir);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(await readKeyValues(join(fleet.dir, 'output'))).toMatchObject({ 'exit-code': '0', 'issue-action': 'none' });
    expect(forge.issues).toMatchObject([{ number: 1, state: 'open' }]);
  });
});

describe('the GitLab template over several environments', () => {
  it('PORTALCTL_CI_ENV names them; the dotenv report holds the sums', async () => {
    const result = await runScript('gitlab.mjs', { ...fleet.env, PORTALCTL_CI_COMMAND: 'drift', PORTALCTL_CI_CONFIG: 'config', PORTALCTL_CI_ENV: 'test,production' }, fleet.dir);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await readKeyValues(join(fleet.dir, 'portalctl.env'))).toMatchObject({ PORTALCTL_EXIT_CODE: '2', PORTALCTL_PENDING: '11', PORTALCTL_DRIFT: '0', PORTALCTL_ENVIRONMENTS: '2', PORTALCTL_FAILED_ENVIRONMENTS: '0' });
    expect(await readFile(join(fleet.dir, 'portalctl-drift.md'), 'utf8')).toContain('### portalctl drift: 2 environments');
  });
});
