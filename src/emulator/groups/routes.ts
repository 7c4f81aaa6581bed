/**
 * Groups: E1 (assign a group's category schema) and the group reads.
 *
 * | code      | status | condition                                                  |
 * |-----------|--------|------------------------------------------------------------|
 * | CONT_0006 | 400    | the group does not exist                                   |
 * | GWM_0003  | 403    | E1 by someone who is neither owner, manager, default administrator nor holder of portal:admin:updateGroups |
 * | ORG_1132 or (none) | 400 | category schema rules (category-schema.ts)       |
 * | (none)    | 400    | E1 without `categorySchema`                                |
 * | (none)    | 400    | "Invalid URL": E1 on self-managed before 10.6.1                           |
 *
 * Reads: GET /community/groups?q= (paged `results` of the documented group object; `q` in the
 * documented query syntax over `groupSearchFields`, store.ts, the same as items' search),
 * GET /community/groups/:groupId (the group object),
 * GET /community/groups/:groupId/users ({owner, admins, users}: usernames; the shape of the
 * vendor's client, @esri/arcgis-rest-portal `getGroupUsers` and its test mock),
 * GET /community/groups/:groupId/categorySchema ({categorySchema:[...]}).
 */
import { searchPage } from '../shared/paging.js';
import type { Group } from '../state/model.js';
import { forbidden } from '../shared/access.js';
import { GROUP_LIMITS, parseCategorySchema } from '../shared/category-schema.js';
import { json, requireParam, success } from '../shared/params.js';
import { compileSearch, conjunction, queryParam, searchOrderParam, sortedBy } from '../shared/search.js';
import type { Route } from '../shared/types.js';
import { requireVersion } from '../shared/versions.js';
import { findBy } from '../state/store.js';
import { groupsNeedQuery, mayManageGroup } from './rules.js';
import { findGroup, groupSearchFields, groupUsersView, groupView } from './store.js';

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
      const q = queryParam(params, groupsNeedQuery);
      const { node, matches } = compileSearch(q, groupSearchFields(state));
      const terms = conjunction(node);
      const byId = terms?.length === 1 && terms[0]?.field === 'id' ? terms[0] : undefined;
      const organizationWide = terms?.every((term) => term.field === 'orgid' || term.field === 'accountid' || (term.field === undefined && term.value === '*'));
      // One id is a lookup and the organization's listing is the list itself: neither scans every group.
      const found: readonly Group[] = byId
        ? [findBy(state.groups, 'id', byId.value)].filter((group): group is Group => group !== undefined)
        : organizationWide && terms?.every((term) => term.value === '*' || term.value === state.organization.id)
          ? state.groups
          : state.groups.filter((group) => matches(group));
      const order = searchOrderParam(params);
      const groups = order ? sortedBy(found, order) : found;
      return json({ query: q, ...searchPage(params, groups, 'results', (group) => groupView(group, caller)) });
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
    pattern: '/community/groups/:groupId/users',
    handle({ state, pathParams }) {
      return json(groupUsersView(findGroup(state, pathParams.groupId ?? '')));
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
