/** organization: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import type { PasswordPolicy } from '../state/model.js';
import { badRequest, checkRange, optionalParam, parseInteger, type Params } from '../shared/params.js';
import { POLICY_RULES } from './rules.js';

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
