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
import { findBy } from '../store.js';
import { parseQuery } from './params.js';
import { requireVersion } from './versions.js';

export const UPDATE_GROUPS_PRIVILEGE = 'portal:admin:updateGroups';

export function groupNotFound(groupId: string): PortalApiError {
  return new PortalApiError(400, 'Group does not exist or is inaccessible.', 'CONT_0006', [`No group with id '${groupId}'.`]);
}

export function findGroup(state: EmulatorState, groupId: string): Group {
  const group = findBy(state.groups, 'id', groupId);
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

/** The documented group object, with the caller's membership. */
function groupView(group: Group, caller: Caller): Record<string, unknown> {
  const username = caller.user.username;
  const memberType =
    group.owner === username ? 'owner' : group.managers.includes(username) ? 'admin' : group.members.includes(username) ? 'member' : 'none';
  return {
    id: group.id,
    title: group.title,
    isInvitationOnly: true,
    owner: group.owner,
    description: '',
    snippet: '',
    tags: [...group.tags],
    phone: null,
    sortField: 'title',
    sortOrder: 'asc',
    isViewOnly: false,
    thumbnail: null,
    created: 0,
    modified: 0,
    access: group.access,
    capabilities: [],
    isFav: false,
    isReadOnly: false,
    protected: false,
    autoJoin: false,
    notificationsEnabled: false,
    provider: null,
    providerGroupName: null,
    userMembership: { username, memberType, applications: 0 },
  };
}

const groupsNeedQuery = (): PortalApiError => new PortalApiError(400, "'q' parameter is required", undefined, []);

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
    handle({ state, params, caller }) {
      const terms = parseQuery(params, groupsNeedQuery);
      const byId = terms.find((term) => term.field === 'id');
      let groups: readonly Group[] = state.groups;
      if (terms.some((term) => term.field === 'orgid' && term.value !== state.organization.id)) groups = [];
      else if (byId && terms.length === 1) groups = [findBy(state.groups, 'id', byId.value)].filter((group): group is Group => group !== undefined);
      else if (!terms.every((term) => term.field === 'orgid')) {
        groups = state.groups.filter((group) =>
          terms.every((term) =>
            term.field === 'orgid' ? true : term.field === 'id' ? group.id === term.value : term.field === 'owner' ? group.owner === term.value : group.title.toLowerCase().includes(term.value.toLowerCase()),
          ),
        );
      }
      return json({ query: params['q'] ?? '', ...page(params, groups, 'results', (group) => groupView(group, caller)) });
    },
  },
  {
    access: 'read',
    pattern: '/community/groups/:groupId',
    handle({ state, pathParams, caller }) {
      return json(groupView(findGroup(state, pathParams.groupId ?? ''), caller));
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
