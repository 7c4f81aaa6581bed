/**
 * Custom roles: E10 (update role) and the role reads.
 *
 * | code      | status | condition                                                   |
 * |-----------|--------|-------------------------------------------------------------|
 * | GWM_0003  | 403    | caller is not a default administrator                       |
 * | 404 (none)| 404    | no custom role with {roleId} (built-in roles included: they are not custom roles and cannot be updated) |
 * | EMU_0001  | 400    | `name` sent empty                                           |
 * | EMU_0501  | 400    | `name` already used by another role (case-insensitive)      |
 *
 * Reads: GET /portals/:portalId/roles (paged `roles`) and GET /portals/:portalId/roles/:roleId,
 * each role as {id, name, description, privileges}.
 */
import { notFound } from '../errors.js';
import type { EmulatorState, Role } from '../model.js';
import { requireDefaultAdmin } from './auth.js';
import { page } from './paging.js';
import { badRequest, json, optionalParam, success } from './params.js';
import type { Route } from './types.js';
import { findBy } from '../store.js';

function findRole(state: EmulatorState, roleId: string): Role {
  const role = findBy(state.roles, 'id', roleId);
  if (!role) throw notFound();
  return role;
}

/** The documented role object; `privileges` only when asked for (returnPrivileges=true on the list). */
const roleView = (role: Role, withPrivileges = false): Record<string, unknown> => ({
  id: role.id,
  name: role.name,
  description: role.description,
  created: 0,
  modified: 0,
  ...(withPrivileges ? { privileges: [...role.privileges] } : {}),
});

export const roleRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/roles/:roleId/update',
    handle({ state, params, pathParams, caller }) {
      requireDefaultAdmin(caller, 'roles update');
      const role = findRole(state, pathParams.roleId ?? '');
      const name = optionalParam(params, 'name');
      if (name !== undefined) {
        if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", 'EMU_0001', ['A role needs a name.']);
        const clash = state.roles.find((other) => other.id !== role.id && other.name.toLowerCase() === name.toLowerCase());
        if (clash) {
          throw badRequest(`A role named '${name}' already exists.`, 'EMU_0501', [`Role ${clash.id} is already named '${clash.name}'.`]);
        }
        role.name = name;
      }
      const description = optionalParam(params, 'description');
      if (description !== undefined) role.description = description;
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
