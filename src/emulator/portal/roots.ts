/**
 * The two roots that say which portal this is, as the documentation shows them:
 *
 * - the REST root `sharing/rest?f=json` (anonymous): `currentVersion`, the REST API version; from
 *   ArcGIS Enterprise 11.3 on also `enterpriseVersion` and `enterpriseBuild` (Root resource page,
 *   developers.arcgis.com/rest/users-groups-and-items/root: "2024.1" beside "11.3.0" and "51526");
 * - the Portal Administration root `<portal>/portaladmin?f=json` (self-managed only, for
 *   administrators; introduced at 10.2.1): the release as `version` ("11.1.0") beside
 *   `currentbuild` ("11.1.0.42854"), per
 *   developers.arcgis.com/rest/enterprise-administration/portal/portal-administration-root.htm.
 */
import { missingPrivilege } from '../errors.js';
import type { EmulatorState, Organization } from '../state/model.js';
import { compareVersions, threePartVersion } from '../state/releases.js';
import type { Caller } from '../shared/types.js';

/** The Portal Administration root, beside `sharing/rest` under the portal's context. */
export const PORTAL_ADMIN_ROOT = '/portal/portaladmin';

/** `enterpriseVersion` is on the root from this self-managed release on. */
const ROOT_REPORTS_RELEASE_FROM = '11.3';
/** User types replaced levels at 10.7 (the spec's federation `level` deprecation). */
const USER_TYPES_FROM = '10.7';

export function restRoot(organization: Organization): Record<string, unknown> {
  const reportsRelease = organization.edition === 'self-managed' && compareVersions(organization.version, ROOT_REPORTS_RELEASE_FROM) >= 0;
  return {
    currentVersion: organization.apiVersion,
    ...(reportsRelease ? { enterpriseVersion: threePartVersion(organization.version), enterpriseBuild: organization.build } : {}),
  };
}

/**
 * The Portal Administration root for an administrator. `undefined` on the hosted edition, which
 * has no Portal Administration API (the caller answers "Invalid URL").
 */
export function portalAdministrationRoot(state: EmulatorState, caller: Caller): Record<string, unknown> | undefined {
  const organization = state.organization;
  if (organization.edition !== 'self-managed') return undefined;
  // "Access allowed with any authorized privilege": administrators, never an app or a member.
  if (caller.app || !caller.isDefaultAdmin) throw missingPrivilege();
  const release = threePartVersion(organization.version);
  return {
    isPostUpgrade: false,
    isLicensePopulated: true,
    siteKey: organization.collaborationPortalId,
    resources: ['license', 'system', 'security', 'federation', 'logs', 'machines', 'mode', 'privilege'],
    isPortalLicensed: true,
    isLicenseFileRequired: false,
    isUserTypeLicensing: compareVersions(organization.version, USER_TYPES_FROM) >= 0,
    version: release,
    currentbuild: `${release}.${organization.build}`,
  };
}
