/**
 * E2: the organization's category schema. Value: the declared trees, normalised (normaliseCategories).
 */
import type { DiscoveredObject, Kind } from './contract.js';
import type { LiveReader } from '../core/request.js';
import {
  categorySchemaForm,
  categorySchemaContribution,
  categorySchemasInSync,
  comparableCategories,
  checkCategorySchema,
  liveCategorySchema,
} from './category-schema.js';
import { jsonPost } from './live.js';

export const organizationCategorySchema = {
  name: 'organization.categorySchema',
  operation: { id: 'E2', name: 'Assign organization category schema' },
  authority: { who: 'default administrators, and custom roles with the portal:admin:updateItemCategorySchema privilege', role: 'defaultAdministrator', privilege: 'portal:admin:updateItemCategorySchema' },
  config: [categorySchemaContribution('organization', "E2: the organization's content category schema. Titles and descriptions up to 100 and 300 characters.")],
  check(obj, ctx) {
    return checkCategorySchema(obj, ctx, { owner: 'organization' });
  },
  async read(_obj, reader) {
    return liveCategorySchema(await reader.get('/portals/self/categorySchema'));
  },
  inSync(desired, live) {
    return categorySchemasInSync(desired.value, live);
  },
  change(desired, live) {
    return {
      action: 'update',
      before: live,
      after: desired.value,
      request: jsonPost('/portals/self/assignCategorySchema', categorySchemaForm(desired.value)),
    };
  },
  discover: discoverOrganizationCategorySchema,
  dependsOn() {
    return [];
  },
} satisfies Kind;

/** For import: the organization's schema, when it has one. */
async function discoverOrganizationCategorySchema(reader: LiveReader): Promise<DiscoveredObject[]> {
  const trees = liveCategorySchema(await reader.get('/portals/self/categorySchema'));
  if (!Array.isArray(trees)) return [];
  return [{ path: [{ container: 'organization' }], fields: { categorySchema: comparableCategories(trees) } }];
}
