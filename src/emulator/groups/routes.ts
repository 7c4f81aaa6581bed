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
import { page } from '../routes/paging.js';
import type { Group } from '../model.js';
import { forbidden } from '../routes/auth.js';
import { GROUP_LIMITS, parseCategorySchema } from '../routes/category-schema.js';
import { json, parseQuery, requireParam, success } from '../routes/params.js';
import type { Route } from '../routes/types.js';
import { requireVersion } from '../routes/versions.js';
import { findBy } from '../store.js';
import { groupsNeedQuery, mayManageGroup } from './rules.js';
import { findGroup, groupView } from './store.js';

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
