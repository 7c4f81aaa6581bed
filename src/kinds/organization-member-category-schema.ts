/**
 * E5: removal of the organization's member category schema. The API has no assign operation,
 * so `absent` is the only value. Value: null (absent).
 */
import type { DiscoveredObject } from './toolkit/contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import { absentProperty } from './toolkit/config-entries.js';
import { defineKind } from './toolkit/define.js';
import type { LiveReader } from '../core/request.js';
import { normaliseCategories } from './toolkit/category-schema.js';
import { oneLine, textOf } from './toolkit/discover.js';
import { isObject } from './toolkit/support.js';

export const organizationMemberCategorySchema = defineKind({
  name: 'organization.memberCategorySchema',
  operation: { id: 'E5', name: 'Delete member category schema' },
  authority: { who: 'default administrative role, and custom roles with the portal:admin:updateUsers privilege', role: 'defaultAdministrator', privilege: 'portal:admin:updateUsers' },
  config: [absentProperty('organization', 'memberCategorySchema', 'E5: `absent` removes the member category schema (the API cannot assign one).')],
  // Without a schema the portal omits the property, answers an empty list, or answers 404
  // (the documented shape is not known): all mean already absent.
  live: { one: async (_obj, reader) => existingSchema(await reader.get('/portals/self/memberCategorySchema')) },
  removal: { view: (record) => viewOf(record['memberCategorySchema']) },
  request: { path: () => '/portals/self/deleteMemberCategorySchema', form: () => ({}) },
  discover: discoverMemberCategorySchema,
});

/** The schema as shown before its removal; the live read only gives records that hold one (null: none). */
function viewOf(schema: JsonValue | undefined): JsonValue {
  return Array.isArray(schema) ? normaliseCategories(schema) : null;
}

/** The answer when it holds a non-empty schema, else undefined (no schema). */
function existingSchema(answer: JsonObject | undefined): JsonObject | undefined {
  const schema = answer?.['memberCategorySchema'];
  return Array.isArray(schema) && schema.length > 0 ? answer : undefined;
}

/** For import: the schema cannot be assigned, only removed, so an existing one is only named. */
async function discoverMemberCategorySchema(reader: LiveReader): Promise<DiscoveredObject[]> {
  const schema = (await reader.get('/portals/self/memberCategorySchema'))?.['memberCategorySchema'];
  if (!Array.isArray(schema) || schema.length === 0) return [];
  const trees = schema.map((tree) => (isObject(tree) ? (textOf(tree['title']) ?? '(untitled)') : '(untitled)'));
  return [
    {
      path: [{ container: 'organization' }],
      fields: {},
      notes: [oneLine(`memberCategorySchema: exists (${trees.join(', ')}); the API can only remove it (memberCategorySchema: absent).`)],
    },
  ];
}
