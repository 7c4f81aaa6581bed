/**
 * E1: a group's category schema. Value: the declared trees, normalised (normaliseCategories).
 */
import type { Kind } from '../engine/kind.js';
import {
  categorySchemaForm,
  categorySchemaSchema,
  categorySchemasInSync,
  checkCategorySchema,
  liveCategorySchema,
  normaliseCategories,
} from './category-schema.js';
import { jsonPost, pathId } from './live.js';
import { problem, selfManagedVersionBelow } from './support.js';

export const groupCategorySchema = {
  name: 'group.categorySchema',
  operation: { id: 'E1', name: 'Assign group category schema' },
  config: [
    {
      container: 'group',
      properties: {
        categorySchema: categorySchemaSchema(
          "E1: the group's content category schema (self-managed 10.6.1 or later). Titles under 100 characters, descriptions under 300.",
        ),
      },
      extract(entry, scope, declare) {
        const trees = entry['categorySchema'];
        if (!Array.isArray(trees)) return;
        declare.object({
          address: `${scope.address}.categorySchema`,
          ids: scope.ids,
          value: normaliseCategories(trees),
          absent: false,
          path: ['categorySchema'],
        });
      },
    },
  ],
  check(obj, ctx) {
    const diagnostics = checkCategorySchema(obj, ctx, { owner: 'group' });
    if (selfManagedVersionBelow(ctx, '10.6.1')) {
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'version/group-category-schema',
          message: `Group category schemas (E1) exist from 10.6.1; the portal is ${ctx.portal.version}.`,
          value: ctx.portal.version,
          expected: 'portal.version 10.6.1 or later',
        }),
      );
    }
    return diagnostics;
  },
  async read(obj, reader) {
    return liveCategorySchema(await reader.get(`/community/groups/${pathId(obj, 'groupId')}/categorySchema`));
  },
  inSync(desired, live) {
    return categorySchemasInSync(desired.value, live);
  },
  change(desired, live) {
    return {
      action: 'update',
      before: live,
      after: desired.value,
      request: jsonPost(`/community/groups/${pathId(desired, 'groupId')}/assignCategorySchema`, categorySchemaForm(desired.value)),
    };
  },
  dependsOn() {
    return [];
  },
} satisfies Kind;
