/**
 * Small helpers the kinds' live halves share: identifiers as path segments, the member a
 * user's settings belong to.
 */
import { NotOnPortalError, type DesiredObject } from './contract.js';
import { PortalctlError } from '../../core/errors.js';

/** A declared object lacks an identifier its request path needs: a bug in its config half, not a user error. */
export class MissingIdentifierError extends PortalctlError {}

/** `obj.ids[name]`, which the request needs. */
export function requiredId(obj: DesiredObject, name: string): string {
  const id = obj.ids[name];
  if (id === undefined || id === '') {
    throw new MissingIdentifierError(`${obj.address} has no "${name}" identifier; its request cannot be built.`);
  }
  return id;
}

/** `obj.ids[name]`, encoded as one path segment. */
export function pathId(obj: DesiredObject, name: string): string {
  return encodeURIComponent(requiredId(obj, name));
}

/**
 * The member a user's level or tasks belong to, as missing: said once at the member's entry
 * (`users: - username: …`), however many of its settings found it missing.
 */
export function missingUser(obj: DesiredObject): NotOnPortalError {
  const username = obj.ids['username'] ?? '';
  return new NotOnPortalError(`user ${username}`, { container: 'user', address: `user[${username}]` });
}

/** The built-in roles' ids (a user's `roleId` without a custom role; a federation's default role). The custom roles are listed under `/portals/self/roles`. */
export const BUILT_IN_ROLE_IDS: ReadonlySet<string> = new Set(['org_admin', 'org_publisher', 'org_user']);

/** The organization's custom roles (paged `roles`), read once for every kind that needs them. */
export const ROLES_PATH = '/portals/self/roles';

/** A custom role as plans and messages name it: its address, `role[r7HkQ2]`. */
export const roleAddress = (roleId: string): string => `role[${roleId}]`;
