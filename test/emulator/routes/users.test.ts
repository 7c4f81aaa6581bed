import { describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../../src/emulator/state/model.js';
import { body, call, expectApiError, sampleState } from './helpers.js';

const UPDATE_LEVEL = '/portals/:portalId/updateUserLevel';
const ENABLE = '/community/users/:username/tasks/:taskId/enable';

function levelState(): EmulatorState {
  const state = sampleState();
  state.organization.version = '10.6.1';
  return state;
}

describe('E4 updateUserLevel', () => {
  it('moves mlopez (custom role, owns nothing) to level 1 and adjusts both quotas', () => {
    const state = levelState();
    expect(body(call(state, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }))).toEqual({ success: true });
    expect(state.organization.quotas).toEqual({ level1: 24, level2: 101 });
    expect(body(call(state, '/community/users/:username', { pathParams: { username: 'mlopez' } }))).toMatchObject({ level: '1' });
    expect(body(call(state, UPDATE_LEVEL, { params: { userName: 'mlopez', level: '2' } }))).toEqual({ success: true });
    expect(state.organization.quotas).toEqual({ level1: 25, level2: 100 });
  });

  it('treats absent quotas as unlimited and rejects an exhausted one', () => {
    const unlimited = levelState();
    unlimited.organization.quotas = {};
    call(unlimited, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } });
    expect(unlimited.organization.quotas).toEqual({});
    const full = levelState();
    full.organization.quotas.level1 = 0;
    expectApiError(() => call(full, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }), { code: 400, says: /seat/ });
    full.organization.quotas.level1 = 1;
    expect(body(call(full, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }))).toEqual({ success: true });
    expect(full.organization.quotas.level1).toBe(0);
  });

  it('refuses level 1 for built-in roles, owners of items or groups (ORG_1084) and level-2 licences', () => {
    const state = levelState();
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'publisher1', level: '1' } }), { code: 400, says: /custom role only/ });
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'jsmith', level: '1' } }), { code: 400, messageCode: 'ORG_1084' });
    const groupOwner = levelState();
    groupOwner.groups[0]!.owner = 'mlopez';
    expectApiError(() => call(groupOwner, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }), { code: 400, messageCode: 'ORG_1084' });
    const licensed = levelState();
    licensed.users[2]!.licences = [{ app: 'workforce', minLevel: 2 }];
    expectApiError(() => call(licensed, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }), {
      code: 400,
      says: /licences/,
      detail: 'workforce',
    });
  });

  it('validates parameters and the user', () => {
    const state = levelState();
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'mlopez', level: '3' } }), { code: 400, says: /must be one of/ });
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { level: '1' } }), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'mlopez' } }), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'ghost', level: '1' } }), { code: 400, says: /User does not exist/ });
  });

  it('is for default admins only', () => {
    expectApiError(() => call(levelState(), UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' }, as: 'steward' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
  });

  it('exists only on self-managed 10.6.1 or earlier (compared by parts, not as floats)', () => {
    for (const [edition, version] of [['self-managed', '10.7'], ['self-managed', '10.10'], ['self-managed', '11.3'], ['hosted', '10.5']] as const) {
      const state = sampleState();
      state.organization.edition = edition;
      state.organization.version = version;
      expectApiError(() => call(state, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }), { code: 400, says: /^Invalid URL/ });
    }
    const old = sampleState();
    old.organization.version = '10.4';
    expect(body(call(old, UPDATE_LEVEL, { params: { user: 'mlopez', level: '1' } }))).toEqual({ success: true });
  });
});

describe('E7 enable task and task reads', () => {
  it('enables a task (idempotently) and reads it back', () => {
    const state = sampleState();
    expect(body(call(state, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }))).toEqual({ success: true, taskId: 'a1b2c3' });
    expect(body(call(state, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }))).toEqual({ success: true, taskId: 'a1b2c3' });
    // Documented task fields: the owner is userId, the kind is type; taskState active/completed.
    expect(body(call(state, '/community/users/:username/tasks/:taskId', { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }))).toMatchObject({
      id: 'a1b2c3',
      title: 'Survey culverts',
      userId: 'jsmith',
      type: 'ExecuteNotebook',
      active: true,
      taskState: 'active',
    });
    const list = body(call(state, '/community/users/:username/tasks', { pathParams: { username: 'mlopez' }, as: 'mlopez' }));
    expect(list).toMatchObject({
      total: 1,
      start: 1,
      num: 10,
      nextStart: -1,
      activeTasksAvailable: 20,
      tasks: [{ id: '9f8e7d', title: 'Read onboarding guide', active: false, taskState: 'completed' }],
    });
  });

  it('lets the user enable their own task; others get GWM_0003', () => {
    const state = sampleState();
    expect(body(call(state, ENABLE, { pathParams: { username: 'mlopez', taskId: '9f8e7d' }, as: 'mlopez' }))).toMatchObject({ success: true });
    expectApiError(() => call(state, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' }, as: 'mlopez' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
  });

  it('answers code 400 without a messageCode for an unknown user and 404 for an unknown task', () => {
    expectApiError(() => call(sampleState(), ENABLE, { pathParams: { username: 'ghost', taskId: 'x' } }), { code: 400, says: /User does not exist/ });
    expectApiError(() => call(sampleState(), ENABLE, { pathParams: { username: 'jsmith', taskId: 'zzz' } }), { code: 404, messageCode: undefined });
  });

  it('exists from 10.8.1 on self-managed, always on hosted', () => {
    const old = sampleState();
    old.organization.version = '10.8';
    expectApiError(() => call(old, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }), { code: 400, says: /^Invalid URL/, detail: '10.8.1' });
    old.organization.version = '10.8.1';
    expect(body(call(old, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }))).toMatchObject({ success: true });
    const hosted = sampleState();
    hosted.organization.edition = 'hosted';
    hosted.organization.version = '2019.1';
    expect(body(call(hosted, ENABLE, { pathParams: { username: 'jsmith', taskId: 'a1b2c3' } }))).toMatchObject({ success: true });
  });
});

describe('user reads', () => {
  it('gives level as a string and the role/roleId pair', () => {
    const state = sampleState();
    const read = (username: string) => body(call(state, '/community/users/:username', { pathParams: { username } }));
    expect(read('jsmith')).toMatchObject({ username: 'jsmith', fullName: 'Jane Smith', role: 'org_user', roleId: 'r7HkQ2', level: '2' });
    expect(read('admin')).toMatchObject({ role: 'org_admin', roleId: 'org_admin' });
    expect(read('steward')).toMatchObject({ role: 'org_admin', roleId: 'cAt5Ad' });
    expect(read('viewer1')).toMatchObject({ level: '1' });
    expectApiError(() => read('ghost'), { code: 400, says: /User does not exist/ });
    const users = body(call(state, '/portals/:portalId/users', { params: { start: '5', num: '2' } }));
    expect(users).toMatchObject({ total: 6, start: 5, num: 2, nextStart: -1 });
    expect((users.users as { username: string }[]).map((user) => user.username)).toEqual(['steward', 'viewer1']);
  });
});
