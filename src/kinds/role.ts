/**
 * E10: a custom role's name and description. Value: the declared fields, e.g. `{ description: '...' }`.
 */
import type { DiscoveredObject } from './toolkit/contract.js';
import type { JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { defineKind } from './toolkit/define.js';
import { pathId } from './toolkit/live.js';
import { entryFields } from './toolkit/config-entries.js';
import { oneLine, textOf } from './toolkit/discover.js';
import { nameField, namesFromList } from './toolkit/names.js';

/** The API treats a missing description like an empty one. */
const emptyAsBlank = { compare: (value: JsonValue | undefined): JsonValue => (value === undefined || value === null ? '' : value) };

const ROLES_PATH = '/portals/self/roles';

export const role = defineKind({
  name: 'role',
  operation: { id: 'E10', name: 'Update role' },
  authority: { who: 'default organization administrators', role: 'defaultAdministrator' },
  config: [
    entryFields('role', {
      name: { type: 'string', minLength: 1, description: 'E10: role name.' },
      description: { type: 'string', description: 'E10: role description.' },
    }),
  ],
  /** From the roles list (one memoised read serves every declared role), as import reads them. */
  live: {
    list: { path: () => ROLES_PATH, itemsField: 'roles', keyOf: (entry) => textOf(entry['id']), idOf: (obj) => obj.ids['roleId'] },
    missing: (obj) => `role ${obj.ids['roleId']}`,
  },
  fields: { name: emptyAsBlank, description: emptyAsBlank },
  request: { path: (desired) => `/portals/self/roles/${pathId(desired, 'roleId')}/update` },
  label: (record) => textOf(record['name']),
  // `roles: [{ id: { name: Field Analyst } }]`: from the same roles list.
  names: [namesFromList({ container: 'role', noun: 'role', fields: [nameField('name', 'The role\'s name.')], path: () => ROLES_PATH, itemsField: 'roles' })],
  discover: discoverRoles,
});

/** For import: every custom role's name and description (an empty description is left out). */
async function discoverRoles(reader: LiveReader): Promise<DiscoveredObject[]> {
  const roles = (await reader.list(ROLES_PATH, 'roles')) ?? [];
  return roles.flatMap((live): DiscoveredObject[] => {
    const id = textOf(live['id']);
    const name = textOf(live['name']);
    if (id === undefined || name === undefined) return [];
    const description = textOf(live['description']);
    return [{ path: [{ container: 'role', key: id, comment: oneLine(name) }], fields: { name, ...(description ? { description } : {}) } }];
  });
}
