/**
 * Faults injected through the emulator's control API while the real CLI applies. After each
 * one the recorded state must match the portal: `drift` reports in sync (recorded = live for
 * every recorded address, and nothing pending) once the apply has completed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

const POLICY_PATH = '/portals/self/securityPolicy/update';
const CONFIG = `${CONFIG_HEADER}
organization:
  securityPolicy:
    minLength: 12
    minDigit: 2
items:
  - { id: 1105a1562c9c4dd98e557595bf8a2617, status: deprecated }
`;

describe('fault handling through the CLI', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(CONFIG);
  });
  afterEach(async () => portal.dispose());

  /** The state file matches the portal: every recorded value equals the live one and nothing is pending. */
  async function expectStateMatchesPortal(): Promise<void> {
    const drift = await portal.run(['drift', config, '--format', 'json']);
    expect(drift.stderr).toBe('');
    expect(JSON.parse(drift.stdout)).toMatchObject({ status: 'inSync', drift: [], pending: [] });
    expect(drift.code).toBe(0);
    const recorded = await portal.recorded();
    const live = await portal.state();
    expect(recorded?.resources['organization.securityPolicy']?.value).toMatchObject({ minLength: 12, minDigit: 2 });
    expect(live.organization.securityPolicy).toMatchObject({ minLength: 12, minDigit: 2 });
  }

  /** After a failed apply: the state still matches the portal (no drift); only the failed addresses are pending. */
  async function expectOnlyPending(configDir: string, addresses: string[]): Promise<void> {
    const drift = await portal.run(['drift', configDir, '--format', 'json']);
    const report = JSON.parse(drift.stdout) as { status: string; drift: unknown[]; pending: { address: string }[] };
    expect(report.drift).toEqual([]);
    expect(report.pending.map((op) => op.address)).toEqual(addresses);
    expect(drift.code).toBe(2);
  }

  const writesTo = async (path: string) => (await portal.requests()).filter((entry) => entry.path === path);

  it('retries 429 with Retry-After and 503, then succeeds', async () => {
    await portal.fault({ path: POLICY_PATH, status: 429, retryAfter: 1 });
    await portal.fault({ path: '/portals/self', method: 'GET', status: 503, count: 2 });
    const apply = await portal.run(['apply', config, '--auto-approve', '--verbose']);
    expect(apply.code).toBe(0);
    const attempts = await writesTo(POLICY_PATH);
    expect(attempts.map((entry) => entry.response?.status)).toEqual([429, 200]);
    expect(apply.stderr).toContain(`POST ${POLICY_PATH} 429`);
    expect(apply.stderr).toMatch(/GET \/portals\/self 503/);
    await expectStateMatchesPortal();
  });

  it('fails at once on 403 GWM_0003 and names the privilege problem', async () => {
    await portal.fault({
      path: POLICY_PATH,
      error: { code: 403, messageCode: 'GWM_0003', message: 'You do not have permissions to access this resource or perform this operation.' },
      count: 0,
    });
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(await writesTo(POLICY_PATH)).toHaveLength(1);
    expect(apply.stdout).toMatch(/FAILED\s+organization\.securityPolicy/);
    // One line: the error's hint joined to it, not a newline shown as \x0a.
    expect(apply.stdout.split('\n').find((line) => line.startsWith('FAILED'))).toBe(
      'FAILED   organization.securityPolicy  (E8): POST /portals/self/securityPolicy/update failed: You do not have permissions to access this resource or perform this operation. (code 403, GWM_0003); The account behind the credentials lacks the privilege this operation needs (not retried). Use a default administrator account, or grant the privilege to its role.',
    );
    expect(apply.stderr).toContain('organization.securityPolicy');
    expect(`${apply.stdout}${apply.stderr}`).toContain('GWM_0003');
    expect(`${apply.stdout}${apply.stderr}`).toMatch(/privilege/i);
    // The other operation went through and is recorded; the failed one is not.
    const recorded = await portal.recorded();
    expect(recorded?.resources['item[1105a1562c9c4dd98e557595bf8a2617].status']?.value).toBe('deprecated');
    await expectOnlyPending(config, ['organization.securityPolicy']);

    // A real permission failure, not an injected one: the steward is no default administrator.
    const steward = await portal.run(['apply', config, '--auto-approve'], { credentials: { token: 'steward-token' } });
    expect(steward.code).toBe(1);
    expect(`${steward.stdout}${steward.stderr}`).toMatch(/privilege/i);

    await portal.clearFaults();
    const again = await portal.run(['apply', config, '--auto-approve']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    await expectStateMatchesPortal();
  });
  it('reads refused for want of privileges are said together, each at its place in the config, and nothing is sent', async () => {
    const tasks = await portal.writeConfig(
      `${CONFIG}users:\n  - username: jsmith\n    tasks:\n      - { id: a1b2c3, enabled: true }\n      - { id: d4e5f6, enabled: true }\n  - username: mlopez\n    tasks:\n      - { id: 9f8e7d, enabled: true }\n`,
      'tasks',
    );
    // The viewer may read the organization but no one's tasks: two refusals, both said in one run.
    const apply = await portal.run(['apply', tasks, '--auto-approve'], { credentials: { token: 'viewer-token' } });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('Error: The portal refused 2 of the reads the configuration needs: the account behind the credentials lacks a privilege for each (code 403, GWM_0003; not retried).\n');
    // The two tasks of jsmith come from one refused request: said once, with both objects.
    expect(apply.stderr).toContain(`tasks/portalctl.yaml:16:7: user[jsmith].task[a1b2c3] and 1 other object: GET /community/users/jsmith/tasks: tasks is reserved to default administrators and the user 'jsmith'.\n`);
    expect(apply.stderr).toContain(`tasks/portalctl.yaml:20:7: user[mlopez].task[9f8e7d]: GET /community/users/mlopez/tasks: tasks is reserved to default administrators and the user 'mlopez'.\n`);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    const json = await portal.run(['plan', tasks, '--format', 'json'], { credentials: { token: 'viewer-token' } });
    const report = JSON.parse(json.stdout) as { errors: number; diagnostics: { code: string; message: string; address: string; value: string; location: { line: number } }[] };
    expect(report.errors).toBe(3);
    expect(report.diagnostics.map(({ code, address, value, location }) => [code, address, value, location.line])).toEqual([
      ['api/missing-privilege', 'user[jsmith].task[a1b2c3]', '403 GWM_0003', 16],
      ['api/missing-privilege', 'user[jsmith].task[d4e5f6]', '403 GWM_0003', 17],
      ['api/missing-privilege', 'user[mlopez].task[9f8e7d]', '403 GWM_0003', 20],
    ]);
    expect(report.diagnostics[0]?.message).toBe("Refused for want of a privilege: GET /community/users/jsmith/tasks: tasks is reserved to default administrators and the user 'jsmith'.");
    // One refusal is the portal's own error, as before.
    const jsmith = await portal.run(['plan', tasks], { credentials: { token: 'jsmith-token' } });
    expect(jsmith.code).toBe(1);
    expect(jsmith.stderr).toContain('Error: GET /community/users/mlopez/tasks failed: You do not have permissions to access this resource or perform this operation. (code 403, GWM_0003)');
  });

  it('does not repeat a dropped inviteParticipant (E13) and reports it', async () => {
    const inviting = await portal.writeConfig(
      `${CONFIG}collaborations:\n  - id: c0ffee\n    participants:\n      - guestPortalUrl: https://partner.example.org/portal\n        workspaces: { w1: sendAndReceive }\n        expirationHours: 72\n`,
      'inviting',
    );
    await portal.fault({ path: '*/inviteParticipant', drop: true });
    const apply = await portal.run(['apply', inviting, '--auto-approve']);
    expect(apply.code).toBe(1);
    const invites = await writesTo('/portals/self/collaborations/c0ffee/inviteParticipant');
    expect(invites).toHaveLength(1);
    expect(invites[0]?.response?.dropped).toBe(true);
    expect(apply.stdout).toMatch(/FAILED\s+collaboration\[c0ffee\]\.invitation\[https:\/\/partner\.example\.org\/portal\]/);
    expect(`${apply.stdout}${apply.stderr}`).toMatch(/not repeated|may or may not|unknown/i);
    // The other operations were applied and recorded; the invitation was not recorded as done.
    const recorded = await portal.recorded();
    expect(recorded?.resources['organization.securityPolicy']?.value).toMatchObject({ minLength: 12, minDigit: 2 });
    expect(recorded?.resources['collaboration[c0ffee].invitation[https://partner.example.org/portal]']?.appliedAt).toBeUndefined();
    await expectOnlyPending(inviting, ['collaboration[c0ffee].invitation[https://partner.example.org/portal]']);

    // The dropped request never reached the emulator's handler, so a second apply invites once.
    const again = await portal.run(['apply', inviting, '--auto-approve']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(await writesTo('/portals/self/collaborations/c0ffee/inviteParticipant')).toHaveLength(2);
    config = inviting;
    await expectStateMatchesPortal();
  });

  it('renews an expired token once (username and password) and repeats the request once', async () => {
    await portal.fault({ path: POLICY_PATH, error: { code: 498, message: 'Invalid token.' } });
    const apply = await portal.run(['apply', config, '--auto-approve'], { credentials: { username: 'admin', password: 'admin-password' } });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    const log = await portal.requests();
    expect(log.filter((entry) => entry.path === '/generateToken')).toHaveLength(2);
    expect((await writesTo(POLICY_PATH)).map((entry) => entry.response?.code ?? entry.response?.status)).toEqual([498, 200]);
    await expectStateMatchesPortal();
  });

  it('renews an OAuth client token the same way', async () => {
    await portal.fault({ path: '/content/items/*', method: 'POST', error: { code: 498, message: 'Invalid token.' } });
    const apply = await portal.run(['apply', config, '--auto-approve'], { credentials: { clientId: 'portalctl-ci', clientSecret: 'ci-secret' } });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect((await portal.requests()).filter((entry) => entry.path === '/oauth2/token')).toHaveLength(2);
    const statusWrites = (await portal.requests({ writesOnly: true })).filter((entry) => entry.path.endsWith('/setContentStatus'));
    expect(statusWrites).toHaveLength(2);
    await expectStateMatchesPortal();
  });

  it('fails clearly on an expired PORTALCTL_TOKEN, which cannot be renewed', async () => {
    const apply = await portal.run(['apply', config, '--auto-approve'], { credentials: { token: 'expired-token' } });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('PORTALCTL_TOKEN');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
  });
});
