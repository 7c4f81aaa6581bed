/**
 * E5: removal of the organization's member category schema. The API has no assign operation,
 * so `absent` is the only value. Value: null (absent).
 */
import type { Kind } from '../engine/kind.js';
import { normaliseCategories } from './category-schema.js';
import { jsonPost } from './live.js';
import { absentKeyword } from './support.js';

export const organizationMemberCategorySchema = {
  name: 'organization.memberCategorySchema',
  operation: { id: 'E5', name: 'Delete member category schema' },
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
    // Without a schema the portal omits the property, or answers 404: both mean already absent.
    const schema = (await reader.get('/portals/self/memberCategorySchema'))?.['memberCategorySchema'];
    return Array.isArray(schema) ? normaliseCategories(schema) : null;
  },
  inSync(desired, live) {
    return desired.absent ? live === null : live !== null;
  },
  change(_desired, live) {
    return { action: 'delete', before: live, after: null, request: jsonPost('/portals/self/deleteMemberCategorySchema') };
  },
  dependsOn() {
    return [];
  },
} satisfies Kind;
