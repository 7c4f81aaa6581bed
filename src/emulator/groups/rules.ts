/** groups: the portal's rules (checks that refuse a request before anything changes). */
import { PortalApiError } from '../errors.js';
import type { Group } from '../state/model.js';
import type { Caller } from '../shared/types.js';

export const UPDATE_GROUPS_PRIVILEGE = 'portal:admin:updateGroups';

export function mayManageGroup(caller: Caller, group: Group): boolean {
  const username = caller.user.username;
  return (
    group.owner === username ||
    group.managers.includes(username) ||
    caller.isDefaultAdmin ||
    caller.hasPrivilege(UPDATE_GROUPS_PRIVILEGE)
  );
}

export const groupsNeedQuery = (): PortalApiError => new PortalApiError(400, "'q' parameter is required", undefined, []);
