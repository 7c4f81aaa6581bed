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
import { appMay, forbidden, requireDefaultAdmin } from './auth.js';
import { findBy, listIndex } from '../store.js';
import { effectivePrivileges } from '../auth.js';
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
  const user = findBy(state.users, 'username', username);
  if (!user) throw userNotFound(username);
  return user;
}

/** The built-in role a user is reported with, and the custom role's id (or the built-in name) as roleId. */
export function reportedRole(state: EmulatorState, user: User): { role: string; roleId: string } {
  if (BUILT_IN_ROLE_IDS.includes(user.role)) return { role: user.role, roleId: user.role };
  const privileges = findBy(state.roles, 'id', user.role)?.privileges ?? [];
  const role = privileges.some((privilege) => privilege.startsWith('portal:admin:'))
    ? 'org_admin'
    : privileges.some((privilege) => privilege.startsWith('portal:publisher:'))
      ? 'org_publisher'
      : 'org_user';
  return { role, roleId: user.role };
}

/** A stable 32-hex id for a name (users have no id in the data file). */
export function idFor(name: string): string {
  let hash = 0x811c9dc5;
  let out = '';
  for (let round = 0; round < 4; round += 1) {
    for (const char of `${round}:${name}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    out += hash.toString(16).padStart(8, '0');
  }
  return out;
}

/** The fields `portals/self` `user` shares with the full user profile. */
export function userSummary(state: EmulatorState, user: User): Record<string, unknown> {
  return {
    username: user.username,
    id: idFor(user.username),
    fullName: user.fullName,
    email: `${user.username}@${state.organization.hostname}`,
    orgId: state.organization.id,
    ...reportedRole(state, user),
    privileges: effectivePrivileges(state, user),
    level: String(user.level),
    userLicenseTypeId: user.level === 1 ? 'viewerUT' : 'creatorUT',
    userType: 'both',
    disabled: false,
    access: 'org',
    created: 0,
    modified: 0,
    provider: 'arcgis',
  };
}

/** Groups a user belongs to (owner, manager or member), from an index over the committed groups. */
function groupsOf(state: EmulatorState, username: string): Record<string, unknown>[] {
  const { index } = listIndex(state.groups, 'members', (committed) => {
    const byUser = new Map<string, number[]>();
    committed.forEach((element, position) => {
      const group = element as EmulatorState['groups'][number];
      for (const name of new Set([group.owner, ...group.managers, ...group.members])) {
        byUser.set(name, [...(byUser.get(name) ?? []), position]);
      }
    });
    return byUser;
  });
  return (index.get(username) ?? []).flatMap((position) => {
    const group = state.groups[position];
    if (!group) return [];
    const memberType = group.owner === username ? 'owner' : group.managers.includes(username) ? 'admin' : 'member';
    return [{ id: group.id, title: group.title, owner: group.owner, access: group.access, userMembership: { username, memberType, applications: 0 } }];
  });
}

/**
 * community/users/{u}: the full profile for the user themself and administrators; others see
 * the public profile only (documented).
 */
function userView(state: EmulatorState, user: User, caller?: Caller): Record<string, unknown> {
  const [firstName = user.fullName, ...rest] = user.fullName.split(' ');
  const publicProfile = {
    username: user.username,
    fullName: user.fullName,
    description: '',
    tags: [...user.tags],
    culture: 'en',
    region: 'US',
    units: 'metric',
    thumbnail: 'profile.png',
    created: 0,
    modified: 0,
    provider: 'arcgis',
  };
  const full = caller === undefined || caller.isDefaultAdmin || caller.user.username === user.username || caller.hasPrivilege('portal:admin:viewUsers');
  if (!full) return publicProfile;
  const summary = userSummary(state, user);
  return {
    ...publicProfile,
    ...summary,
    availableCredits: 0,
    assignedCredits: 0,
    firstName,
    lastName: rest.join(' '),
    preferredView: 'Web',
    idpUsername: null,
    favGroupId: idFor(`favorites:${user.username}`),
    lastLogin: -1,
    mfaEnabled: false,
    storageUsage: 0,
    storageQuota: 2147483648,
    groups: groupsOf(state, user.username),
  };
}

/** Task fields per the documented list element (community/users/{u}/tasks). */
const taskView = (user: User, task: Task): Record<string, unknown> => ({
  id: task.id,
  itemId: task.itemId,
  type: task.type,
  title: task.title,
  userId: user.username,
  cronSchedule: { minute: '0', hour: '*', dayOfMonth: '*', month: '*', dayOfWeek: '?' },
  runIntervalSeconds: 3600,
  lastStart: -1,
  maxOccurrences: -1,
  parameters: { updatePortalItem: false, saveInjectedParameters: false, notebookParameters: '{}' },
  created: 0,
  updated: 0,
  startDate: 0,
  active: task.active,
  taskState: task.active ? 'active' : 'completed',
});

/** How many more active tasks a user may have (the documented `activeTasksAvailable`). */
const MAX_ACTIVE_TASKS = 20;

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
  const allowed = caller.app ? appMay(caller, operation) : caller.isDefaultAdmin || caller.user.username === username;
  if (!allowed) {
    throw forbidden(`${operation} is reserved to default administrators and the user '${username}'.`);
  }
  return findUser(state, username);
}

function findTask(user: User, taskId: string): Task {
  const task = user.tasks.find((candidate) => candidate.id === taskId);
  if (!task) throw notFound();
  return task;
}

/** Everyone who owns an element of `list` (an index over the committed list). */
function owners(list: readonly { owner: string }[]): Set<string> {
  return listIndex(list, 'owners', (committed) => new Set(committed.map((element) => (element as { owner: string }).owner))).index;
}

function changeLevel(state: EmulatorState, user: User, level: 1 | 2): void {
  if (user.level === level) return;
  if (level === 1) {
    if (BUILT_IN_ROLE_IDS.includes(user.role)) {
      throw badRequest("Unable to change the user's level; level 1 is for users with a custom role only.", 'EMU_0302', [
        `'${user.username}' has the built-in role ${user.role}; give them a custom role first.`,
      ]);
    }
    const ownsItems = owners(state.items).has(user.username);
    const ownsGroups = owners(state.groups).has(user.username);
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
    handle({ state, pathParams, caller }) {
      return json(userView(state, findUser(state, pathParams.username ?? ''), caller));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/users',
    handle({ state, params }) {
      return json(page(params, state.users, 'users', (user) => userView(state, user)));
    },
  },
  {
    access: 'read',
    pattern: '/community/users/:username/tasks',
    handle({ state, params, pathParams, caller }) {
      const user = taskOwner(state, caller, pathParams.username ?? '', 'tasks');
      const listed = page(params, user.tasks, 'tasks', (task) => taskView(user, task));
      const active = user.tasks.filter((task) => task.active).length;
      const { tasks, ...envelope } = listed;
      return json({ ...envelope, activeTasksAvailable: Math.max(0, MAX_ACTIVE_TASKS - active), tasks });
    },
  },
  {
    access: 'read',
    pattern: '/community/users/:username/tasks/:taskId',
    handle({ state, pathParams, caller }) {
      const user = taskOwner(state, caller, pathParams.username ?? '', 'tasks');
      return json(taskView(user, findTask(user, pathParams.taskId ?? '')));
    },
  },
];
