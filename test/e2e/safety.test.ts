/**
 * The guards: the state lock between concurrent applies, stale saved plans, plain http off
 * loopback, destructive operations, non-interactive approval, and credentials never leaking
 * into any output, log line, error, plan file or state file.
 */
import { networkInterfaces } from 'node:os';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseEmulatorState, startEmulator } from '../../src/emulator/index.js';
import { CONFIG_HEADER, SAMPLE_ORG, THREE_CHANGES, startCliPortal, waitFor, whilePaused, type CliPortal, type CliResult } from '../support/cli.js';

const CONFIG = THREE_CHANGES;

describe('safety guards through the CLI', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CONFIG);
  });
  afterEach(async () => portal.dispose());

  it('a second apply waits --lock-timeout for the lock, then fails naming its owner', async () => {
    // Slow answers keep the first apply busy until the test has seen its lock and paused it.
    await portal.latency(400);
    const first = portal.start(['apply', config, '--auto-approve', '--parallelism', '1']);
    await waitFor(async () => (await portal.store.currentLock()) !== undefined, 'the first apply to take the lock', first.done);
    const holder = await portal.store.currentLock();
    // Paused, the first apply holds its lock for as long as the second one takes, on any machine.
    const second = await whilePaused(first.child, () => portal.run(['apply', config, '--auto-approve', '--lock-timeout', '200ms']));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`locked by ${holder?.owner}`);
    expect(second.stderr).toContain(`pid ${holder?.pid}`);
    expect(second.stderr).toContain(`portalctl state unlock ${holder?.id} --state ${portal.statePath}`);

    const firstResult = await first.done;
    expect(firstResult.code).toBe(0);
    // Every write came from the first apply: three operations, each once.
    expect(await portal.requests({ writesOnly: true })).toHaveLength(3);
  });

  it('waits for a lock that is released within --lock-timeout', async () => {
    const held = await portal.store.lock({ operation: 'apply' });
    // --verbose: it says when it starts waiting, the event this test waits for.
    const second = portal.start(['apply', config, '--auto-approve', '--lock-timeout', '1m', '--verbose']);
    await waitFor(() => second.output().stderr.includes('(--lock-timeout)'), 'the second apply to find the lock taken', second.done);
    // While the lock is held it must not touch the portal.
    expect(await portal.requests()).toHaveLength(0);
    await portal.store.unlock(held);
    const result = await second.done;
    expect(result.code, result.stderr).toBe(0);
    // Besides the notice, only the requests --verbose lists: no warning, no error.
    const other = result.stderr.split('\n').filter((line) => line !== '' && !line.includes('(--lock-timeout)') && !/^(GET|POST) \//.test(line));
    expect(other).toEqual([]);
  });

  it('refuses a saved plan when the portal changed out of band', async () => {
    expect((await portal.run(['plan', config, '--out', 'saved.json'])).code).toBe(0);
    const live = await portal.state();
    live.organization.securityPolicy = { ...live.organization.securityPolicy, minLength: 10 };
    await portal.replaceState(live);
    await portal.clearRequests();

    const apply = await portal.run(['apply', '--plan', 'saved.json']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('The saved plan is stale');
    expect(apply.stderr).toContain('the portal changed since the plan was made');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
  });

  it('refuses a saved plan when another apply bumped the state serial meanwhile', async () => {
    expect((await portal.run(['plan', config, '--out', 'saved.json', '--target', 'organization'])).code).toBe(0);
    expect((await portal.run(['apply', config, '--auto-approve', '--target', 'user'])).code).toBe(0);
    await portal.clearRequests();

    const apply = await portal.run(['apply', '--plan', 'saved.json']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/The saved plan is stale: .*the recorded state changed \(no recorded state -> [0-9a-f-]+ serial \d+\)/);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
  });

  it('refuses a saved plan for another organization at the same URL, and one whose organization id was edited', async () => {
    // Against a state of its own, new: the plan is applied with the state it was made against.
    expect((await portal.run(['plan', config, '--out', 'saved.json'], { state: 'other.state.json' })).code).toBe(0);
    // Another state named at apply: refused before anything is read (checked against it, a plan
    // made against no state passed as current, and its records went to that other state).
    const elsewhere = await portal.run(['apply', '--plan', 'saved.json']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toBe(`Error: The saved plan was made against the state file ${join(portal.dir, 'other.state.json')}, not file ${portal.statePath}: apply it with the --state (and --state-name) it was made with; nothing was applied.\n`);
    // The same data, another organization behind the same URL.
    const live = await portal.state();
    await portal.replaceState({ ...live, organization: { ...live.organization, id: 'FEDCBA9876543210' } });
    await portal.clearRequests();
    const other = await portal.run(['apply', '--plan', 'saved.json'], { state: 'other.state.json' });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/The saved plan is stale: it was made for the organization 0123456789ABCDEF, and http:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest is now the organization FEDCBA9876543210\./);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);

    // Back to the organization it was made for, but the plan says another.
    await portal.replaceState(live);
    const saved = JSON.parse(await readFile(join(portal.dir, 'saved.json'), 'utf8')) as { portal: { id: string } };
    await writeFile(join(portal.dir, 'edited.json'), JSON.stringify({ ...saved, portal: { ...saved.portal, id: 'FEDCBA9876543210' } }));
    const edited = await portal.run(['apply', '--plan', 'edited.json'], { state: 'other.state.json' });
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('it was made for the organization FEDCBA9876543210, and');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    // The plan as it was saved still applies.
    const applied = await portal.run(['apply', '--plan', 'saved.json'], { state: 'other.state.json' });
    expect(applied.code, applied.stderr).toBe(0);
  });

  it('refuses plain http to a host that is not loopback unless --insecure, without sending anything', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    const reachable = external ? await startEmulator({ port: 0, host: '0.0.0.0', data: SAMPLE_ORG }) : undefined;
    try {
      const url = reachable && external ? `http://${external.address}:${reachable.port}/portal/sharing/rest` : 'http://portal.example.com/portal/sharing/rest';
      const refused = await portal.run(['plan', config], { portal: url, state: 'other.json' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--insecure');
      if (!reachable) return;
      const log = async () => ((await (await fetch(`${reachable.controlUrl}/requests`)).json()) as { requests: unknown[] }).requests;
      expect(await log()).toHaveLength(0);
      const allowed = await portal.run(['plan', config, '--insecure', '--detailed-exitcode'], { portal: url, state: 'other.json' });
      expect(allowed.code).toBe(2);
      expect((await log()).length).toBeGreaterThan(0);
    } finally {
      await reachable?.close();
    }
  });

  it('marks destructive operations and refuses them without --allow-destructive, sending nothing', async () => {
    const pruning = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  resources:\n    keep: [home-background.jpg]\n    prune: true\n`, 'prune');
    const plan = await portal.run(['plan', pruning, '--format', 'json']);
    expect(plan.code).toBe(0);
    const operations = (JSON.parse(plan.stdout) as { operations: { address: string; action: string; destructive: boolean }[] }).operations;
    expect(operations.map((op) => [op.address, op.action, op.destructive])).toEqual([
      ['organization.resource[legacy-logo.png]', 'delete', true],
      ['organization.resource[old-banner.png]', 'delete', true],
    ]);
    const text = await portal.run(['plan', pruning]);
    expect(text.stdout).toMatch(/destructive/i);

    await portal.clearRequests();
    const refused = await portal.run(['apply', pruning, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--allow-destructive');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    expect((await portal.state()).organization.resources.map((r) => r.key).sort()).toEqual(['home-background.jpg', 'legacy-logo.png', 'old-banner.png']);

    const allowed = await portal.run(['apply', pruning, '--auto-approve', '--allow-destructive']);
    expect(allowed.code).toBe(0);
    expect((await portal.state()).organization.resources.map((r) => r.key)).toEqual(['home-background.jpg']);
    expect((await portal.run(['plan', pruning, '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses a non-interactive apply without --auto-approve and sends nothing', async () => {
    const apply = await portal.run(['apply', config]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('--auto-approve');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    expect(await portal.recorded()).toBeUndefined();
  });

  it('never shows a credential or token: outputs, verbose logs, errors, plan and state files', async () => {
    const secrets = ['admin-token', 'admin-password', 'ci-secret', 'jsmith-password', 'wrong-password-123'];
    const results: CliResult[] = [];
    const run = async (args: string[], credentials: Parameters<CliPortal['run']>[1]) => {
      const result = await portal.run([...args, '--verbose'], credentials);
      results.push(result);
      return result;
    };
    expect((await run(['plan', config, '--out', 'saved.json'], { credentials: { token: 'admin-token' } })).code).toBe(0);
    expect((await run(['apply', '--plan', 'saved.json'], { credentials: { username: 'admin', password: 'admin-password' } })).code).toBe(0);
    const changed = await portal.writeConfig(CONFIG.replace('minLength: 12', 'minLength: 13'), 'changed');
    await portal.fault({ path: '/portals/self/securityPolicy/update', error: { code: 498, message: 'Invalid token.' } });
    expect((await run(['apply', changed, '--auto-approve', '--format', 'json'], { credentials: { clientId: 'portalctl-ci', clientSecret: 'ci-secret' } })).code).toBe(0);
    expect((await run(['drift', changed], { credentials: { clientId: 'portalctl-ci', clientSecret: 'ci-secret' } })).code).toBe(0);
    // Failures: a wrong password, a wrong client secret, a rejected token, a privilege error.
    expect((await run(['plan', changed], { credentials: { username: 'admin', password: 'wrong-password-123' } })).code).toBe(1);
    expect((await run(['plan', changed], { credentials: { clientId: 'portalctl-ci', clientSecret: 'wrong-password-123' } })).code).toBe(1);
    expect((await run(['plan', changed], { credentials: { token: 'expired-token' } })).code).toBe(1);
    const jsmith = await portal.writeConfig(CONFIG.replace('minLength: 12', 'minLength: 14'), 'jsmith');
    expect((await run(['apply', jsmith, '--auto-approve'], { credentials: { username: 'jsmith', password: 'jsmith-password' } })).code).toBe(1);

    // Tokens the emulator issued during the run count as secrets too.
    const issued = ((await portal.state()) as unknown as { tokens: { token: string }[] }).tokens.map((entry) => entry.token);
    expect(issued.length).toBeGreaterThan(secrets.length);
    const files = [join(portal.dir, 'saved.json'), portal.statePath, `${portal.statePath}.backup`];
    const texts = [...results.flatMap((result) => [result.stdout, result.stderr]), ...(await Promise.all(files.map((file) => readFile(file, 'utf8'))))];
    for (const name of await readdir(portal.dir)) if (name.endsWith('.json')) texts.push(await readFile(join(portal.dir, name), 'utf8'));
    // The verbose request lines were really printed (the check below looks at real log lines).
    expect(results[0]?.stderr).toMatch(/GET \/portals\/self 200/);
    for (const secret of [...secrets, ...issued]) {
      for (const text of texts) expect(text.includes(secret), `"${secret}" leaked`).toBe(false);
    }
  });
});

describe('the recorded state guards the portal it belongs to', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CONFIG);
  });
  afterEach(async () => portal.dispose());

  it('refuses a state recorded for another portal, and sends nothing', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const before = await readFile(portal.statePath, 'utf8');
    // Another organization (another id) at another URL; the same id under another URL would be the same portal.
    const otherState = parseEmulatorState(parseYaml(await readFile(SAMPLE_ORG, 'utf8')), 'other');
    otherState.organization.id = 'FEDCBA9876543210';
    // Its collaborations are hosted by it: its own (GUID-form) collaboration portal id, on the host participant and its links.
    const hostId = 'fedcba98-7654-4321-8fed-cba987654321';
    const rehost = (portalId: string, previousHost: string) => (portalId === previousHost ? hostId : portalId);
    for (const collaboration of otherState.collaborations) {
      const previousHost = collaboration.hostPortalId;
      for (const participant of collaboration.participants) participant.portalId = rehost(participant.portalId, previousHost);
      for (const workspace of collaboration.workspaces) {
        for (const entry of [...workspace.participantGroupLinks, ...workspace.participantsWithoutGroupLinks]) entry.portalId = rehost(entry.portalId, previousHost);
      }
      collaboration.hostPortalId = hostId;
    }
    otherState.organization.collaborationPortalId = hostId;
    const other = await startEmulator({ port: 0, data: otherState });
    try {
      await portal.clearRequests();
      const result = await portal.run(['apply', config, '--auto-approve'], { portal: other.url });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/belongs to/);
      expect(await readFile(portal.statePath, 'utf8')).toBe(before);
      const otherWrites = ((await (await fetch(`${other.controlUrl}/requests`)).json()) as { requests: { access: string }[] }).requests.filter(
        (request) => request.access === 'write',
      );
      expect(otherWrites).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a corrupt state file is a clear error that changes no file and sends nothing', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const good = await readFile(portal.statePath, 'utf8');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(portal.statePath, good.slice(0, good.length / 2));
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve'], ['drift', config]]) {
      const result = await portal.run(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/corrupt/);
      expect(result.stderr).toContain('.backup');
    }
    expect(await readFile(portal.statePath, 'utf8')).toBe(good.slice(0, good.length / 2));
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });
});
