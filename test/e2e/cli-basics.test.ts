/** Exit codes, output formats, saved plans, --target, --refresh=false and `state` through the real CLI. */
import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, THREE_CHANGES, type CliPortal } from '../support/cli.js';

const CHANGES = THREE_CHANGES;

const ADDRESSES = ['item[1105a1562c9c4dd98e557595bf8a2617].status', 'organization.securityPolicy', 'user[jsmith].task[a1b2c3]'];

/** A loopback port that nothing listens on: taken, then released. */
async function deadPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/portal/sharing/rest`;
}

describe('CLI plan/apply/state end to end', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CHANGES);
  });
  afterEach(async () => portal.dispose());

  it('plan --detailed-exitcode: 2 with changes, 0 after apply, 1 for invalid config and API errors', async () => {
    const changes = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(changes.stderr).toBe('');
    expect(changes.code).toBe(2);
    for (const address of ADDRESSES) expect(changes.stdout).toContain(address);

    const plain = await portal.run(['plan', config]);
    expect(plain.code).toBe(0);

    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('The portal now matches the configuration.');

    const nothing = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(nothing.code).toBe(0);

    const invalid = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: -3\n`, 'invalid');
    const invalidRun = await portal.run(['plan', invalid, '--detailed-exitcode']);
    expect(invalidRun.code).toBe(1);
    expect(invalidRun.stderr).toMatch(/portalctl\.yaml:\d+:\d+/);

    // A refusal, not a server failure (code 500 is retried, see test/e2e/portal-answers.test.ts).
    await portal.fault({ path: '/portals/self', error: { code: 400, message: 'The portal refused the read' }, count: 0 });
    const apiError = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(apiError.code).toBe(1);
    expect(apiError.stderr).toContain('The portal refused the read');
  });

  it('an invalid config fails before any request, showing every problem with its place', async () => {
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: 4\n    historySize: 30\nitems:\n  - { id: abc, status: bogus }\n`,
      'invalid',
    );
    await portal.clearRequests();
    for (const command of ['plan', 'apply', 'drift']) {
      const result = await portal.run(command === 'apply' ? [command, config, '--auto-approve'] : [command, config]);
      expect(result.code, command).toBe(1);
      expect(result.stderr).toMatch(/portalctl\.yaml:8:16: error: securityPolicy\.minLength is out of bounds\./);
      expect(result.stderr).toMatch(/portalctl\.yaml:9:18: error: securityPolicy\.historySize is out of bounds\./);
      expect(result.stderr).toMatch(/portalctl\.yaml:11:24: error: items\[0\]\.status has a value that is not allowed\./);
      expect(result.stderr).toContain('  value: 4; expected: 8 to 1000');
    }
    expect(await portal.requests()).toEqual([]);
  });

  it('ids the portal does not have fail the plan, each named at its place, and nothing is sent', async () => {
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}items:\n  - { id: deadbeefdeadbeefdeadbeefdeadbeef, status: deprecated }\nusers:\n  - username: jsmith\n    tasks:\n      - { id: zzzzzz, enabled: true }\nroles:\n  - { id: r7HkQ2, description: Known role }\n  - { id: nope42, description: Unknown role }\n`,
      'unknown-ids',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain('portalctl.yaml:7:53: error: item deadbeefdeadbeefdeadbeefdeadbeef does not exist on the portal, or this account cannot see it. [item[deadbeefdeadbeefdeadbeefdeadbeef].status]');
      expect(result.stderr).toContain('portalctl.yaml:11:7: error: task zzzzzz of user jsmith does not exist on the portal');
      expect(result.stderr).toContain('portalctl.yaml:14:3: error: role[nope42] does not exist on the portal');
      expect(result.stderr).toContain('expected: the id of an existing object: portalctl changes these, the API has no operation that creates one (portalctl import lists them)');
      expect(result.stderr).not.toContain('role[r7HkQ2] does not exist');
      // The portal was read to find this out, so "nothing was sent" would not be true; nothing was changed.
      expect(result.stderr).toContain('Error: invalid configuration (3 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('plan --format json prints the plan value; plan --out then apply --plan applies exactly it', async () => {
    const json = await portal.run(['plan', config, '--format', 'json']);
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout) as { formatVersion: number; operations: { address: string; request: { path: string } }[] };
    expect(plan.formatVersion).toBe(1);
    expect(plan.operations.map((op) => op.address).sort()).toEqual(ADDRESSES);

    const saved = await portal.run(['plan', config, '--out', 'reviewed.plan.json', '--target', 'organization.securityPolicy', '--target', 'item']);
    expect(saved.code).toBe(0);
    const file = JSON.parse(await readFile(join(portal.dir, 'reviewed.plan.json'), 'utf8')) as typeof plan;
    expect(file.operations.map((op) => op.address)).toEqual(['item[1105a1562c9c4dd98e557595bf8a2617].status', 'organization.securityPolicy']);

    // Given where a config goes, the saved plan is named for what it is, and nothing is sent.
    await portal.clearRequests();
    const mistaken = await portal.run(['apply', 'reviewed.plan.json', '--auto-approve']);
    expect(mistaken.code).toBe(1);
    expect(mistaken.stderr).toContain(
      'reviewed.plan.json:1:1: error: This is a plan saved by `portalctl plan --out`, not a config: apply it with `portalctl apply --plan reviewed.plan.json`, or read it with `portalctl show reviewed.plan.json`. (source/saved-plan)',
    );
    expect(mistaken.stderr).toContain('(1 error above)');
    expect(await portal.requests()).toEqual([]);

    const apply = await portal.run(['apply', '--plan', 'reviewed.plan.json']);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    const writes = await portal.requests({ writesOnly: true });
    expect(writes.map((entry) => entry.path).sort()).toEqual(file.operations.map((op) => op.request.path).sort());

    // The task was outside the saved plan's targets: still pending.
    const rest = await portal.run(['plan', config, '--format', 'json']);
    expect((JSON.parse(rest.stdout) as typeof plan).operations.map((op) => op.address)).toEqual(['user[jsmith].task[a1b2c3]']);
  });

  it('--target keeps only operations whose address the target selects', async () => {
    const targeted = await portal.run(['plan', config, '--format', 'json', '--target', 'user[jsmith]']);
    expect(targeted.code).toBe(0);
    const plan = JSON.parse(targeted.stdout) as { operations: { address: string }[]; summary: { outsideTargets?: number } };
    expect(plan.operations.map((op) => op.address)).toEqual(['user[jsmith].task[a1b2c3]']);
    // The rest of what the config asks for is counted, so the targeted plan does not read as all of it.
    const all = JSON.parse((await portal.run(['plan', config, '--format', 'json'])).stdout) as { operations: unknown[] };
    expect(plan.summary.outsideTargets).toBe(all.operations.length - 1);
    const text = await portal.run(['plan', config, '--target', 'user[jsmith]']);
    expect(text.stdout).toContain(`Targets: user[jsmith] (${all.operations.length - 1} more changes outside them are left out of this plan)\n`);

    await portal.clearRequests();
    const apply = await portal.run(['apply', config, '--auto-approve', '--target', 'organization']);
    expect(apply.code).toBe(0);
    const writes = await portal.requests({ writesOnly: true });
    expect(writes.map((entry) => entry.path)).toEqual(['/portals/self/securityPolicy/update']);
    // The rest is still to do: what matches now is said of the targets only.
    expect(apply.stdout).toContain('Apply finished: 1 applied, 0 failed, 0 skipped.\nThe portal now matches the configuration within the targets.\n');
    const done = await portal.run(['plan', config, '--target', 'organization']);
    expect(done.stdout).toBe('No changes. The portal matches the configuration within the targets.\nTargets: organization (2 more changes outside them are left out of this plan)\n');
  });

  it('--refresh=false plans against the recorded state without touching the network', async () => {
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code).toBe(0);
    // The state belongs to the emulator's URL (another URL would be another portal), so close the
    // emulator: --portal now points at a loopback port with nothing listening.
    await portal.close();
    await expect(fetch(portal.url)).rejects.toThrow();

    const inSync = await portal.run(['plan', config, '--refresh=false', '--detailed-exitcode']);
    expect(inSync.stderr).toBe('');
    expect(inSync.code).toBe(0);
    // What it compared was the record: it says nothing of the portal, which it did not read.
    expect(inSync.stdout).toBe('No changes. The recorded state matches the configuration.\nPlanned against the recorded state (--refresh=false): the portal was not read.\n');

    const changed = await portal.writeConfig(CHANGES.replace('minLength: 12', 'minLength: 14'), 'changed');
    const offline = await portal.run(['plan', changed, '--refresh=false', '--detailed-exitcode', '--format', 'json']);
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(2);
    const plan = JSON.parse(offline.stdout) as { refreshed: boolean; operations: { address: string; after: { minLength: number } }[] };
    expect(plan.refreshed).toBe(false);
    expect(plan.operations.map((op) => op.address)).toEqual(['organization.securityPolicy']);
    expect(plan.operations[0]?.after.minLength).toBe(14);

    // A port that never had a portal is just as fine offline when there is no recorded state to contradict it.
    const fresh = await portal.run(['plan', changed, '--refresh=false', '--detailed-exitcode'], { portal: await deadPortUrl(), state: 'none.json' });
    expect(fresh.code).toBe(2);
  });

  it('an object taken out of the config is no longer managed: each plan says so until `state rm` forgets its record', async () => {
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const withoutTask = await portal.writeConfig(CHANGES.replace(/users:[\s\S]*$/, ''), 'without-task');
    expect(withoutTask).not.toBe(config);
    const plan = await portal.run(['plan', withoutTask, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'Warnings (1):\n  ! user[jsmith].task[a1b2c3]: recorded in the state but no longer declared: portalctl no longer manages it and leaves it on the portal as it is (`portalctl state rm user[jsmith].task[a1b2c3]` forgets the record).\n',
    );
    // In the plan value too; not in the offline plan, the quick check.
    const json = JSON.parse((await portal.run(['plan', withoutTask, '--format', 'json'])).stdout) as { warnings: { address: string; kind: string }[] };
    expect(json.warnings).toEqual([expect.objectContaining({ address: 'user[jsmith].task[a1b2c3]', kind: 'user.task' })]);
    const offline = JSON.parse((await portal.run(['plan', withoutTask, '--refresh=false', '--format', 'json'])).stdout) as { warnings: unknown[] };
    expect(offline.warnings).toEqual([]);
    // Nothing was sent for it, and the portal keeps what was applied.
    expect((await portal.state()).users.find((user) => user.username === 'jsmith')?.tasks?.find((task) => task.id === 'a1b2c3')?.active).toBe(true);
    expect((await portal.run(['state', 'rm', 'user[jsmith].task[a1b2c3]'])).code).toBe(0);
    const after = await portal.run(['plan', withoutTask]);
    expect(after.stdout).not.toContain('Warnings');
  });

  it('state list, show and unlock', async () => {
    const empty = await portal.run(['state', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('No recorded state');

    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const list = await portal.run(['state', 'list']);
    expect(list.code).toBe(0);
    for (const address of ADDRESSES) expect(list.stdout).toContain(address);

    const show = await portal.run(['state', 'show']);
    expect(show.code).toBe(0);
    const shown = JSON.parse(show.stdout) as { lineage: string; serial: number; resources: Record<string, { value: unknown }> };
    const recorded = await portal.recorded();
    expect(shown.lineage).toBe(recorded?.lineage);
    expect(shown.serial).toBe(recorded?.serial);
    expect(shown.resources['organization.securityPolicy']?.value).toMatchObject({ minLength: 12 });

    const held = await portal.store.lock({ operation: 'apply' });
    const blocked = await portal.run(['apply', config, '--auto-approve']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(held.info.owner);
    const unlock = await portal.run(['state', 'unlock', held.info.id]);
    expect(unlock.code).toBe(0);
    expect(unlock.stdout).toContain(held.info.id);
    expect(await portal.store.currentLock()).toBeUndefined();
    expect((await portal.run(['state', 'unlock'])).stdout).toContain('not locked');
  });
});
