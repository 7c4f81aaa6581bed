/**
 * E1: a group's category schema. Value: the declared trees, normalised (normaliseCategories).
 */
import type { DiscoveredObject, PortalFacts } from './toolkit/contract.js';
import { defineKind } from './toolkit/define.js';
import { type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import {
  categorySchemaForm,
  categorySchemaContribution,
  categorySchemaValue,
  comparableCategories,
  checkCategorySchema,
  liveCategorySchema,
} from './toolkit/category-schema.js';
import { pathId } from './toolkit/live.js';
import { problem, selfManagedVersionBelow } from './toolkit/support.js';
import { liveVersionBelow, mapLimited, ownedName, textOf } from './toolkit/discover.js';
import { organizationQuery } from './toolkit/collaboration-live.js';
import { nameField, namesFromList } from './toolkit/names.js';

export const groupCategorySchema = defineKind({
  name: 'group.categorySchema',
  operation: { id: 'E1', name: 'Assign group category schema' },
  config: [categorySchemaContribution('group', "E1: the group's content category schema (self-managed 10.6.1 or later). Titles under 100 characters, descriptions under 300.", { owner: 'group' })],
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
  live: {
    one: (obj, reader) => reader.get(`/community/groups/${pathId(obj, 'groupId')}/categorySchema`),
    missing: (obj) => `group ${obj.ids['groupId']}`,
  },
  value: categorySchemaValue,
  request: { path: (desired) => `/community/groups/${pathId(desired, 'groupId')}/assignCategorySchema`, form: categorySchemaForm },
  // The schema's answer does not name the group: the organization's group list does, read once.
  labelList: {
    path: async (_obj, reader) => `/community/groups?${await organizationQuery(reader)}`,
    itemsField: 'results',
    keyOf: (entry) => textOf(entry['id']),
    idOf: (obj) => obj.ids['groupId'],
    labelOf: (entry) => ownedName(entry),
  },
  // `groups: [{ id: { title: Public Works, owner: jsmith } }]`: from the organization's group list.
  names: [
    namesFromList({
      container: 'group',
      noun: 'group',
      fields: [nameField('title', "The group's title."), nameField('owner', "The group's owner, where titles repeat.", false)],
      path: async (reader) => `/community/groups?${await organizationQuery(reader)}`,
      itemsField: 'results',
    }),
  ],
  discover: discoverGroupCategorySchemas,
});

/** For import: each group's non-empty schema; a group with an empty one is only named (an empty schema is invalid config). */
async function discoverGroupCategorySchemas(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.6.1')) return [];
  // Group search needs `q`: `orgid:<id>` lists the organization's groups.
  const groups = (await reader.list(`/community/groups?${await organizationQuery(reader)}`, 'results')) ?? [];
  const found = await mapLimited(groups, async (group): Promise<DiscoveredObject | undefined> => {
    const id = textOf(group['id']);
    if (id === undefined) return undefined;
    const answer = await reader.get(`/community/groups/${encodeURIComponent(id)}/categorySchema`);
    if (answer === undefined) return undefined;
    const trees: JsonValue = liveCategorySchema(answer);
    const name = ownedName(group);
    if (!Array.isArray(trees)) {
      return {
        path: [{ container: 'group' }],
        fields: {},
        notes: [`group ${id} ${name}: its category schema is empty; not imported (an empty schema is invalid config).`],
      };
    }
    return { path: [{ container: 'group', key: id, comment: name }], fields: { categorySchema: comparableCategories(trees) } };
  });
  return found.filter((entry): entry is DiscoveredObject => entry !== undefined);
}
