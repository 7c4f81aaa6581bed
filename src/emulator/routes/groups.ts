/**
 * Groups: E1 (assign a group's category schema) and the group reads.
 *
 * | code      | status | condition                                                  |
 * |-----------|--------|------------------------------------------------------------|
 * | CONT_0006 | 400    | the group does not exist                                   |
 * | GWM_0003  | 403    | E1 by someone who is neither owner, manager, default administrator nor holder of portal:admin:updateGroups |
 * | ORG_1132, EMU_0101..EMU_0106 | 400 | category schema rules (category-schema.ts)       |
 * | EMU_0001  | 400    | E1 without `categorySchema`                                |
 * | EMU_0006  | 400    | E1 on self-managed before 10.6.1                           |
 *
 * Reads: GET /community/groups (paged `results` of {id,title,owner,managers}),
 * GET /community/groups/:groupId ({id,title,owner,managers}),
 * GET /community/groups/:groupId/categorySchema ({categorySchema:[...]}).
 */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, Group } from '../model.js';
import { forbidden } from './auth.js';
import { GROUP_LIMITS, parseCategorySchema } from './category-schema.js';
import { page } from './paging.js';
import { json, requireParam, success } from './params.js';
import type { Caller, Route } from './types.js';
import { requireVersion } from './versions.js';

export const UPDATE_GROUPS_PRIVILEGE = 'portal:admin:updateGroups';

export function groupNotFound(groupId: string): PortalApiError {
  return new PortalApiError(400, 'Group does not exist or is inaccessible.', 'CONT_0006', [`No group with id '${groupId}'.`]);
}

export function findGroup(state: EmulatorState, groupId: string): Group {
  const group = state.groups.find((candidate) => candidate.id === groupId);
  if (!group) throw groupNotFound(groupId);
  return group;
}

function mayManageGroup(caller: Caller, group: Group): boolean {
  const username = caller.user.username;
  return (
    group.owner === username ||
    group.managers.includes(username) ||
    caller.isDefaultAdmin ||
    caller.hasPrivilege(UPDATE_GROUPS_PRIVILEGE)
  );
}

const groupView = (group: Group): Record<string, unknown> => ({
  id: group.id,
  title: group.title,
  owner: group.owner,
  managers: [...group.managers],
});

export const groupRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/community/groups/:groupId/assignCategorySchema',
    handle({ state, params, pathParams, caller }) {
      requireVersion(state.organization, 'assignCategorySchema (group)', '10.6.1');
      const group = findGroup(state, pathParams.groupId ?? '');
      if (!mayManageGroup(caller, group)) {
        throw forbidden(`Only the group's owner or managers (or an administrator) may assign its category schema; '${caller.user.username}' may not.`);
      }
      group.categorySchema = parseCategorySchema(requireParam(params, 'categorySchema'), GROUP_LIMITS);
      return success();
    },
  },
  {
    access: 'read',
    pattern: '/community/groups',
    handle({ state, params }) {
      return json(page(params, state.groups.map(groupView), 'results'));
    },
  },
  {
    access: 'read',
    pattern: '/community/groups/:groupId',
    handle({ state, pathParams }) {
      return json(groupView(findGroup(state, pathParams.groupId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/community/groups/:groupId/categorySchema',
    handle({ state, pathParams }) {
      return json({ categorySchema: findGroup(state, pathParams.groupId ?? '').categorySchema });
    },
  },
];
