/**
 * E10: a custom role's name and description. Value: the declared fields, e.g. `{ description: '...' }`.
 *
 * Role names are unique in the organization, ignoring case (the public documentation, "Configure
 * roles": "The name must be unique within your organization and can contain up to 128 characters.
 * They are case insensitive." — doc.arcgis.com/en/arcgis-online/administer/configure-roles.htm,
 * and the same sentence in Portal for ArcGIS 10.9.1 "Configure member roles"). Two declared roles
 * with one name are refused by `validate`; a rename onto the name of a role the config leaves
 * with it, by `plan` (it needs the live roles), both before anything is written. The same page
 * (Portal for ArcGIS "Configure member roles", enterprise.arcgis.com/en/portal/latest/administer/
 * windows/configure-roles.htm) says names hold up to 128 characters, descriptions up to 250, and
 * "Administrator, Publisher, User, Data Editor, and Viewer cannot be used as names for custom
 * roles"; and the role resource (developers.arcgis.com/rest/users-groups-and-items/role.htm):
 * "Viewer and Data Editor are pre-built custom roles, thus they do not allow to be updated". As no
 * custom role may take those two names, a role listed under one of them is the pre-built one.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { PortalRefusesError, type DesiredObject, type DiscoveredObject, type ReadContext } from './toolkit/contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { defineKind } from './toolkit/define.js';
import { pathId, roleAddress, ROLES_PATH } from './toolkit/live.js';
import { entryFields } from './toolkit/config-entries.js';
import { oneLine, textOf } from './toolkit/discover.js';
import { nameField, namesFromList } from './toolkit/names.js';
import { isObject, problem } from './toolkit/support.js';
import { listed } from '../core/words.js';

/** The API treats a missing description like an empty one. */
const emptyAsBlank = { compare: (value: JsonValue | undefined): JsonValue => (value === undefined || value === null ? '' : value) };

export const role = defineKind({
  name: 'role',
  operation: { id: 'E10', name: 'Update role' },
  authority: { who: 'default organization administrators', role: 'defaultAdministrator' },
  config: [
    entryFields('role', {
      name: { type: 'string', minLength: 1, maxLength: 128, description: 'E10: role name, up to 128 characters.' },
      description: { type: 'string', maxLength: 250, description: 'E10: role description, up to 250 characters.' },
    }),
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    const name = declaredName(obj);
    if (name === undefined) return diagnostics;
    if (name.trim() === '') {
      diagnostics.push(
        problem(ctx, obj, ['name'], { code: 'role/empty-name', message: "A role's name cannot be empty (or only spaces).", value: name, expected: 'a name with at least one visible character' }),
      );
      return diagnostics;
    }
    // Said at the second and later declarations of a name, naming the first.
    const first = firstNamed(ctx.all).get(name.toLowerCase());
    if (first && first.address !== obj.address) {
      diagnostics.push(
        problem(ctx, obj, ['name'], {
          code: 'role/duplicate-name',
          message: `Role names are unique in the organization, ignoring case; ${first.address} is named ${JSON.stringify(declaredName(first))} too, so the portal would refuse one of them.`,
          value: name,
          expected: 'a name no other role has, ignoring case',
        }),
      );
    }
    return diagnostics;
  },
  /** From the roles list (one memoised read serves every declared role), as import reads them. */
  live: {
    list: { path: () => ROLES_PATH, itemsField: 'roles', keyOf: (entry) => textOf(entry['id']), idOf: (obj) => obj.ids['roleId'] },
    missing: (obj) => roleAddress(obj.ids['roleId'] ?? ''),
    refusal: async (record, obj, reader, context) => preBuilt(record, obj) ?? reservedName(record, obj) ?? nameTaken(record, obj, reader, context),
  },
  fields: { name: emptyAsBlank, description: emptyAsBlank },
  request: { path: (desired) => `/portals/self/roles/${pathId(desired, 'roleId')}/update` },
  label: (record) => textOf(record['name']),
  // `roles: [{ id: { name: Field Analyst } }]`: from the same roles list.
  names: [namesFromList({ container: 'role', noun: 'role', fields: [nameField('name', 'The role\'s name.')], path: () => ROLES_PATH, itemsField: 'roles' })],
  discover: discoverRoles,
  dependsOn: renamedAwayFirst,
  ringRefusal: renameRing,
});

const declaredName = (obj: DesiredObject): string | undefined => (isObject(obj.value) && typeof obj.value['name'] === 'string' ? obj.value['name'] : undefined);

/** How the portal compares role names: ignoring case. */
const sameName = (a: string | undefined, b: string | undefined): boolean => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** Names no custom role may take (lower-cased), and of them the pre-built roles' (see the top). */
const RESERVED_NAMES = new Set(['administrator', 'publisher', 'user', 'data editor', 'viewer']);
const PRE_BUILT_NAMES = new Set(['data editor', 'viewer']);

/** The pre-built Viewer and Data Editor cannot be updated: refused when the plan would change one. */
function preBuilt(record: JsonObject, obj: DesiredObject): PortalRefusesError | undefined {
  const liveName = textOf(record['name']);
  if (liveName === undefined || !PRE_BUILT_NAMES.has(liveName.toLowerCase()) || !isObject(obj.value)) return undefined;
  const changed = Object.entries(obj.value).find(([field, value]) => (field === 'name' || field === 'description') && emptyAsBlank.compare(value) !== emptyAsBlank.compare(record[field]));
  if (!changed) return undefined;
  return new PortalRefusesError(
    'role/pre-built',
    `${roleAddress(obj.ids['roleId'] ?? '')} is the pre-built ${JSON.stringify(liveName)} role, which the portal does not let anyone update; this would change its ${changed[0]}.`,
    'the role left as the portal has it (its fields as they are, or not declared), or a custom role of your own',
    [changed[0]],
  );
}

/** A rename onto a default role's name (Administrator, Publisher, User, Data Editor, Viewer). */
function reservedName(record: JsonObject, obj: DesiredObject): PortalRefusesError | undefined {
  const name = declaredName(obj);
  if (name === undefined || sameName(name, textOf(record['name'])) || !RESERVED_NAMES.has(name.toLowerCase())) return undefined;
  return new PortalRefusesError(
    'role/reserved-name',
    `${JSON.stringify(name)} is the name of one of the portal's default roles, which no custom role may take.`,
    'a name other than Administrator, Publisher, User, Data Editor and Viewer (ignoring case)',
    ['name'],
  );
}

/** The first role declared with each name (lower-cased), built once per config's objects. */
const firstByName = new WeakMap<readonly DesiredObject[], Map<string, DesiredObject>>();

function firstNamed(all: readonly DesiredObject[]): Map<string, DesiredObject> {
  let first = firstByName.get(all);
  if (!first) {
    first = new Map();
    for (const obj of all) {
      const name = obj.kind === 'role' ? declaredName(obj) : undefined;
      if (name !== undefined && !first.has(name.toLowerCase())) first.set(name.toLowerCase(), obj);
    }
    firstByName.set(all, first);
  }
  return first;
}

/**
 * Why the portal would refuse the rename: another role has the name (ignoring case) and the
 * config does not rename that role. When it does, this rename waits for that one
 * (renamedAwayFirst), and renames that take each other's names are refused by the plan (renameRing).
 */
async function nameTaken(record: JsonObject, obj: DesiredObject, reader: LiveReader, context: ReadContext | undefined): Promise<PortalRefusesError | undefined> {
  const name = declaredName(obj);
  if (name === undefined || name === textOf(record['name'])) return undefined;
  const roles = (await reader.list(ROLES_PATH, 'roles')) ?? [];
  const holder = roles.find((role) => textOf(role['id']) !== obj.ids['roleId'] && sameName(textOf(role['name']), name));
  const holderId = holder ? textOf(holder['id']) : undefined;
  if (!holder || holderId === undefined) return undefined;
  const renamedAway = (context?.peers ?? []).some((peer) => peer.kind === obj.kind && peer.ids['roleId'] === holderId && declaredName(peer) !== undefined && !sameName(declaredName(peer), name));
  if (renamedAway) return undefined;
  return new PortalRefusesError(
    'role/name-taken',
    `Role names are unique in the organization, ignoring case; ${roleAddress(holderId)} is already named ${JSON.stringify(textOf(holder['name']))}, so the portal would refuse this rename.`,
    'a name no other role has, ignoring case, or the other role renamed in the config as well',
    ['name'],
  );
}

/** The declared roles by the name they have now (lower-cased), for one plan's objects and values. */
const heldNames = new WeakMap<readonly DesiredObject[], WeakMap<ReadonlyMap<string, JsonValue>, Map<string, DesiredObject>>>();

function rolesByHeldName(all: readonly DesiredObject[], live: ReadonlyMap<string, JsonValue>): Map<string, DesiredObject> {
  let byLive = heldNames.get(all);
  if (!byLive) heldNames.set(all, (byLive = new WeakMap()));
  let holders = byLive.get(live);
  if (!holders) {
    holders = new Map();
    for (const obj of all) {
      const value = obj.kind === 'role' ? live.get(obj.address) : undefined;
      const held = isObject(value) ? textOf(value['name']) : undefined;
      if (held !== undefined) holders.set(held.toLowerCase(), obj);
    }
    byLive.set(live, holders);
  }
  return holders;
}

/**
 * A rename onto the name another declared role has now waits for that role's rename away from
 * it: the portal refuses a name another role holds, so the order is the portal's present
 * state's (`live`: read, or recorded with --refresh=false), not the config's.
 */
function renamedAwayFirst(obj: DesiredObject, all: readonly DesiredObject[], live: ReadonlyMap<string, JsonValue>): string[] {
  const name = declaredName(obj);
  if (name === undefined) return [];
  const holder = rolesByHeldName(all, live).get(name.toLowerCase());
  if (!holder || holder.address === obj.address || sameName(declaredName(holder), name)) return [];
  return [holder.address];
}

/**
 * Renames that take each other's names (a swap, or a longer ring): whichever goes first, the
 * portal refuses it, as the next role still has the name. Each role in `ring` takes the name the
 * next one has now (renamedAwayFirst).
 */
function renameRing(obj: DesiredObject, ring: readonly DesiredObject[]): PortalRefusesError {
  const takes = ring.map((role, at) => `${role.address} takes ${JSON.stringify(declaredName(role))} from ${(ring[(at + 1) % ring.length] ?? role).address}`);
  return new PortalRefusesError(
    'role/rename-cycle',
    `Role names are unique in the organization, ignoring case, and these renames go round in a ring: ${listed(takes)}; whichever is sent first, the portal refuses it, as the other role still has the name.`,
    'one of these roles renamed to a temporary name first, in an apply of its own, then the renames',
    ['name'],
  );
}

/**
 * For import: every custom role's name and description (an empty description is left out). The
 * pre-built Viewer and Data Editor are a comment, not entries: no one may update them, so the
 * config holds only roles portalctl can manage.
 */
async function discoverRoles(reader: LiveReader): Promise<DiscoveredObject[]> {
  const roles = (await reader.list(ROLES_PATH, 'roles')) ?? [];
  return roles.flatMap((live): DiscoveredObject[] => {
    const id = textOf(live['id']);
    const name = textOf(live['name']);
    if (id === undefined || name === undefined) return [];
    const path = [{ container: 'role', key: id, comment: oneLine(name) }];
    if (PRE_BUILT_NAMES.has(name.toLowerCase())) {
      return [{ path, fields: {}, notes: [`${roleAddress(id)} ${oneLine(name)}: not imported; a pre-built role, which the portal lets no one update, so portalctl has nothing to manage in it.`] }];
    }
    const description = textOf(live['description']);
    return [{ path, fields: { name, ...(description ? { description } : {}) } }];
  });
}
