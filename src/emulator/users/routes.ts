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
import { requireDefaultAdmin } from '../routes/auth.js';
import { page } from '../routes/paging.js';
import { checkEnum, json, optionalParam, requireParam, success } from '../routes/params.js';
import type { Route } from '../routes/types.js';
import { requireUserLevelsAvailable, taskOwner } from './rules.js';
import { MAX_ACTIVE_TASKS, changeLevel, findTask, findUser, taskView, userView } from './store.js';

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
