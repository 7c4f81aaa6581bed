/**
 * Version and edition gates (the spec's Versioning table), on the product release the emulator
 * plays (`organization.version`), never on the REST API version it reports (state/releases.ts
 * compares them). The hosted edition is treated as current: everything introduced, everything
 * removed is gone, and self-managed-only operations are absent.
 */
import type { Organization } from '../state/model.js';
import { compareVersions } from '../state/releases.js';
import { badRequest } from './params.js';

/** True when the organization has what self-managed `version` introduced (always on hosted). */
export function hasVersion(organization: Organization, version: string): boolean {
  return organization.edition === 'hosted' || compareVersions(organization.version, version) >= 0;
}

/** Throws the "Invalid URL" error when `operation` was introduced after the organization's version. */
export function requireVersion(organization: Organization, operation: string, introducedIn: string): void {
  if (!hasVersion(organization, introducedIn)) {
    throw badRequest(`Invalid URL: ${operation} is not available on this portal.`, [
      `${operation} was introduced in version ${introducedIn}; this portal is version ${organization.version}.`,
    ]);
  }
}
