import { NotOnPortalError } from '../../src/kinds/toolkit/contract.js';
/**
 * E4 end to end against the emulator. User levels exist only on self-managed 10.6.1 or earlier,
 * so these tests run the sample organization at 10.6.1: mlopez (custom role, level 2, owns
 * nothing), viewer1 (custom role, level 1), publisher1 (built-in role, level 2).
 */
import { describe, expect, it } from 'vitest';
import { userLevel } from '../../src/kinds/user-level.js';
import { portalPerTest, startTestPortal } from '../support/portal.js';
import { applyAndConverge, applyConfigText, desired, expectNothingToSend, expectPlanRefused, HEADER_WITHOUT_VERSION, planned, sampleOrg, writes } from './settings-support.js';

const HEADER_10_6_1 = `${HEADER_WITHOUT_VERSION}  version: "10.6.1"\n`;
const CHANGING = `${HEADER_10_6_1}users:
  - { username: mlopez, level: 1 }
  - { username: viewer1, level: 2 }
  - { username: publisher1, level: 2 }
`;

describe('user.level (E4) against the emulator at 10.6.1', () => {
  const portal = portalPerTest({ data: sampleOrg((state) => void (state.organization.version = '10.6.1')) });

  it('plans an update for each user whose level differs', async () => {
    const prepared = await portal.plan(await portal.config(CHANGING));
    expect(planned(prepared)).toEqual([
      { address: 'user[mlopez].level', action: 'update', operation: 'E4', before: 2, after: 1 },
      { address: 'user[viewer1].level', action: 'update', operation: 'E4', before: 1, after: 2 },
    ]);
    expect(prepared.plan.operations.map((op) => op.request)).toEqual([
      { method: 'POST', path: '/portals/self/updateUserLevel', form: { user: 'mlopez', level: '1' }, response: 'json', idempotent: true },
      { method: 'POST', path: '/portals/self/updateUserLevel', form: { user: 'viewer1', level: '2' }, response: 'json', idempotent: true },
    ]);
  });

  it('sends exactly the planned writes, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent.sort((a, b) => a.rawBody.localeCompare(b.rawBody))).toEqual([
      { method: 'POST', path: '/portals/self/updateUserLevel', params: { user: 'mlopez', level: '1' }, rawBody: 'user=mlopez&level=1&f=json' },
      { method: 'POST', path: '/portals/self/updateUserLevel', params: { user: 'viewer1', level: '2' }, rawBody: 'user=viewer1&level=2&f=json' },
    ]);
    const users = (await portal.state()).users;
    expect(Object.fromEntries(users.map((user) => [user.username, user.level]))).toMatchObject({ mlopez: 1, viewer1: 2, publisher1: 2 });

    await expectNothingToSend(portal, config);
  });

  it('plans nothing and sends nothing when the levels already match', async () => {
    const config = await portal.config(`${HEADER_10_6_1}users:\n  - { username: jsmith, level: 2 }\n  - { username: viewer1, level: 1 }\n`);
    await expectNothingToSend(portal, config);
  });

  it('leaves users without a declared level alone', async () => {
    const config = await portal.config(`${HEADER_10_6_1}users:\n  - { username: mlopez }\n  - { username: viewer1, level: 2 }\n`);
    await portal.clearRequests();
    await applyAndConverge(portal, config);
    expect((await writes(portal)).map((write) => write.params)).toEqual([{ user: 'viewer1', level: '2' }]);
  });
});

describe('user.level (E4) version gate', () => {
  it("refuses the plan when the live portal is newer than 10.6.1 (the sample is 11.3)", async () => {
    const portal = await startTestPortal();
    try {
      const config = await portal.config(`${HEADER_WITHOUT_VERSION}users:\n  - { username: mlopez, level: 1 }\n`);
      const error = await expectPlanRefused(portal, config, 'user-level/unavailable', 'user[mlopez].level');
      expect(error.message).toMatch(/11\.3/);
    } finally {
      await portal.close();
    }
  });
});

describe('user.level (E4) request and comparison', () => {
  const level = (username: string, value: number) =>
    desired({ kind: 'user.level', address: `user[${username}].level`, ids: { username }, value });

  it('names the user in the `user` field and sends the level as decimal text', () => {
    expect(userLevel.change(level('a.b@example', 1), 2)).toEqual({
      action: 'update',
      before: 2,
      after: 1,
      request: {
        method: 'POST',
        path: '/portals/self/updateUserLevel',
        form: { user: 'a.b@example', level: '1' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('compares numbers (the read turns the portal\'s "1"/"2" into numbers)', () => {
    expect(userLevel.inSync(level('u', 2), 2)).toBe(true);
    expect(userLevel.inSync(level('u', 2), 1)).toBe(false);
    expect(userLevel.inSync(level('u', 2), null)).toBe(false);
  });

  it('reads the string level of the user as a number; a missing user is not on the portal', async () => {
    const reader = {
      get: async (path: string) => (path === '/community/users/u%201' ? { username: 'u 1', level: '1' } : undefined),
      list: async () => undefined,
    };
    expect(await userLevel.read(level('u 1', 2), reader)).toBe(1);
    await expect(userLevel.read(level('nobody', 2), reader)).rejects.toThrow(new NotOnPortalError('user nobody', { container: 'user', address: 'user[nobody]' }));
  });
});
