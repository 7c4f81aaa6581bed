import { NotOnPortalError } from '../../src/kinds/toolkit/contract.js';
/**
 * E7 end to end against the emulator. Sample tasks: jsmith a1b2c3 (disabled), d4e5f6 (enabled);
 * mlopez 9f8e7d (disabled).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import type { LiveReader } from '../../src/core/request.js';
import { userTask } from '../../src/kinds/user-task.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyConfigText, desired, expectNothingToSend, expectPlanRefused, HEADER_WITHOUT_VERSION, planned, sampleOrg } from './settings-support.js';

const CHANGING = `${HEADER}users:
  - username: jsmith
    tasks: [{ id: a1b2c3, enabled: true }, { id: d4e5f6, enabled: true }]
  - username: mlopez
    tasks: [{ id: 9f8e7d, enabled: true }]
`;

describe('user.task (E7) against the emulator', () => {
  const portal = portalPerTest();

  it('plans an enable for each disabled task, reading each user\'s tasks once', async () => {
    const config = await portal.config(CHANGING);
    await portal.clearRequests();
    const prepared = await portal.plan(config);
    expect(planned(prepared)).toEqual([
      { address: 'user[jsmith].task[a1b2c3]', action: 'update', operation: 'E7', before: { active: false }, after: { active: true } },
      { address: 'user[mlopez].task[9f8e7d]', action: 'update', operation: 'E7', before: { active: false }, after: { active: true } },
    ]);
    expect(prepared.plan.operations.map((op) => op.request)).toEqual([
      { method: 'POST', path: '/community/users/jsmith/tasks/a1b2c3/enable', form: {}, response: 'json', idempotent: true },
      { method: 'POST', path: '/community/users/mlopez/tasks/9f8e7d/enable', form: {}, response: 'json', idempotent: true },
    ]);
    const reads = (await portal.requests()).filter((entry) => entry.path.includes('/tasks')).map((entry) => entry.path);
    expect(reads.sort()).toEqual(['/community/users/jsmith/tasks', '/community/users/mlopez/tasks']);
  });

  it('sends exactly the planned writes, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { method: 'POST', path: '/community/users/jsmith/tasks/a1b2c3/enable', params: {}, rawBody: 'f=json' },
      { method: 'POST', path: '/community/users/mlopez/tasks/9f8e7d/enable', params: {}, rawBody: 'f=json' },
    ]);
    const users = (await portal.state()).users;
    const active = users.flatMap((user) => user.tasks.map((task) => [`${user.username}/${task.id}`, task.active] as const));
    expect(Object.fromEntries(active)).toMatchObject({ 'jsmith/a1b2c3': true, 'jsmith/d4e5f6': true, 'mlopez/9f8e7d': true });

    await expectNothingToSend(portal, config);
  });

  it('plans nothing and sends nothing when the declared tasks are already enabled', async () => {
    const config = await portal.config(`${HEADER}users:\n  - username: jsmith\n    tasks: [{ id: d4e5f6, enabled: true }]\n`);
    await expectNothingToSend(portal, config);
  });

  it("refuses the plan when the live portal's version is older than 10.8.1", async () => {
    await portal.restart({ data: sampleOrg((state) => void (state.organization.version = '10.8')) });
    const config = await portal.config(`${HEADER_WITHOUT_VERSION}users:\n  - username: jsmith\n    tasks: [{ id: a1b2c3, enabled: true }]\n`);
    const error = await expectPlanRefused(portal, config, 'version/enable-task', 'user[jsmith].task[a1b2c3]');
    expect(error.message).toMatch(/10\.8\.1/);
  });
});

describe('user.task (E7) request and comparison', () => {
  const task = (username: string, taskId: string) =>
    desired({ kind: 'user.task', address: `user[${username}].task[${taskId}]`, ids: { username, taskId }, value: { active: true } });

  it('enables the task with no parameter but f', () => {
    expect(userTask.change(task('j smith', 't/1'), { active: false })).toEqual({
      action: 'update',
      before: { active: false },
      after: { active: true },
      request: { method: 'POST', path: '/community/users/j%20smith/tasks/t%2F1/enable', form: {}, response: 'json', idempotent: true },
    });
  });

  it('reads `active`, or `taskState` when the portal gives only that; a missing task is not on the portal', async () => {
    const tasks: JsonObject[] = [{ id: 'a', active: true }, { id: 'b', taskState: 'active' }, { id: 'c', taskState: 'paused' }];
    const reader: LiveReader = { get: async () => undefined, list: async () => tasks };
    expect(await userTask.read(task('u', 'a'), reader)).toEqual({ active: true });
    expect(await userTask.read(task('u', 'b'), reader)).toEqual({ active: true });
    expect(await userTask.read(task('u', 'c'), reader)).toEqual({ active: false });
    await expect(userTask.read(task('u', 'x'), reader)).rejects.toThrow(new NotOnPortalError('task x of user u'));
    expect(userTask.inSync(task('u', 'a'), { active: true })).toBe(true);
    expect(userTask.inSync(task('u', 'a'), null)).toBe(false);
  });

  it("a task list refused with code 400 and no messageCode means the user is missing only when the user's own read says so", async () => {
    const refusal = (path: string, messageCode?: string): ApiError =>
      new ApiError({ method: 'GET', path, code: 400, ...(messageCode ? { messageCode } : {}), apiMessage: 'refused', enveloped: true });
    const reads: string[] = [];
    const reader = (users: Record<string, JsonObject | undefined>, listError: (path: string) => ApiError): LiveReader => ({
      get: async (path) => {
        reads.push(path);
        return users[path];
      },
      list: async (path) => {
        throw listError(path);
      },
    });
    // No user: the list's refusal is the user's absence, said as that.
    const noUser = reader({}, (path) => refusal(path));
    await expect(userTask.read(task('ghost', 'a1'), noUser)).rejects.toThrow(new NotOnPortalError('user ghost', { container: 'user', address: 'user[ghost]' }));
    expect(reads).toEqual(['/community/users/ghost']);
    // The user is there: the refusal ("Invalid URL" before 10.8.1, a bad request) stays the API error it is.
    const known = reader({ '/community/users/jsmith': { username: 'jsmith' } }, (path) => refusal(path));
    await expect(userTask.read(task('jsmith', 'a1'), known)).rejects.toThrow('GET /community/users/jsmith/tasks failed: refused (code 400)');
    // A refusal with a messageCode says what it is: the user is not asked after.
    reads.length = 0;
    const coded = reader({}, (path) => refusal(path, 'ORG_1084'));
    await expect(userTask.read(task('ghost', 'a1'), coded)).rejects.toThrow('GET /community/users/ghost/tasks failed: refused (code 400, ORG_1084)');
    expect(reads).toEqual([]);
  });
});
