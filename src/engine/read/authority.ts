/**
 * Who is calling, from `portals/self`, and whether that caller may call an operation (the
 * spec's Authentication table, declared per kind as `authority`). An app token (`appInfo`)
 * acts with its app's privileges only, never as an administrator.
 */
import type { JsonObject } from '../../core/json.js';
import { isObject } from '../../core/json.js';
import type { Authority } from '../../kinds/toolkit/contract.js';

export interface Caller {
  /** For people: `user admin1 (org_admin)`, `app Example app`. */
  description: string;
  /** Role and roleId of a signed-in user; absent for an app. */
  role?: string;
  roleId?: string;
  privileges: readonly string[];
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : []);

/** The caller `portals/self` describes: its `appInfo` for an app token, else its `user`; undefined when anonymous. */
export function callerFromSelf(self: JsonObject): Caller | undefined {
  const app = self['appInfo'];
  if (isObject(app)) {
    const title = typeof app['appTitle'] === 'string' ? app['appTitle'] : typeof app['appId'] === 'string' ? app['appId'] : 'unnamed';
    return { description: `app ${title} (app token)`, privileges: strings(app['privileges']) };
  }
  const user = self['user'];
  if (!isObject(user)) return undefined;
  const role = typeof user['role'] === 'string' ? user['role'] : undefined;
  const roleId = typeof user['roleId'] === 'string' ? user['roleId'] : undefined;
  const name = typeof user['username'] === 'string' ? user['username'] : 'unnamed';
  return {
    description: `user ${name}${role ? ` (${role}${roleId && roleId !== role ? `, custom role ${roleId}` : ''})` : ''}`,
    ...(role !== undefined ? { role } : {}),
    ...(roleId !== undefined ? { roleId } : {}),
    privileges: strings(user['privileges']),
  };
}

export function mayCall(caller: Caller, authority: Authority): boolean {
  if (authority.privilege !== undefined && caller.privileges.includes(authority.privilege)) return true;
  if (caller.role !== 'org_admin') return false;
  // A default administrator's roleId is the built-in name (or absent); a custom admin role has its own id.
  return authority.role === 'administrator' || caller.roleId === undefined || caller.roleId === 'org_admin';
}

/** Why `caller` may not call the operation, for the plan. */
export function missingAuthority(caller: Caller, authority: Authority, operation: { id: string; name: string }): string {
  const needs = authority.privilege ? ` (privilege ${authority.privilege})` : '';
  return `${operation.id} ${operation.name} may be called by ${authority.who}${needs}; the credentials act as ${caller.description}, which does not qualify: the portal will refuse it (403 GWM_0003).`;
}
