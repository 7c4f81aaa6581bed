/**
 * E7: enabling a member's task. Value: `{ active: true }`. The API can only enable a task, so
 * `enabled: false` is an error.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { DiscoveredObject, FieldComment, PortalFacts } from './toolkit/contract.js';
import { defineKind } from './toolkit/define.js';
import { type JsonObject, type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import { missingUser, pathId, requiredId } from './toolkit/live.js';
import { isObject, problem, selfManagedVersionBelow } from './toolkit/support.js';
import { liveVersionBelow, mapLimited, oneLine, textOf } from './toolkit/discover.js';

/**
 * A task as read: `active`, or failing that `taskState`, says whether it is enabled. The
 * documented task states are `active`, `paused` and `completed` (wire samples): only `active`
 * is an enabled task.
 */
function liveTask(task: JsonObject): JsonValue {
  const active = task['active'];
  if (typeof active === 'boolean') return { active };
  return { active: task['taskState'] === 'active' };
}

export const userTask = defineKind({
  name: 'user.task',
  operation: { id: 'E7', name: 'Enable task' },
  config: [
    {
      container: 'user',
      properties: {
        tasks: {
          type: 'array',
          description: 'E7: tasks to enable (10.8.1 or later).',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'enabled'],
            properties: {
              id: { type: 'string', minLength: 1, description: 'Task id.' },
              enabled: { type: 'boolean', description: 'true: the task is enabled. The API cannot disable a task.' },
            },
          },
        },
      },
      extract(entry, scope, declare) {
        const tasks = entry['tasks'];
        if (!Array.isArray(tasks)) return;
        tasks.forEach((task, index) => {
          if (!isObject(task) || typeof task['id'] !== 'string') return;
          declare.object({
            // One flat string (see entryProperty): the address is a key of every lookup of a plan.
            address: [scope.address, '.task[', task['id'], ']'].join(''),
            ids: { ...scope.ids, taskId: task['id'] },
            value: { active: task['enabled'] === true },
            absent: false,
            path: ['tasks', index],
          });
        });
      },
      addressOf(entry, scope, path) {
        const tasks = entry['tasks'];
        const task = Array.isArray(tasks) && typeof path[1] === 'number' ? tasks[path[1]] : undefined;
        return isObject(task) && typeof task['id'] === 'string' ? `${scope.address}.task[${task['id']}]` : `${scope.address}.task`;
      },
    },
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    if (isObject(obj.value) && obj.value['active'] === false) {
      diagnostics.push(
        problem(ctx, obj, ['enabled'], {
          code: 'task/cannot-disable',
          message: 'The API has no operation to disable a task; only enabling (E7) exists.',
          value: false,
          expected: 'enabled: true, or leave the task out',
        }),
      );
    }
    if (selfManagedVersionBelow(ctx, '10.8.1')) {
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'version/enable-task',
          message: `Enabling tasks (E7) exists from 10.8.1; the portal is ${ctx.portal.version}.`,
          value: ctx.portal.version,
          expected: 'portal.version 10.8.1 or later',
        }),
      );
    }
    return diagnostics;
  },
  live: {
    // One list per user serves all of that user's declared tasks (the reader memoises it).
    list: {
      path: (obj) => `/community/users/${pathId(obj, 'username')}/tasks`,
      itemsField: 'tasks',
      keyOf: (entry) => textOf(entry['id']),
      idOf: (obj) => requiredId(obj, 'taskId'),
      // An unknown user's task list is refused like a bad request (code 400, no messageCode): the user's read tells.
      owner: (obj) => `/community/users/${pathId(obj, 'username')}`,
    },
    missing: (obj, userFound) => (userFound ? `task ${obj.ids['taskId']} of user ${obj.ids['username']}` : missingUser(obj)),
  },
  value: { read: liveTask, action: () => 'update' },
  request: {
    path: (desired) => `/community/users/${pathId(desired, 'username')}/tasks/${pathId(desired, 'taskId')}/enable`,
    form: () => ({}),
  },
  label: (record) => textOf(record['title']),
  // The member's full name, from the organization's user list.
  labelList: {
    path: () => '/portals/self/users',
    itemsField: 'users',
    keyOf: (entry) => textOf(entry['username']),
    idOf: (obj) => obj.ids['username'],
    labelOf: (entry) => textOf(entry['fullName']),
  },
  discover: discoverUserTasks,
});

/**
 * For import: each member's enabled tasks (`enabled: true`, titled in comments). A disabled task
 * cannot be declared (the API cannot disable one), so it is only named.
 */
async function discoverUserTasks(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.8.1')) return [];
  const users = (await reader.list('/portals/self/users', 'users')) ?? [];
  const found = await mapLimited(users, async (user): Promise<DiscoveredObject | undefined> => {
    const username = textOf(user['username']);
    if (username === undefined) return undefined;
    const tasks = (await reader.list(`/community/users/${encodeURIComponent(username)}/tasks`, 'tasks')) ?? [];
    const enabled: JsonObject[] = [];
    const comments: FieldComment[] = [];
    const notes: string[] = [];
    for (const task of tasks) {
      const id = textOf(task['id']);
      if (id === undefined) continue;
      const title = oneLine(textOf(task['title']) ?? id);
      const live = liveTask(task);
      if (isObject(live) && live['active'] === true) {
        comments.push({ at: ['tasks', enabled.length], text: title });
        enabled.push({ id, enabled: true });
      } else {
        notes.push(`${username}: task ${id} ${title} is disabled; not imported (the API cannot disable a task).`);
      }
    }
    if (enabled.length === 0 && notes.length === 0) return undefined;
    const fullName = textOf(user['fullName']);
    return {
      path: [{ container: 'user', key: username, ...(fullName ? { comment: oneLine(fullName) } : {}) }],
      fields: enabled.length > 0 ? { tasks: enabled } : {},
      objects: enabled.length,
      comments,
      notes,
    };
  });
  return found.filter((entry): entry is DiscoveredObject => entry !== undefined);
}
