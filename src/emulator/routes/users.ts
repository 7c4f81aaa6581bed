/**
 * Users: E4 (update user level), E7 (enable task) and the user and task reads.
 *
 * | code      | status | condition                                                               |
 * |-----------|--------|-------------------------------------------------------------------------|
 * | EMU_0006  | 400    | E4 on the hosted edition or after self-managed 10.6.1; E7 and task reads before 10.8.1 |
 * | GWM_0003  | 403    | E4 by a non default administrator; E7 / task reads by someone who is neither a default administrator nor the user |
 * | EMU_0001  | 400    | E4 without `user` (or `userName`) or `level`                            |
 * | EMU_0005  | 400    | E4 level other than 1 or 2                                              |
 * | EMU_0301  | 400    | the user does not exist                                                 |
 * | EMU_0302  | 400    | E4 level 1 for a user with a built-in role                              |
 * | ORG_1084  | 400    | E4 level 1 for a user who owns items or groups                          |
 * | EMU_0303  | 400    | E4 the user holds a licence whose app is not allowed at the target level |
 * | EMU_0304  | 400    | E4 no seat left at the target level (organization.quotas)               |
 * | 404 (none)| 404    | E7 / task read: the user has no task with that id                       |
 *
 * E4 to the user's current level succeeds without touching quotas. E7 and the task reads are
 * reserved to default administrators and the user themself (the spec states no rule).
 *
 * Reads: GET /community/users/:username and GET /portals/:portalId/users (paged `users`) give
 * {username, fullName, role, roleId, level ("1"|"2")}. `role` is the built-in role; for a custom
 * role it is org_admin when the role holds an admin privilege (portal:admin:*), org_publisher when
 * it holds a publisher privilege (portal:publisher:*), org_user otherwise; `roleId` is the custom
 * role's id, or the built-in role's name. GET /community/users/:username/tasks (paged `tasks`)
 * and GET /community/users/:username/tasks/:taskId give {id, title, active, taskState}.
 */
import { notFound, PortalApiError } from '../errors.js';
import type { EmulatorState, Task, User } from '../model.js';
import { forbidden, requireDefaultAdmin } from './auth.js';
import { page } from './paging.js';
import { badRequest, checkEnum, json, optionalParam, requireParam, success } from './params.js';
import type { Caller, Route } from './types.js';
import { compareVersions, requireVersion } from './versions.js';

export const BUILT_IN_ROLE_IDS: readonly string[] = ['org_admin', 'org_publisher', 'org_user'];
const LAST_VERSION_WITH_USER_LEVELS = '10.6.1';
const TASKS_INTRODUCED_IN = '10.8.1';

export function userNotFound(username: string): PortalApiError {
  return new PortalApiError(400, 'User does not exist or is inaccessible.', 'EMU_0301', [`No user named '${username}'.`]);
}

export function findUser(state: EmulatorState, username: string): User {
  const user = state.users.find((candidate) => candidate.username === username);
  if (!user) throw userNotFound(username);
  return user;
}

function userView(state: EmulatorState, user: User): Record<string, unknown> {
  let role = user.role;
  if (!BUILT_IN_ROLE_IDS.includes(user.role)) {
    const privileges = state.roles.find((candidate) => candidate.id === user.role)?.privileges ?? [];
    if (privileges.some((privilege) => privilege.startsWith('portal:admin:'))) role = 'org_admin';
    else if (privileges.some((privilege) => privilege.startsWith('portal:publisher:'))) role = 'org_publisher';
    else role = 'org_user';
  }
  return { username: user.username, fullName: user.fullName, role, roleId: user.role, level: String(user.level) };
}

const taskView = (task: Task): Record<string, unknown> => ({
  id: task.id,
  title: task.title,
  active: task.active,
  taskState: task.active ? 'enabled' : 'disabled',
});

function requireUserLevelsAvailable(state: EmulatorState): void {
  const { edition, version } = state.organization;
  if (edition !== 'self-managed' || compareVersions(version, LAST_VERSION_WITH_USER_LEVELS) > 0) {
    throw badRequest('Invalid URL: updateUserLevel is not available on this portal.', 'EMU_0006', [
      `updateUserLevel exists only on the self-managed edition at version ${LAST_VERSION_WITH_USER_LEVELS} or earlier ` +
        `(user levels were replaced by user types); this portal is ${edition} ${version}.`,
    ]);
  }
}

/** Tasks of a user: reserved to default administrators and the user themself. */
function taskOwner(state: EmulatorState, caller: Caller, username: string, operation: string): User {
  requireVersion(state.organization, operation, TASKS_INTRODUCED_IN);
  if (!caller.isDefaultAdmin && caller.user.username !== username) {
    throw forbidden(`${operation} is reserved to default administrators and the user '${username}'.`);
  }
  return findUser(state, username);
}

function findTask(user: User, taskId: string): Task {
  const task = user.tasks.find((candidate) => candidate.id === taskId);
  if (!task) throw notFound();
  return task;
}

function changeLevel(state: EmulatorState, user: User, level: 1 | 2): void {
  if (user.level === level) return;
  if (level === 1) {
    if (BUILT_IN_ROLE_IDS.includes(user.role)) {
      throw badRequest("Unable to change the user's level; level 1 is for users with a custom role only.", 'EMU_0302', [
        `'${user.username}' has the built-in role ${user.role}; give them a custom role first.`,
      ]);
    }
    const ownsItems = state.items.some((item) => item.owner === user.username);
    const ownsGroups = state.groups.some((group) => group.owner === user.username);
    if (ownsItems || ownsGroups) {
      throw new PortalApiError(400, "Unable to change the user's level. User must not own items or groups.", 'ORG_1084');
    }
  }
  const disallowed = user.licences.filter((licence) => licence.minLevel > level);
  if (disallowed.length > 0) {
    throw badRequest(`Unable to change the user's level; licences not allowed at level ${level}.`, 'EMU_0303', [
      `'${user.username}' holds licences for ${disallowed.map((licence) => licence.app).join(', ')}, which need a higher level.`,
    ]);
  }
  const quotas = state.organization.quotas;
  const target = level === 1 ? 'level1' : 'level2';
  const left = level === 1 ? 'level2' : 'level1';
  const remaining = quotas[target];
  if (remaining !== undefined && remaining <= 0) {
    throw badRequest(`Unable to change the user's level; no level ${level} seat is left.`, 'EMU_0304', [
      `The organization's level ${level} quota is exhausted.`,
    ]);
  }
  if (remaining !== undefined) quotas[target] = remaining - 1;
  const freed = quotas[left];
  if (freed !== undefined) quotas[left] = freed + 1;
  user.level = level;
}

export const userRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/updateUserLevel',
    handle({ state, params, caller }) {
      requireUserLevelsAvailable(state);
      requireDefaultAdmin(caller, 'updateUserLevel');
      const username = optionalParam(params, 'user') ?? optionalParam(params, 'userName');
      if (username === undefined || username.trim() === '') requireParam(params, 'user');
      const level = checkEnum('level', requireParam(params, 'level').trim(), ['1', '2'] as const);
      changeLevel(state, findUser(state, username ?? ''), level === '1' ? 1 : 2);
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/community/users/:username/tasks/:taskId/enable',
    handle({ state, pathParams, caller }) {
      const user = taskOwner(state, caller, pathParams.username ?? '', 'tasks/enable');
      const task = findTask(user, pathParams.taskId ?? '');
      task.active = true;
      return success({ taskId: task.id });
    },
  },
  {
    access: 'read',
    pattern: '/community/users/:username',
    handle({ state, pathParams }) {
      return json(userView(state, findUser(state, pathParams.username ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/users',
    handle({ state, params }) {
      return json(page(params, state.users.map((user) => userView(state, user)), 'users'));
    },
  },
  {
    access: 'read',
    pattern: '/community/users/:username/tasks',
    handle({ state, params, pathParams, caller }) {
      const user = taskOwner(state, caller, pathParams.username ?? '', 'tasks');
      return json(page(params, user.tasks.map(taskView), 'tasks'));
    },
  },
  {
    access: 'read',
    pattern: '/community/users/:username/tasks/:taskId',
    handle({ state, pathParams, caller }) {
      const user = taskOwner(state, caller, pathParams.username ?? '', 'tasks');
      return json(taskView(findTask(user, pathParams.taskId ?? '')));
    },
  },
];
