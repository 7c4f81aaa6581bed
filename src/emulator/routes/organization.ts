/**
 * Organization settings: E2 (organization category schema), E5 (delete member category schema),
 * E8 (security policy), E12 (remove portal resource) and their reads.
 *
 * | code      | status | condition                                                          |
 * |-----------|--------|--------------------------------------------------------------------|
 * | ORG_1132, EMU_0101..EMU_0106 | 400 | E2 category schema rules (category-schema.ts)           |
 * | EMU_0001  | 400    | E2 without `categorySchema` nor a JSON body; E12 without `key`      |
 * | GWM_0003  | 403    | E2 without default admin / portal:admin:updateItemCategorySchema; E5 without default admin / portal:admin:updateUsers; E8, E12 by a non default administrator |
 * | 404 (none)| 404    | E5 when the organization has no member category schema; E12 unknown key |
 * | EMU_0003  | 400    | E8 a value that is not an integer                                  |
 * | EMU_0004  | 400    | E8 a value out of bounds, or minLength sent empty (it cannot be null) |
 * | EMU_0006  | 400    | E8 before 10.4                                                     |
 *
 * Reads: GET /portals/:portalId/categorySchema -> {categorySchema:[...]};
 * GET /portals/:portalId/memberCategorySchema -> {memberCategorySchema:[...]}, or {} when the
 * organization has none (the property is absent, like `hasMemberCategorySchema: false`);
 * GET /portals/:portalId/securityPolicy -> {passwordPolicy:{<set rules only>, type:"custom"}};
 * GET /portals/:portalId/resources -> paged `resources` of {key,size,created}.
 */
import { notFound } from '../errors.js';
import type { PasswordPolicy } from '../model.js';
import { requireAdminOrPrivilege, requireDefaultAdmin } from './auth.js';
import { ORGANIZATION_LIMITS, parseCategorySchema } from './category-schema.js';
import { page } from './paging.js';
import { badRequest, checkRange, json, optionalParam, parseInteger, requireParam, success, type Params } from './params.js';
import type { Route } from './types.js';
import { requireVersion } from './versions.js';

export const UPDATE_CATEGORY_SCHEMA_PRIVILEGE = 'portal:admin:updateItemCategorySchema';
export const UPDATE_USERS_PRIVILEGE = 'portal:admin:updateUsers';

/** E8 bounds: [min, max]; `nullable` rules may be sent empty (or "null") to clear them. */
const POLICY_RULES: { name: keyof PasswordPolicy; min: number; max?: number; nullable: boolean }[] = [
  { name: 'minLength', min: 8, max: 1000, nullable: false },
  { name: 'minUpper', min: 1, nullable: true },
  { name: 'minLower', min: 1, nullable: true },
  { name: 'minLetter', min: 1, nullable: true },
  { name: 'minDigit', min: 1, nullable: true },
  { name: 'minOther', min: 1, nullable: true },
  { name: 'expirationInDays', min: 1, max: 1095, nullable: true },
  { name: 'historySize', min: 1, max: 24, nullable: true },
];

/** The category schema JSON text: the `categorySchema` parameter, or the whole raw body (spec sample). */
function categorySchemaText(params: Params, rawBody: string | undefined): string {
  const parameter = optionalParam(params, 'categorySchema');
  if (parameter !== undefined) return parameter;
  if (rawBody !== undefined && rawBody.trim() !== '') return rawBody;
  return requireParam(params, 'categorySchema');
}

function updatePolicy(policy: PasswordPolicy, params: Params): void {
  for (const rule of POLICY_RULES) {
    const text = optionalParam(params, rule.name);
    if (text === undefined) continue;
    if (text.trim() === '' || text.trim() === 'null') {
      if (!rule.nullable) {
        throw badRequest(`Invalid value for '${rule.name}': it cannot be empty.`, 'EMU_0004', [
          `'${rule.name}' must be between ${rule.min} and ${rule.max ?? rule.min}.`,
        ]);
      }
      delete policy[rule.name];
      continue;
    }
    policy[rule.name] = checkRange(rule.name, parseInteger(rule.name, text), rule.min, rule.max);
  }
}

export const organizationRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/assignCategorySchema',
    handle({ state, params, rawBody, caller }) {
      requireAdminOrPrivilege(caller, UPDATE_CATEGORY_SCHEMA_PRIVILEGE, 'assignCategorySchema (organization)');
      state.organization.categorySchema = parseCategorySchema(categorySchemaText(params, rawBody), ORGANIZATION_LIMITS);
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/deleteMemberCategorySchema',
    handle({ state, caller }) {
      requireAdminOrPrivilege(caller, UPDATE_USERS_PRIVILEGE, 'deleteMemberCategorySchema');
      if (state.organization.memberCategorySchema === null) throw notFound();
      state.organization.memberCategorySchema = null;
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/securityPolicy/update',
    handle({ state, params, caller, now }) {
      requireVersion(state.organization, 'securityPolicy/update', '10.4');
      requireDefaultAdmin(caller, 'securityPolicy/update');
      updatePolicy(state.organization.securityPolicy, params);
      state.organization.securityPolicyModified = now;
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/removeResource',
    handle({ state, params, caller }) {
      requireDefaultAdmin(caller, 'removeResource');
      const key = requireParam(params, 'key');
      const index = state.organization.resources.findIndex((resource) => resource.key === key);
      if (index < 0) throw notFound();
      state.organization.resources.splice(index, 1);
      return success();
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/categorySchema',
    handle({ state }) {
      return json({ categorySchema: state.organization.categorySchema });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/memberCategorySchema',
    handle({ state }) {
      const schema = state.organization.memberCategorySchema;
      return json(schema === null ? {} : { memberCategorySchema: schema });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/securityPolicy',
    handle({ state }) {
      const policy: Record<string, unknown> = {};
      for (const rule of POLICY_RULES) {
        const value = state.organization.securityPolicy[rule.name];
        if (value !== undefined && value !== null) policy[rule.name] = value;
      }
      const modified = state.organization.securityPolicyModified;
      const type = modified === -1 ? 'default' : 'custom';
      return json({ passwordPolicy: { type, ...policy, created: modified, modified } });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/resources',
    handle({ state, params }) {
      const resources = state.organization.resources.map(({ key, size, created }) => ({ key, size, created }));
      return json(page(params, resources, 'resources'));
    },
  },
];
