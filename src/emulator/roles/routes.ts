/**
 * Custom roles: E10 (update role) and the role reads.
 *
 * | code      | status | condition                                                   |
 * |-----------|--------|-------------------------------------------------------------|
 * | GWM_0003  | 403    | caller is not a default administrator                       |
 * | 404 (none)| 404    | no custom role with {roleId} (built-in roles included: they are not custom roles and cannot be updated) |
 * | (none)    | 400    | the role is the pre-built Viewer or Data Editor              |
 * | (none)    | 400    | `name` sent empty, longer than 128 characters, or a default role's name |
 * | (none)    | 400    | `name` already used by another role (case-insensitive)      |
 * | (none)    | 400    | `description` longer than 250 characters                    |
 *
 * Reads: GET /portals/:portalId/roles (paged `roles`) and GET /portals/:portalId/roles/:roleId,
 * each role as {id, name, description, created, modified}; `privileges` only with
 * returnPrivileges=true on the list, and under GET .../roles/:roleId/privileges.
 */
import { requireDefaultAdmin } from '../shared/access.js';
import { page } from '../shared/paging.js';
import { json, optionalParam, success } from '../shared/params.js';
import type { Route } from '../shared/types.js';
import { checkRoleDescription, checkRoleName, checkRoleUpdatable } from './rules.js';
import { findRole, roleView } from './store.js';

export const roleRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/roles/:roleId/update',
    handle({ state, params, pathParams, caller }) {
      requireDefaultAdmin(caller, 'roles update');
      const role = findRole(state, pathParams.roleId ?? '');
      checkRoleUpdatable(role);
      const name = optionalParam(params, 'name');
      const description = optionalParam(params, 'description');
      // Every check before any change: a refused request changes nothing.
      const newName = name === undefined ? undefined : checkRoleName(state, role, name);
      const newDescription = description === undefined ? undefined : checkRoleDescription(description);
      if (newName !== undefined) role.name = newName;
      if (newDescription !== undefined) role.description = newDescription;
      return success();
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/roles',
    handle({ state, params }) {
      const withPrivileges = params['returnPrivileges'] === 'true';
      return json(page(params, state.roles, 'roles', (role) => roleView(role, withPrivileges)));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/roles/:roleId',
    handle({ state, pathParams }) {
      return json(roleView(findRole(state, pathParams.roleId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/roles/:roleId/privileges',
    handle({ state, pathParams }) {
      return json({ privileges: [...findRole(state, pathParams.roleId ?? '').privileges] });
    },
  },
];
