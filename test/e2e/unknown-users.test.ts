/**
 * A user the portal does not have, through the real CLI: the portal answers its read with code 400
 * and no messageCode (no code is documented for it), and `plan` names it at its place with every
 * other unknown id, as for an unknown item or role. A 400 that means something else stays the API
 * error it is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { sampleOrg } from '../kinds/settings-support.js';
import { CONFIG_HEADER, NOT_FOUND_EXPECTED, startCliPortal, type CliErrorDocument, type CliPortal } from '../support/cli.js';


/** The sample organization at 10.6.1, where user levels (E4) can be set. */
const playing10_6_1 = (): EmulatorState => sampleOrg((state) => void (state.organization.version = '10.6.1'));
const HEADER_10_6_1 = CONFIG_HEADER.replace('"11.3"', '"10.6.1"');


describe('a user the portal does not have', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it("a user's tasks: the user named once at its entry, with the other unknown ids at their places, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}items:\n  - { id: deadbeefdeadbeefdeadbeefdeadbeef, status: deprecated }\nusers:\n  - username: nosuchuser\n    tasks:\n      - { id: a1b2c3, enabled: true }\n      - { id: d4e5f6, enabled: true }\n  - username: jsmith\n    tasks:\n      - { id: zzzzzz, enabled: true }\nroles:\n  - { id: nope42, description: Unknown role }\n`,
      'unknown-user',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'unknown-user/portalctl.yaml:9:3: error: user nosuchuser does not exist on the portal, or this account cannot see it. [user[nosuchuser]] (portal/not-found)',
          '  9 |   - username: nosuchuser',
          '    |   ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      expect(result.stderr).toContain('unknown-user/portalctl.yaml:7:53: error: item deadbeefdeadbeefdeadbeefdeadbeef does not exist on the portal, or this account cannot see it.');
      // Said once for its two tasks, at neither of them.
      expect(result.stderr.split('user nosuchuser does not exist')).toHaveLength(2);
      expect(result.stderr).not.toContain('[user[nosuchuser].task[');
      expect(result.stderr).toContain('unknown-user/portalctl.yaml:15:7: error: task zzzzzz of user jsmith does not exist on the portal, or this account cannot see it.');
      expect(result.stderr).toContain('unknown-user/portalctl.yaml:17:3: error: role[nope42] does not exist on the portal, or this account cannot see it.');
      // Not the portal's own (localised) words, and not one request's failure.
      expect(result.stderr).not.toContain('User does not exist or is inaccessible');
      expect(result.stderr).not.toContain('failed:');
      expect(result.stderr).toContain('Error: invalid configuration (4 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    // The refused task list is asked for once per run (plan, apply), not once per task.
    const taskLists = (await portal.requests()).filter((request) => request.path === '/community/users/nosuchuser/tasks');
    expect(taskLists).toHaveLength(2);

    const json = await portal.run(['plan', config, '--format', 'json']);
    expect(json.code).toBe(1);
    const answer = JSON.parse(json.stdout) as CliErrorDocument;
    expect(answer.exitCode).toBe(1);
    expect(answer.diagnostics.find((diagnostic) => diagnostic.address === 'user[nosuchuser]')).toMatchObject({
      code: 'portal/not-found',
      message: 'user nosuchuser does not exist on the portal, or this account cannot see it.',
      location: { file: 'unknown-user/portalctl.yaml', line: 9, column: 3 },
    });
    expect(answer.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(Array(4).fill('portal/not-found'));
  });

  it("a user's level (10.6.1): the user named at its entry beside a known user's level, exit 1, nothing written", async () => {
    portal = await startCliPortal({ data: playing10_6_1() });
    const config = await portal.writeConfig(`${HEADER_10_6_1}users:\n  - { username: mlopez, level: 1 }\n  - { username: ghost, level: 2 }\n`, 'unknown-level');
    await portal.clearRequests();
    for (const args of [['plan', config, '--detailed-exitcode'], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'unknown-level/portalctl.yaml:8:3: error: user ghost does not exist on the portal, or this account cannot see it. [user[ghost]] (portal/not-found)',
          '  8 |   - { username: ghost, level: 2 }',
          '    |   ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      expect(result.stderr).not.toContain('mlopez');
      expect(result.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a 400 on a user\'s read that is not "no such user" stays the API error it is', async () => {
    portal = await startCliPortal({ data: playing10_6_1() });
    const levels = await portal.writeConfig(`${HEADER_10_6_1}users:\n  - { username: ghost, level: 2 }\n`, 'levels');
    await portal.clearRequests();

    // A messageCode names another refusal (made up here: none is documented for a user's read).
    await portal.fault({ path: '/community/users/ghost', method: 'GET', error: { code: 400, messageCode: 'TEST_0400', message: 'Unable to read the user.' }, count: 0 });
    const coded = await portal.run(['plan', levels]);
    expect(coded.code).toBe(1);
    expect(coded.stderr).toContain('GET /community/users/ghost failed: Unable to read the user. (code 400, TEST_0400)');
    expect(coded.stderr).not.toContain('does not exist on the portal');
    await portal.clearFaults();

    // A bare HTTP 400 (a proxy's page, no envelope) is not the portal saying anything about the user.
    await portal.fault({ path: '/community/users/ghost', method: 'GET', status: 400, body: '<html><body>Bad Request</body></html>', count: 0 });
    const bare = await portal.run(['plan', levels]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('GET /community/users/ghost failed: HTTP 400 Bad Request: Bad Request (code 400)');
    expect(bare.stderr).not.toContain('does not exist on the portal');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it("a known user's task list refused with code 400 and no messageCode stays the API error it is", async () => {
    portal = await startCliPortal();
    // A known user's task list refused with code 400 and no messageCode ("Invalid URL", as a release
    // without tasks answers): the user's own read finds the user, so the list's refusal is said as it is.
    const tasks = await portal.writeConfig(`${CONFIG_HEADER}users:\n  - username: jsmith\n    tasks:\n      - { id: a1b2c3, enabled: true }\n`, 'tasks');
    await portal.fault({ path: '/community/users/jsmith/tasks', method: 'GET', error: { code: 400, message: 'Invalid URL' }, count: 0 });
    const refused = await portal.run(['plan', tasks]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('GET /community/users/jsmith/tasks failed: Invalid URL (code 400)');
    expect(refused.stderr).not.toContain('does not exist on the portal');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('drift after the user was removed on the portal: said at the user entry, exit 1, the recorded state kept', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}users:\n  - username: mlopez\n    tasks:\n      - { id: 9f8e7d, enabled: true }\n`, 'removed-user');
    const applied = await portal.run(['apply', config, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const recorded = await portal.recorded();
    expect(recorded?.resources['user[mlopez].task[9f8e7d]']).toBeDefined();

    const state = await portal.state();
    await portal.replaceState({ ...state, users: state.users.filter((user) => user.username !== 'mlopez') });
    await portal.clearRequests();
    const drift = await portal.run(['drift', config]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain(
      [
        'removed-user/portalctl.yaml:7:3: error: user mlopez does not exist on the portal, or this account cannot see it. [user[mlopez]] (portal/not-found)',
        '  7 |   - username: mlopez',
        '    |   ^',
        `  ${NOT_FOUND_EXPECTED}`,
      ].join('\n'),
    );
    expect(drift.stdout).toBe('');
    // drift reads only: nothing written to the portal, and the record of the task stays as it was.
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect(await portal.recorded()).toEqual(recorded);
  });
});
