/**
 * E2: the organization's category schema. Value: the declared trees, normalised (normaliseCategories).
 */
import type { DiscoveredObject } from './toolkit/contract.js';
import { defineKind } from './toolkit/define.js';
import type { LiveReader } from '../core/request.js';
import {
  categorySchemaForm,
  categorySchemaContribution,
  categorySchemaValue,
  comparableCategories,
  checkCategorySchema,
  liveCategorySchema,
} from './toolkit/category-schema.js';

export const organizationCategorySchema = defineKind({
  name: 'organization.categorySchema',
  operation: { id: 'E2', name: 'Assign organization category schema' },
  authority: { who: 'default administrators, and custom roles with the portal:admin:updateItemCategorySchema privilege', role: 'defaultAdministrator', privilege: 'portal:admin:updateItemCategorySchema' },
  config: [categorySchemaContribution('organization', "E2: the organization's content category schema. Titles and descriptions up to 100 and 300 characters.", { owner: 'organization' })],
  check(obj, ctx) {
    return checkCategorySchema(obj, ctx, { owner: 'organization' });
  },
  live: { one: (_obj, reader) => reader.get('/portals/self/categorySchema') },
  value: categorySchemaValue,
  request: { path: () => '/portals/self/assignCategorySchema', form: categorySchemaForm },
  discover: discoverOrganizationCategorySchema,
});

/** For import: the organization's schema, when it has one. */
async function discoverOrganizationCategorySchema(reader: LiveReader): Promise<DiscoveredObject[]> {
  const trees = liveCategorySchema(await reader.get('/portals/self/categorySchema'));
  if (!Array.isArray(trees)) return [];
  return [{ path: [{ container: 'organization' }], fields: { categorySchema: comparableCategories(trees) } }];
}
