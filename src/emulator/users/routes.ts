/**
 * Users: E4 (update user level), E7 (enable task) and the user and task reads.
 *
 * | code      | status | condition                                                               |
 * |-----------|--------|-------------------------------------------------------------------------|
 * | (none)    | 400    | "Invalid URL": E4 on the hosted edition or after self-managed 10.6.1; E7 and task reads before 10.8.1 |
 * | GWM_0003  | 403    | E4 by a non default administrator; E7 / task reads by someone who is neither a default administrator nor the user |
 * | (none)    | 400    | E4 without `user` (or `userName`) or `level`                            |
 * | (none)    | 400    | E4 level other than 1 or 2                                              |
 * | (none)    | 400    | the user does not exist                                                 |
 * | (none)    | 400    | E4 level 1 for a user with a built-in role                              |
 * | ORG_1084  | 400    | E4 level 1 for a user who owns items or groups                          |
 * | (none)    | 400    | E4 the user holds a licence whose app is not allowed at the target level |
 * | (none)    | 400    | E4 no seat left at the target level (organization.quotas)               |
 * | 404 (none)| 404    | E7 / task read: the user has no task with that id                       |
 *
 * E4 to the user's current level succeeds without touching quotas. E7 and the task reads are
 * reserved to default administrators and the user themself (the spec states no rule).
 *
 * Reads: GET /community/users/:username (the documented user: the full profile for the user
 * themself and administrators, the public profile otherwise) and GET /community/self (the
 * caller's own; how the vendor's JavaScript client signs in with a token). The documentation
 * says it is the authenticated user; an app token (client credentials) has none, and the emulator
 * refuses it with 403 GWM_0003 (its own choice: what a portal answers there is not documented).
 * GET /portals/:portalId/users (paged `users`, wire sample portals-self-users.json) and its
 * search form GET /portals/:portalId/users/search?q= (paged `results`, the same members;
 * @esri/arcgis-rest-portal `searchUsers`) are for default administrators and holders of
 * portal:admin:viewUsers (the sample's notes, from the users doc page), 403 GWM_0003 otherwise.
 * GET /community/users?q= (paged `results`, user search) is for any signed-in caller. The
 * searches take `q` in the documented query syntax over `userSearchFields` (store.ts; required,
 * 400 when absent) and `sortField` username|fullname|created|modified, `sortOrder` asc|desc.
 * POST /community/users/:username/update changes the profile (fullName, firstName, lastName,
 * tags; by the user or a holder of portal:admin:updateUsers) and answers {success, username}
 * (@esri/arcgis-rest-portal `updateUser`). In every user, `role` is the built-in role; for a custom
 * role it is org_admin when the role holds an admin privilege (portal:admin:*), org_publisher when
 * it holds a publisher privilege (portal:publisher:*), org_user otherwise; `roleId` is the custom
 * role's id, or the built-in role's name. GET /community/users/:username/tasks (paged `tasks`)
 * and GET /community/users/:username/tasks/:taskId give {id, title, active, taskState}.
 */
import { forbidden, requireDefaultAdmin } from '../shared/access.js';
import { page } from '../shared/paging.js';
import { badRequest, checkEnum, json, optionalParam, requireParam, success } from '../shared/params.js';
import { compileSearch, queryParam } from '../shared/search.js';
import type { Caller, Route } from '../shared/types.js';
import { requireUserLevelsAvailable, taskOwner, usersNeedQuery } from './rules.js';
import { MAX_ACTIVE_TASKS, changeLevel, findTask, findUser, memberView, taskView, updateProfile, userSearchFields, userView } from './store.js';

const VIEW_USERS_PRIVILEGE = 'portal:admin:viewUsers';
const UPDATE_USERS_PRIVILEGE = 'portal:admin:updateUsers';

/** The organization's member list and its search: administrators and holders of portal:admin:viewUsers (users doc page). */
function requireViewUsers(caller: Caller, operation: string): void {
  if (caller.isDefaultAdmin || caller.hasPrivilege(VIEW_USERS_PRIVILEGE)) return;
  throw forbidden(`${operation} lists the organization's members: it needs a default administrator or the privilege ${VIEW_USERS_PRIVILEGE}.`);
}

/** `sortField` of the user searches: username (the default), fullname, created, modified. */
function sortedUsers<T extends { username: string; fullName: string }>(users: T[], params: Readonly<Record<string, string>>): T[] {
  const field = checkEnum('sortField', (optionalParam(params, 'sortField') ?? 'username').toLowerCase(), ['username', 'fullname', 'created', 'modified'] as const);
  const order = checkEnum('sortOrder', (optionalParam(params, 'sortOrder') ?? 'asc').toLowerCase(), ['asc', 'desc'] as const);
  const key = (user: T): string => (field === 'fullname' ? user.fullName : user.username).toLowerCase();
  // created and modified are the same for every emulated user: the username keeps the order stable.
  const sorted = [...users].sort((a, b) => key(a).localeCompare(key(b)) || a.username.localeCompare(b.username));
  return order === 'desc' ? sorted.reverse() : sorted;
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
    access: 'write',
    pattern: '/community/users/:username/update',
    handle({ state, params, pathParams, caller }) {
      const username = pathParams.username ?? '';
      const self = !caller.app && caller.user.username === username;
      if (!self && !caller.isDefaultAdmin && !caller.hasPrivilege(UPDATE_USERS_PRIVILEGE)) {
        throw forbidden(`Only '${username}' or an administrator with ${UPDATE_USERS_PRIVILEGE} may update this profile.`);
      }
      const user = findUser(state, username);
      const { username: named, ...fields } = params;
      if (named !== undefined && named !== user.username) {
        throw badRequest(`The username '${named}' is not the user being updated.`, [`The path names '${user.username}'; a username cannot be changed.`]);
      }
      updateProfile(user, fields);
      return success({ username: user.username });
    },
  },
  {
    access: 'read',
    pattern: '/community/self',
    handle({ state, caller }) {
      if (caller.app) {
        throw forbidden(`An app token (client credentials of '${caller.app.clientId}') acts for no user: community/self has no user to answer with.`);
      }
      return json(userView(state, findUser(state, caller.user.username), caller));
    },
  },
  {
    access: 'read',
    pattern: '/community/users',
    handle({ state, params, caller }) {
      const q = queryParam(params, usersNeedQuery);
      const { matches } = compileSearch(q, userSearchFields(state));
      const users = sortedUsers(state.users.filter((user) => matches(user)), params);
      return json({ query: q, ...page(params, users, 'results', (user) => userView(state, user, caller)) });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/users',
    handle({ state, params, caller }) {
      requireViewUsers(caller, 'portals/self/users');
      return json(page(params, state.users, 'users', (user) => memberView(state, user)));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/users/search',
    handle({ state, params, caller }) {
      requireViewUsers(caller, 'portals/self/users/search');
      const q = queryParam(params, usersNeedQuery);
      const { matches } = compileSearch(q, userSearchFields(state));
      const users = sortedUsers(state.users.filter((user) => matches(user)), params);
      return json({ query: q, ...page(params, users, 'results', (user) => memberView(state, user)) });
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
