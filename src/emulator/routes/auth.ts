/** Authorization checks shared by the route areas (the spec's Authentication table). */
import { missingPrivilege, PortalApiError } from '../errors.js';
import type { Collaboration, EmulatorState } from '../model.js';
import type { Caller } from './types.js';

const forbidden = (detail: string): PortalApiError => {
  const base = missingPrivilege();
  return new PortalApiError(base.code, base.message, base.messageCode, [detail]);
};

export function requireDefaultAdmin(caller: Caller, operation: string): void {
  if (!caller.isDefaultAdmin) {
    throw forbidden(`${operation} is reserved to default administrators (role org_admin); '${caller.user.username}' is not one.`);
  }
}

/** Default administrators, or a custom role holding `privilege`. */
export function requireAdminOrPrivilege(caller: Caller, privilege: string, operation: string): void {
  if (!caller.isDefaultAdmin && !caller.hasPrivilege(privilege)) {
    throw forbidden(`${operation} needs a default administrator or the privilege ${privilege}; '${caller.user.username}' has neither.`);
  }
}

/** Capability "Administrator (host)": a default administrator of the portal hosting the collaboration. */
export function requireHostAdmin(caller: Caller, state: EmulatorState, collaboration: Collaboration, operation: string): void {
  requireDefaultAdmin(caller, operation);
  if (collaboration.hostPortalId !== state.organization.id) {
    throw forbidden(
      `${operation} is reserved to administrators of the collaboration's host portal (${collaboration.hostPortalId}); this portal is ${state.organization.id}.`,
    );
  }
}

export { forbidden };
