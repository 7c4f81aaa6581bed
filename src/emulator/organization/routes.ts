/**
 * Organization settings: E2 (organization category schema), E5 (delete member category schema),
 * E8 (security policy), E12 (remove portal resource) and their reads; addResource (not one of the
 * fourteen: the documented add-resource page), so that a resource can be uploaded as the vendor's
 * client does it, as multipart/form-data, and read back.
 *
 * | code      | status | condition                                                          |
 * |-----------|--------|--------------------------------------------------------------------|
 * | ORG_1132 or (none) | 400 | E2 category schema rules (category-schema.ts)           |
 * | (none)    | 400    | E2 without `categorySchema` nor a JSON body; E12, addResource without `key`; addResource without a `file` part or `text` |
 * | GWM_0003  | 403    | E2 without default admin / portal:admin:updateItemCategorySchema; E5 without default admin / portal:admin:updateUsers; E8, E12, addResource by a non default administrator |
 * | 404 (none)| 404    | E5 when the organization has no member category schema; E12, resources/<key> unknown key |
 * | (none)    | 400    | E8 a value that is not an integer                                  |
 * | (none)    | 400    | E8 a value out of bounds, or minLength sent empty (it cannot be null) |
 * | (none)    | 400    | "Invalid URL": E8 before 10.4                                                     |
 *
 * Reads: GET /portals/:portalId/categorySchema -> {categorySchema:[...]};
 * GET /portals/:portalId/memberCategorySchema -> {memberCategorySchema:[...]}, or {} when the
 * organization has none (the property is absent, like `hasMemberCategorySchema: false`);
 * GET /portals/:portalId/securityPolicy -> {passwordPolicy:{<set rules only>, type:"custom"}};
 * GET /portals/:portalId/resources -> paged `resources` of {key,size,created};
 * GET /portals/:portalId/resources/:key -> the resource's file (a key holding `/` as %2F: one
 * path segment);
 * POST /portals/:portalId/addResource (key; file as a multipart part, or text; `access` is taken
 * and ignored) -> {success:true}; an existing key is replaced (the documentation does not say).
 * GET /portals/:portalId/settings -> the organization's settings (store.ts `portalSettings`).
 */
import { notFound } from '../errors.js';
import { requireAdminOrPrivilege, requireDefaultAdmin } from '../shared/access.js';
import { ORGANIZATION_LIMITS, parseCategorySchema } from '../shared/category-schema.js';
import { page } from '../shared/paging.js';
import { json, requireParam, success } from '../shared/params.js';
import type { Route } from '../shared/types.js';
import { requireVersion } from '../shared/versions.js';
import { POLICY_RULES, UPDATE_CATEGORY_SCHEMA_PRIVILEGE, UPDATE_USERS_PRIVILEGE, categorySchemaText, resourceUpload } from './rules.js';
import { portalSettings, putResource, resourceFile, updatePolicy } from './store.js';

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
    access: 'write',
    pattern: '/portals/:portalId/addResource',
    handle({ state, params, files, caller, now }) {
      requireDefaultAdmin(caller, 'addResource');
      const key = requireParam(params, 'key');
      putResource(state.organization, key, resourceUpload(params, files), now);
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
    pattern: '/portals/:portalId/settings',
    handle() {
      return json(portalSettings());
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
  {
    access: 'read',
    pattern: '/portals/:portalId/resources/:key',
    handle({ state, pathParams }) {
      const resource = state.organization.resources.find((candidate) => candidate.key === pathParams['key']);
      if (!resource) throw notFound();
      return resourceFile(resource);
    },
  },
];
