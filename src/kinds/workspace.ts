/**
 * E9: a collaboration workspace's info. Value: the declared fields among name, description,
 * maxItemSizeInMB, maxReplicationPackageSizeInMB and copyByRefIfCopyFail.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { DiscoveredObject, PortalFacts } from './toolkit/contract.js';
import { entryFields } from './toolkit/config-entries.js';
import { defineKind, type ManagedField } from './toolkit/define.js';
import { type JsonObject, type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import { collaborationVersionGate } from './toolkit/collaboration-gates.js';
import { missingWorkspace, workspacePath, workspacesPath } from './toolkit/collaboration-live.js';
import { characterCount, isObject, problem, selfManagedVersionBelow } from './toolkit/support.js';
import { collaborationsSeen, liveVersionBelow, oneLine, textOf, workspacesOf } from './toolkit/discover.js';
import { nameField, namesFromList } from './toolkit/names.js';

const sizeSettings = ['maxItemSizeInMB', 'maxReplicationPackageSizeInMB', 'copyByRefIfCopyFail'];
const nameLimit = 100;
const descriptionLimit = 250;
const textLimits: Record<string, number> = { name: nameLimit, description: descriptionLimit };

/** A live setting typed as the config declares it (a server may answer numbers or flags as text). */
function liveSetting(field: string, value: JsonValue | undefined): JsonValue {
  if (value === undefined || value === null) return null;
  if (field === 'copyByRefIfCopyFail' && typeof value === 'string') return value === 'true';
  if (field.startsWith('max') && typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
  return value;
}

/** A missing name or description reads like an empty one. */
const text: ManagedField = { compare: (value) => (value === undefined || value === null ? '' : value) };

/** A size setting: in `config` (wire facts; a flat answer is accepted too), typed as the config declares it. */
const sizeSetting = (field: string): ManagedField => ({
  read: (live) => liveSetting(field, (isObject(live['config']) ? live['config'][field] : undefined) ?? live[field]),
  compare: (value) => liveSetting(field, value),
});

export const workspace = defineKind({
  name: 'collaboration.workspace',
  operation: { id: 'E9', name: 'Update collaboration workspace info' },
  authority: { who: 'capability Administrator (host)', role: 'administrator' },
  config: [
    entryFields('workspace', {
      name: { type: 'string', maxLength: nameLimit, description: 'E9: workspace name, at most 100 characters.', examples: ['Shared basemaps'] },
      description: { type: 'string', maxLength: descriptionLimit, description: 'E9: workspace description, at most 250 characters.', examples: ['County basemaps shared with neighbours'] },
      maxItemSizeInMB: { type: 'integer', description: 'E9: largest feature layer item shared as a copy, in MB (10.6 or later).' },
      maxReplicationPackageSizeInMB: { type: 'integer', description: 'E9: largest replication package, in MB (10.6 or later).' },
      copyByRefIfCopyFail: { type: 'boolean', description: 'E9: share by reference when a copy fails (10.6 or later).' },
    }),
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = collaborationVersionGate(obj, ctx, 'Updating workspace info (E9)');
    if (!isObject(obj.value)) return diagnostics;
    const name = obj.value['name'];
    if (typeof name === 'string' && name.trim() === '') {
      diagnostics.push(
        problem(ctx, obj, ['name'], {
          code: 'workspace/empty-name',
          message: "A workspace's name cannot be empty (or only spaces).",
          value: name,
          expected: 'a name with at least one visible character, or leave name out to keep the current one',
        }),
      );
    }
    for (const [field, limit] of Object.entries(textLimits)) {
      const text = obj.value[field];
      if (typeof text === 'string' && characterCount(text) > limit) {
        diagnostics.push(
          problem(ctx, obj, [field], {
            code: `workspace/${field}-too-long`,
            message: `A workspace ${field} has at most ${limit} characters; this one has ${characterCount(text)}.`,
            value: text,
            expected: `at most ${limit} characters`,
          }),
        );
      }
    }
    if (selfManagedVersionBelow(ctx, '10.6')) {
      for (const field of sizeSettings.filter((name) => isObject(obj.value) && obj.value[name] !== undefined)) {
        diagnostics.push(
          problem(ctx, obj, [field], {
            code: 'version/workspace-size-settings',
            message: `${field} was added in 10.6; the portal is ${ctx.portal.version}.`,
            value: obj.value[field],
            expected: 'portal.version 10.6 or later, or leave the field out',
          }),
        );
      }
    }
    return diagnostics;
  },
  live: {
    one: (obj, reader) => reader.get(workspacePath(obj.ids)),
    list: { path: (obj) => workspacesPath(obj.ids), itemsField: 'workspaces', keyOf: (entry) => textOf(entry['id']), idOf: (obj) => obj.ids['workspaceId'] },
    missingEnclosing: missingWorkspace,
  },
  fields: { name: text, description: text, ...Object.fromEntries(sizeSettings.map((field) => [field, sizeSetting(field)])) },
  request: { path: (desired) => `${workspacePath(desired.ids)}/updateInfo` },
  label: (live) => textOf(live['name']),
  // `collaborations: [{ id: { name: ... }, workspaces: [{ id: { name: ... } }] }]`: the
  // collaborations list, then the collaboration's workspaces list (which E9 reads too).
  names: [
    namesFromList({ container: 'collaboration', noun: 'collaboration', fields: [nameField('name', "The collaboration's name.")], path: () => '/portals/self/collaborations', itemsField: 'collaborations' }),
    namesFromList({ container: 'workspace', noun: 'workspace', fields: [nameField('name', "The workspace's name.")], path: (_reader, parent) => workspacesPath(parent), itemsField: 'workspaces' }),
  ],
  discover: discoverWorkspaces,
});

/**
 * For import: each workspace of the collaborations this organization hosts, with its name,
 * description and (from 10.6) size settings. Collaborations hosted elsewhere are only named.
 */
async function discoverWorkspaces(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.5')) return [];
  const { hosted, guestNotes } = await collaborationsSeen(reader);
  const found: DiscoveredObject[] = guestNotes.length > 0 ? [{ path: [{ container: 'collaboration' }], fields: {}, notes: guestNotes }] : [];
  const withSizes = !liveVersionBelow(portal, '10.6');
  for (const collaboration of hosted) {
    for (const live of await workspacesOf(reader, collaboration)) {
      const id = textOf(live['id']);
      if (id === undefined) continue;
      const fields: JsonObject = {};
      for (const field of ['name', 'description']) {
        if (typeof live[field] === 'string') fields[field] = live[field];
      }
      const config = isObject(live['config']) ? live['config'] : {};
      for (const field of withSizes ? sizeSettings : []) {
        const value = liveSetting(field, config[field] ?? live[field]);
        if (field === 'copyByRefIfCopyFail' ? typeof value === 'boolean' : Number.isInteger(value)) fields[field] = value;
      }
      const name = textOf(live['name']);
      found.push({
        path: [
          { container: 'collaboration', key: collaboration.id, comment: collaboration.name },
          { container: 'workspace', key: id, ...(name ? { comment: oneLine(name) } : {}) },
        ],
        fields,
      });
    }
  }
  return found;
}
