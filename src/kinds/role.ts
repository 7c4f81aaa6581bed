/**
 * E10: a custom role's name and description. Value: the declared fields, e.g. `{ description: '...' }`.
 */
import { NotOnPortalError, type DesiredObject, type DiscoveredObject, type Kind } from './contract.js';
import { type JsonObject, type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import { pathId } from './live.js';
import { deepEqual } from '../core/json.js';
import { isObject, pick } from './support.js';
import { oneLine, textOf } from './discover.js';

const fields = ['name', 'description'];

/** The API treats a missing description like an empty one. */
const comparable = (value: JsonValue | undefined): JsonValue => (value === undefined || value === null ? '' : value);

const rolePath = (obj: DesiredObject): string => `/portals/self/roles/${pathId(obj, 'roleId')}`;
const ROLES_PATH = '/portals/self/roles';

export const role = {
  name: 'role',
  operation: { id: 'E10', name: 'Update role' },
  authority: { who: 'default organization administrators', role: 'defaultAdministrator' },
  config: [
    {
      container: 'role',
      properties: {
        name: { type: 'string', minLength: 1, description: 'E10: role name.' },
        description: { type: 'string', description: 'E10: role description.' },
      },
      extract(entry, scope, declare) {
        const value = pick(entry, fields);
        if (Object.keys(value).length === 0) return;
        declare.object({ address: scope.address, ids: scope.ids, value, absent: false, path: [] });
      },
      addressOf: (_entry, scope) => scope.address,
    },
  ],
  check() {
    return [];
  },
  /** From the roles list (one memoised read serves every declared role), as import reads them. */
  async read(obj, reader) {
    const roles = (await reader.list(ROLES_PATH, 'roles')) ?? [];
    const live = roles.find((role) => role['id'] === obj.ids['roleId']);
    if (!live) throw new NotOnPortalError(`role ${obj.ids['roleId']}`);
    if (!isObject(obj.value)) return null;
    const projected: JsonObject = {};
    for (const field of Object.keys(obj.value)) {
      const value = live[field];
      projected[field] = value === undefined ? null : value;
    }
    return projected;
  },
  inSync(desired, live) {
    if (!isObject(desired.value) || !isObject(live)) return false;
    return Object.entries(desired.value).every(([field, value]) => deepEqual(comparable(value), comparable(live[field])));
  },
  change(desired, live) {
    const form: Record<string, string> = {};
    if (isObject(desired.value)) {
      for (const field of fields) {
        const value = desired.value[field];
        if (typeof value === 'string') form[field] = value;
      }
    }
    return {
      action: 'update',
      before: live,
      after: desired.value,
      request: { method: 'POST', path: `${rolePath(desired)}/update`, form, response: 'json', idempotent: true },
    };
  },
  discover: discoverRoles,
  dependsOn() {
    return [];
  },
} satisfies Kind;

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
