/** organization: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import type { Organization, PasswordPolicy, PortalResource } from '../state/model.js';
import type { RouteResult } from '../shared/types.js';
import { badRequest, checkRange, optionalParam, parseInteger, type Params } from '../shared/params.js';
import { POLICY_RULES, type ResourceUpload } from './rules.js';

export function updatePolicy(policy: PasswordPolicy, params: Params): void {
  for (const rule of POLICY_RULES) {
    const text = optionalParam(params, rule.name);
    if (text === undefined) continue;
    if (text.trim() === '' || text.trim() === 'null') {
      if (!rule.nullable) {
        throw badRequest(`Invalid value for '${rule.name}': it cannot be empty.`, [
          `'${rule.name}' must be between ${rule.min} and ${rule.max ?? rule.min}.`,
        ]);
      }
      delete policy[rule.name];
      continue;
    }
    policy[rule.name] = checkRange(rule.name, parseInteger(rule.name, text), rule.min, rule.max);
  }
}

/**
 * `portals/self/settings`, with the keys of the vendor's client (`IPortalSettings` of
 * @esri/arcgis-rest-portal `getPortalSettings` and its test mock): nothing configured.
 */
export function portalSettings(): Record<string, unknown> {
  return {
    allowedRedirectUris: [],
    authorizedCrossOriginDomains: [],
    defaultExtent: { xmin: -20037508, ymin: -8399737, xmax: 20037508, ymax: 16123932, spatialReference: { wkid: 102100 } },
    featuredGroups: [],
    helperServices: {},
    homePageFeaturedContentCount: 12,
    informationalBanner: { text: '', bgColor: '#ffffff', fontColor: '#000000', enabled: false },
    showHomePageDescription: false,
  };
}

/** Stores a resource under `key`; one already there is replaced (a new upload, a new `created`). */
export function putResource(organization: Organization, key: string, upload: ResourceUpload, now: number): void {
  const resource: PortalResource = {
    key,
    size: upload.content.length,
    created: now,
    contentBase64: Buffer.from(upload.content).toString('base64'),
    contentType: upload.contentType,
  };
  const index = organization.resources.findIndex((candidate) => candidate.key === key);
  if (index < 0) organization.resources.push(resource);
  else organization.resources[index] = resource;
}

/** The resource's file as a download named after the key's last segment. */
export function resourceFile(resource: PortalResource): RouteResult {
  return {
    type: 'file',
    filename: resource.key.split('/').pop() || resource.key,
    contentType: resource.contentType ?? 'application/octet-stream',
    body: Buffer.from(resource.contentBase64 ?? '', 'base64'),
  };
}
