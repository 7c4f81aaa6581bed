/**
 * `GET|POST /portals/self` (and `/portals/<organization id>`): the organization as the caller sees
 * it, with the caller's user and effective privileges. The natural pre-flight for a client.
 */
import { effectivePrivileges, findCustomRole } from './auth.js';
import type { EmulatorState, User } from './model.js';
import type { Route } from './routes/types.js';

/**
 * The `role` a user is reported with: built-in roles as they are; a custom role as the built-in
 * role it is based on (admin if it holds any portal:admin privilege, publisher if it may
 * publish, user otherwise), with the custom role's id in `roleId`.
 */
export function reportedRole(state: EmulatorState, user: User): { role: string; roleId?: string } {
  const customRole = findCustomRole(state, user);
  if (!customRole) return { role: user.role };
  const privileges = customRole.privileges;
  const base = privileges.some((p) => p.startsWith('portal:admin:'))
    ? 'org_admin'
    : privileges.some((p) => p.startsWith('portal:publisher:'))
      ? 'org_publisher'
      : 'org_user';
  return { role: base, roleId: customRole.id };
}

export function portalSelf(state: EmulatorState, user: User): Record<string, unknown> {
  const organization = state.organization;
  return {
    id: organization.id,
    name: organization.name,
    isPortal: organization.edition === 'self-managed',
    access: organization.access,
    isVerified: organization.isVerified,
    currentVersion: organization.version,
    portalHostname: organization.hostname,
    hasCategorySchema: organization.categorySchema.length > 0,
    hasMemberCategorySchema: organization.memberCategorySchema !== null,
    user: {
      username: user.username,
      fullName: user.fullName,
      ...reportedRole(state, user),
      level: String(user.level),
      orgId: organization.id,
      privileges: effectivePrivileges(state, user),
    },
  };
}

export const portalSelfRoute: Route = {
  access: 'read',
  pattern: '/portals/:portalId',
  handle: ({ state, caller }) => ({ type: 'json', body: portalSelf(state, caller.user) }),
};
