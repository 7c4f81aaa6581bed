/**
 * `GET|POST /portals/self` (and `/portals/<organization id>`): the organization as the caller sees
 * it (documented shape): `user` (role, roleId, privileges, level as a string) for a signed-in
 * user, `appInfo` (with the app's privileges) for an app token. `currentVersion` is the REST API
 * version as a string, not the release (see roots.ts); `isPortal` tells the edition.
 */
import type { EmulatorState } from '../state/model.js';
import type { Caller, Route } from '../shared/types.js';
import { userSummary } from '../users/store.js';

export function portalSelf(state: EmulatorState, caller: Caller): Record<string, unknown> {
  const organization = state.organization;
  const hosted = organization.edition === 'hosted';
  const urlKey = organization.id.toLowerCase();
  return {
    access: organization.access,
    allSSL: true,
    canSearchPublic: true,
    canSharePublic: true,
    created: 0,
    culture: 'en',
    currentVersion: organization.apiVersion,
    customBaseUrl: hosted ? 'maps.arcgis.com' : organization.hostname,
    hasCategorySchema: organization.categorySchema.length > 0,
    hasMemberCategorySchema: organization.memberCategorySchema !== null,
    id: organization.id,
    isPortal: !hosted,
    isVerified: organization.isVerified,
    maxTokenExpirationMinutes: -1,
    modified: 0,
    name: organization.name,
    portalHostname: organization.hostname,
    portalMode: hosted ? 'multitenant' : 'singletenant',
    portalName: organization.name,
    region: 'WO',
    supportsOAuth: true,
    urlKey,
    ...(caller.app
      ? {
          appInfo: {
            appId: caller.app.clientId,
            itemId: caller.app.clientId,
            appOwner: caller.app.username,
            orgId: organization.id,
            appTitle: caller.app.title,
            privileges: [...caller.app.privileges],
          },
        }
      : { user: userSummary(state, caller.user) }),
  };
}

export const portalSelfRoute: Route = {
  access: 'read',
  pattern: '/portals/:portalId',
  handle: ({ state, caller }) => ({ type: 'json', body: portalSelf(state, caller) }),
};
