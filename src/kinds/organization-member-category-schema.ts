/**
 * E5: removal of the organization's member category schema. The API has no assign operation,
 * so `absent` is the only value. Value: null (absent).
 */
import type { DiscoveredObject, Kind } from './contract.js';
import type { LiveReader } from '../core/request.js';
import { normaliseCategories } from './category-schema.js';
import { oneLine, textOf } from './discover.js';
import { jsonPost, removal, removedInSync } from './live.js';
import { absentKeyword, isObject } from './support.js';

export const organizationMemberCategorySchema = {
  name: 'organization.memberCategorySchema',
  operation: { id: 'E5', name: 'Delete member category schema' },
  authority: { who: 'default administrative role, and custom roles with the portal:admin:updateUsers privilege', role: 'defaultAdministrator', privilege: 'portal:admin:updateUsers' },
  config: [
    {
      container: 'organization',
      properties: {
        memberCategorySchema: {
          ...absentKeyword,
          description: 'E5: `absent` removes the member category schema (the API cannot assign one).',
        },
      },
      extract(entry, scope, declare) {
        if (entry['memberCategorySchema'] !== 'absent') return;
        declare.object({
          address: 'organization.memberCategorySchema',
          ids: scope.ids,
          value: null,
          absent: true,
          path: ['memberCategorySchema'],
        });
      },
    },
  ],
  check() {
    return [];
  },
  async read(_obj, reader) {
    // Without a schema the portal omits the property, answers an empty list, or answers 404
    // (the documented shape is not known): all mean already absent.
    const schema = (await reader.get('/portals/self/memberCategorySchema'))?.['memberCategorySchema'];
    return Array.isArray(schema) && schema.length > 0 ? normaliseCategories(schema) : null;
  },
  inSync: removedInSync,
  change(_desired, live) {
    return removal(live, jsonPost('/portals/self/deleteMemberCategorySchema'));
  },
  discover: discoverMemberCategorySchema,
  dependsOn() {
    return [];
  },
} satisfies Kind;

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
