/** Authorization checks shared by the route areas (the spec's Authentication table). */
import { missingPrivilege, PortalApiError } from '../errors.js';
import type { Collaboration, EmulatorState } from '../state/model.js';
import type { Caller } from './types.js';

const forbidden = (detail: string): PortalApiError => {
  const base = missingPrivilege();
  return new PortalApiError(base.code, base.message, base.messageCode, [detail]);
};

/**
 * What an app token (client credentials) needs per operation: an app is never a default
 * administrator, it acts with the privileges it was granted (`oauthClients[].privileges`).
 * Operations the spec reserves to administrators map to the privilege that governs them.
 */
export const APP_PRIVILEGES: Readonly<Record<string, string>> = {
  'assignCategorySchema (group)': 'portal:admin:updateGroups',
  'assignCategorySchema (organization)': 'portal:admin:updateItemCategorySchema',
  setContentStatus: 'portal:admin:updateItems',
  updateUserLevel: 'portal:admin:updateUsers',
  deleteMemberCategorySchema: 'portal:admin:updateUsers',
  'federation update': 'portal:admin:manageSecurity',
  'tasks/enable': 'portal:admin:updateUsers',
  tasks: 'portal:admin:viewUsers',
  'securityPolicy/update': 'portal:admin:manageSecurity',
  'workspaces/updateInfo': 'portal:admin:manageCollaborations',
  'roles update': 'portal:admin:manageRoles',
  'participants/remove': 'portal:admin:manageCollaborations',
  removeResource: 'portal:admin:manageWebsite',
  inviteParticipant: 'portal:admin:manageCollaborations',
  removePortalGroupLink: 'portal:admin:manageCollaborations',
  updateParticipantAccessModes: 'portal:admin:manageCollaborations',
  addWorkspace: 'portal:admin:manageCollaborations',
  'invitations/refresh': 'portal:admin:manageCollaborations',
  'invitations/invalidate': 'portal:admin:manageCollaborations',
};

/** For an app token: true when the app holds the privilege `operation` needs. */
export function appMay(caller: Caller, operation: string): boolean {
  const privilege = APP_PRIVILEGES[operation];
  return caller.app !== undefined && privilege !== undefined && caller.hasPrivilege(privilege);
}

function appRefused(caller: Caller, operation: string): PortalApiError {
  const privilege = APP_PRIVILEGES[operation] ?? 'an administrative privilege';
  return forbidden(`${operation} needs the privilege ${privilege}; the app '${caller.app?.clientId ?? ''}' does not hold it.`);
}

export function requireDefaultAdmin(caller: Caller, operation: string): void {
  if (caller.app) {
    if (!appMay(caller, operation)) throw appRefused(caller, operation);
    return;
  }
  if (!caller.isDefaultAdmin) {
    throw forbidden(`${operation} is reserved to default administrators (role org_admin); '${caller.user.username}' is not one.`);
  }
}

/** Default administrators, or a custom role holding `privilege`. */
export function requireAdminOrPrivilege(caller: Caller, privilege: string, operation: string): void {
  if (caller.app && !caller.hasPrivilege(privilege)) throw appRefused(caller, operation);
  if (!caller.isDefaultAdmin && !caller.hasPrivilege(privilege)) {
    throw forbidden(`${operation} needs a default administrator or the privilege ${privilege}; '${caller.user.username}' has neither.`);
  }
}

/** Capability "Administrator (host)": a default administrator of the portal hosting the collaboration. */
export function requireHostAdmin(caller: Caller, state: EmulatorState, collaboration: Collaboration, operation: string): void {
  requireDefaultAdmin(caller, operation);
  if (collaboration.hostPortalId !== state.organization.collaborationPortalId) {
    throw forbidden(
      `${operation} is reserved to administrators of the collaboration's host portal (${collaboration.hostPortalId}); this portal is ${state.organization.collaborationPortalId}.`,
    );
  }
}

export { forbidden };
