/**
 * Saved plans as an operator uses them through the real CLI: the apply `plan --out` advises runs
 * as advised, an offline plan (--refresh=false) applies while the portal still holds what the
 * state recorded, and a stale plan says what changed, not more.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

/**
 * A password rule and a role's description that differ from the sample organization (E8, E10),
 * for the portal PORTAL_URL names (support's POLICY_AND_ROLE names none): one test points it elsewhere.
 */
const POLICY_AND_ROLE_AT_PORTAL_URL = `${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: 12\nroles:\n  - id: r7HkQ2\n    name: Field Analyst\n    description: Collects field data\n`;

/** A REST root on a port nothing listens on. */
async function deadPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/portal/sharing/rest`;
}

/** The arguments after `portalctl` of the apply the plan's stderr advises. */
function advisedApply(stderr: string): string[] {
  const advised = /apply it with: portalctl (apply .*)$/m.exec(stderr)?.[1];
  if (advised === undefined) throw new Error(`no advice in: ${stderr}`);
  return advised.split(' ');
}

describe('saved plans', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(POLICY_AND_ROLE_AT_PORTAL_URL);
  });
  afterEach(async () => portal.dispose());

  it('the apply that plan --out advises names the --portal the plan was made for, and applies it where portal.url points elsewhere', async () => {
    const saved = await portal.run(['plan', config, '--out', 'plan.json']);
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain(`Saved the plan to plan.json; apply it with: portalctl apply --plan plan.json --portal ${portal.url} --state ${portal.statePath}\n`);
    await portal.clearRequests();

    // The config's portal.url names another portal (production, say): the advice must not lead there.
    const applied = await portal.run(advisedApply(saved.stderr), { portal: null, state: portal.statePath, env: { PORTAL_URL: await deadPortUrl() } });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply finished: 2 applied, 0 failed, 0 skipped.');
    expect((await portal.requests({ writesOnly: true })).map((request) => request.path).sort()).toEqual(['/portals/self/roles/r7HkQ2/update', '/portals/self/securityPolicy/update']);
  });

  it('a plan saved with --refresh=false applies while the portal holds what the state recorded, and is stale once it does not', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);

    const changed = await portal.writeConfig(POLICY_AND_ROLE_AT_PORTAL_URL.replace('Collects field data', 'Collects and checks field data'), 'changed');
    const offline = await portal.run(['plan', changed, '--refresh=false', '--out', 'offline.json']);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');
    await portal.clearRequests();
    const applied = await portal.run(['apply', '--plan', 'offline.json']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('applied  role[r7HkQ2] — Field Analyst  (E10)');
    expect((await portal.requests({ writesOnly: true })).map((request) => request.path)).toEqual(['/portals/self/roles/r7HkQ2/update']);

    // Changed on the portal after the record: the offline plan is stale, as a live one is.
    const again = await portal.writeConfig(POLICY_AND_ROLE_AT_PORTAL_URL.replace('minLength: 12', 'minLength: 14'), 'again');
    expect((await portal.run(['plan', again, '--refresh=false', '--out', 'offline.json'])).code).toBe(0);
    const live = await portal.state();
    live.organization.securityPolicy = { ...live.organization.securityPolicy, minLength: 9 };
    await portal.replaceState(live);
    await portal.clearRequests();
    const stale = await portal.run(['apply', '--plan', 'offline.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe('Error: The saved plan is stale: the portal changed since the plan was made. Nothing was applied; run `portalctl plan` again.\n');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('apply --plan is about the config paths the plan was made from, as the plan was, not the files they hold', async () => {
    await portal.writeConfig({ 'roles.yaml': 'version: 1\nroles:\n  - id: r7HkQ2\n    name: Field Analyst\n    description: Collects field data\n', 'portalctl.yaml': `${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: 12\n` }, 'split');
    const split = `${portal.dir}/split`;
    const planned = await portal.run(['plan', split, '--out', 'plan.json', '--format', 'json']);
    expect(planned.code, planned.stdout).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ about: { config: [split] } });
    const applied = await portal.run(['apply', '--plan', 'plan.json', '--format', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ about: { config: [split] }, plan: { about: { config: [split] } } });
  });

  it('a referenced value that changed since the plan was saved makes it stale, though the saved operations read the same', async () => {
    const withSecret = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - id: r7HkQ2\n    name: Field Analyst\n    description: \${env:ROLE_NOTE}\n`, 'secret');
    const saved = await portal.run(['plan', withSecret, '--out', 'plan.json'], { env: { ROLE_NOTE: 'Reviewed description' } });
    expect(saved.code, saved.stderr).toBe(0);
    await portal.clearRequests();
    const changed = await portal.run(['apply', '--plan', 'plan.json'], { env: { ROLE_NOTE: 'Another description!' } });
    expect(changed.stderr).toBe('Error: The saved plan is stale: the value of ${env:ROLE_NOTE} changed since the plan was made. Nothing was applied; run `portalctl plan` again.\n');
    expect(changed.code).toBe(1);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    // The value it was made with applies.
    const same = await portal.run(['apply', '--plan', 'plan.json'], { env: { ROLE_NOTE: 'Reviewed description' } });
    expect(same.code, same.stderr).toBe(0);
    expect((await portal.state()).roles.find((role) => role.id === 'r7HkQ2')?.description).toBe('Reviewed description');
  });

  it('a stale plan blames the configuration only when the configuration changed, and names the operations that differ', async () => {
    expect((await portal.run(['plan', config, '--out', 'plan.json'])).code).toBe(0);
    // The portal changed under the plan; the config did not: the operations send the same.
    const live = await portal.state();
    live.organization.securityPolicy = { ...live.organization.securityPolicy, minLength: 10 };
    await portal.replaceState(live);
    const portalChanged = await portal.run(['apply', '--plan', 'plan.json']);
    expect(portalChanged.code).toBe(1);
    expect(portalChanged.stderr).toBe('Error: The saved plan is stale: the portal changed since the plan was made. Nothing was applied; run `portalctl plan` again.\n');

    // The config changed, the portal did not.
    expect((await portal.run(['plan', config, '--out', 'plan.json'])).code).toBe(0);
    await portal.writeConfig(POLICY_AND_ROLE_AT_PORTAL_URL.replace('Collects field data', 'Collects and checks field data'));
    const configChanged = await portal.run(['apply', '--plan', 'plan.json']);
    expect(configChanged.code).toBe(1);
    expect(configChanged.stderr).toBe('Error: The saved plan is stale: the configuration now gives other operations (role[r7HkQ2]). Nothing was applied; run `portalctl plan` again.\n');

    // The portal now holds the role's description the plan would have sent: one operation fewer.
    expect((await portal.run(['plan', config, '--out', 'plan.json'])).code).toBe(0);
    await portal.writeConfig(POLICY_AND_ROLE_AT_PORTAL_URL);
    const matched = await portal.state();
    const role = matched.roles.find((candidate) => candidate.id === 'r7HkQ2');
    if (!role) throw new Error('the sample organization has role r7HkQ2');
    role.description = 'Collects field data';
    await portal.replaceState(matched);
    await portal.clearRequests();
    const fewer = await portal.run(['apply', '--plan', 'plan.json']);
    expect(fewer.code).toBe(1);
    expect(fewer.stderr).toBe('Error: The saved plan is stale: the portal changed since the plan was made; it would now send other operations for role[r7HkQ2]. Nothing was applied; run `portalctl plan` again.\n');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });
});
