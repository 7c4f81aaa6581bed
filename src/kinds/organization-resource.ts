/**
 * E12: removal of portal file resources. `resources.absent` lists keys to remove (value null,
 * absent); `resources.keep` lists keys that stay; `prune: true` removes every other resource
 * (a prune declaration whose keys are keep + absent).
 */
import type { DesiredObject, DiscoveredObject, PruneDeclaration } from './toolkit/contract.js';
import { defineKind } from './toolkit/define.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { oneLine, textOf } from './toolkit/discover.js';
import { requiredId } from './toolkit/live.js';

const keyList = (description: string) => ({
  type: 'array',
  description,
  items: { type: 'string', minLength: 1 },
});

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((key): key is string => typeof key === 'string') : [];
}

export const organizationResource = defineKind({
  name: 'organization.resource',
  operation: { id: 'E12', name: 'Remove portal resource' },
  authority: { who: 'the administrator', role: 'administrator' },
  config: [
    {
      container: 'organization',
      properties: {
        resources: {
          type: 'object',
          additionalProperties: false,
          description: "E12: the portal's file resources, by key.",
          properties: {
            absent: keyList('Resource keys to remove.'),
            keep: keyList('Resource keys that stay (only meaningful with prune).'),
            prune: {
              type: 'boolean',
              description: 'true: remove every resource not listed in keep or absent (destructive; apply needs --allow-destructive).',
            },
          },
        },
      },
      extract(entry, scope, declare) {
        const resources = entry['resources'];
        if (typeof resources !== 'object' || resources === null || Array.isArray(resources)) return;
        const absent = strings(resources['absent']);
        absent.forEach((key, index) => {
          declare.object({
            address: `organization.resource[${key}]`,
            ids: { ...scope.ids, key },
            value: null,
            absent: true,
            path: ['resources', 'absent', index],
          });
        });
        if (resources['prune'] === true) {
          declare.prune({
            collection: 'organization.resource',
            kind: 'organization.resource',
            ids: scope.ids,
            keys: [...strings(resources['keep']), ...absent],
            path: ['resources', 'prune'],
          });
        }
      },
      addressOf(entry, scope, path) {
        const resources = entry['resources'];
        const key = path[1] === 'absent' && typeof path[2] === 'number' && typeof resources === 'object' && resources !== null && !Array.isArray(resources)
          ? strings(resources['absent'])[path[2]]
          : undefined;
        return key === undefined ? 'organization.resource' : `organization.resource[${key}]`;
      },
    },
  ],
  /** `{ key, size, created }` of the resource while it exists; null once it is gone. */
  live: { list: { path: () => RESOURCES_PATH, itemsField: 'resources', keyOf: (entry) => textOf(entry['key']), idOf: (obj) => obj.ids['key'] } },
  removal: { view: resourceView },
  request: { path: () => '/portals/self/removeResource', form: (desired) => ({ key: requiredId(desired, 'key') }) },
  label: (record) => textOf(record['key']),
  discover: discoverResources,
  /** Every live resource whose key is neither kept nor declared absent: a destructive removal. */
  async prune(declaration: PruneDeclaration, reader: LiveReader): Promise<DesiredObject[]> {
    const keep = new Set(declaration.keys);
    return (await listResources(reader))
      .map((resource) => resource['key'])
      .filter((key): key is string => typeof key === 'string' && !keep.has(key))
      .map((key) => ({
        kind: declaration.kind,
        address: `${declaration.collection}[${key}]`,
        ids: { ...declaration.ids, key },
        value: null,
        absent: true,
        destructive: true,
        source: declaration.source,
      }));
  },
});

const RESOURCES_PATH = '/portals/self/resources';

/** The whole paged list, read once per plan (the reader memoises it) for every resource object. */
async function listResources(reader: LiveReader): Promise<JsonObject[]> {
  return (await reader.list(RESOURCES_PATH, 'resources')) ?? [];
}

function resourceView(resource: JsonObject): JsonObject {
  const view: JsonObject = { key: resource['key'] ?? null };
  for (const field of ['size', 'created']) {
    const value = resource[field];
    if (value !== undefined) view[field] = value;
  }
  return view;
}

/** For import: resources can only be removed, so each existing one is only named. */
async function discoverResources(reader: LiveReader): Promise<DiscoveredObject[]> {
  const notes = (await listResources(reader)).flatMap((resource) => {
    const key = textOf(resource['key']);
    if (key === undefined) return [];
    const size = typeof resource['size'] === 'number' ? ` (${resource['size']} bytes)` : '';
    return [oneLine(`resources: ${key}${size}`)];
  });
  if (notes.length === 0) return [];
  return [{ path: [{ container: 'organization' }], fields: {}, notes: ['resources can only be removed (resources.absent):', ...notes] }];
}
