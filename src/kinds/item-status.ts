/**
 * E3: an item's content status. Value: the status string, or null for `none` (no status; the
 * live half clears it with an empty status and clearEmptyFields=true).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { DiscoveredObject, PortalFacts } from './toolkit/contract.js';
import { entryProperty } from './toolkit/config-entries.js';
import { defineKind } from './toolkit/define.js';
import { type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import { pathId } from './toolkit/live.js';
import { problem } from './toolkit/support.js';
import { ownedName, textOf } from './toolkit/discover.js';
import { organizationQuery } from './toolkit/collaboration-live.js';
import { nameField, namesFromList } from './toolkit/names.js';

export const itemStatusValues = ['org_authoritative', 'public_authoritative', 'deprecated', 'none'] as const;

const authoritative: ReadonlySet<JsonValue> = new Set(['org_authoritative', 'public_authoritative']);
const statuses: ReadonlySet<string> = new Set(itemStatusValues);

/** `contentStatus` as read: absent and "" both mean no status. */
function liveStatus(value: JsonValue | undefined): JsonValue {
  return typeof value === 'string' && value !== '' ? value : null;
}

export const itemStatus = defineKind({
  name: 'item.status',
  operation: { id: 'E3', name: 'Set content status' },
  authority: { who: 'item owner or organization administrator, holding a role with the portal:admin:updateItems privilege', role: 'administrator', privilege: 'portal:admin:updateItems' },
  config: [
    entryProperty(
      'item',
      'status',
      {
        enum: [...itemStatusValues],
        description: 'E3: org_authoritative | public_authoritative (public, identity-verified organizations only) | deprecated | none (no status).',
      },
      (status) => (typeof status !== 'string' ? undefined : status === 'none' ? null : status),
    ),
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    if (obj.value !== 'public_authoritative') return diagnostics;
    const { access, isVerified } = ctx.portal;
    if (access === 'private' || isVerified === false) {
      const facts = [access === 'private' ? 'private' : undefined, isVerified === false ? 'not verified' : undefined]
        .filter(Boolean)
        .join(' and ');
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'item-status/public-authoritative-unavailable',
          message: `public_authoritative needs a public, identity-verified organization; this one is ${facts} (CONT_0163).`,
          value: obj.value,
          expected: 'org_authoritative, deprecated or none',
        }),
      );
    }
    return diagnostics;
  },
  live: {
    one: (obj, reader) => reader.get(`/content/items/${pathId(obj, 'itemId')}`),
    // Search needs `q`: `orgid:<id>` lists the organization's items, each with its `contentStatus`.
    list: { path: async (_obj, reader) => `/search?${await organizationQuery(reader)}`, itemsField: 'results', keyOf: (entry) => textOf(entry['id']), idOf: (obj) => obj.ids['itemId'] },
    missing: (obj) => `item ${obj.ids['itemId']}`,
  },
  value: {
    read: (record) => liveStatus(record['contentStatus']),
    // The portal moves an authoritative item between org_ and public_authoritative by itself when
    // it is shared or unshared publicly in a verified organization: that is not a difference.
    compare: (status) => (authoritative.has(status) ? 'authoritative' : liveStatus(status ?? undefined)),
  },
  request: {
    path: (desired) => `/content/items/${pathId(desired, 'itemId')}/setContentStatus`,
    // No status is cleared with an empty one and clearEmptyFields.
    form: (desired) => ({ status: desired.value ?? '', clearEmptyFields: desired.value === null }),
  },
  label: (record) => ownedName(record),
  // `items: [{ id: { title: Parcels, type: Feature Service, owner: jdoe } }]`: from the same search.
  names: [
    namesFromList({
      container: 'item',
      noun: 'item',
      fields: [nameField('title', "The item's title."), nameField('type', "The item's type, e.g. Feature Service."), nameField('owner', "The item's owner.")],
      path: async (reader) => `/search?${await organizationQuery(reader)}`,
      itemsField: 'results',
    }),
  ],
  discover: discoverItemStatuses,
});

/** For import: every item that has a status, named by title and owner. */
async function discoverItemStatuses(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  // Search needs `q`: `orgid:<id>` lists the organization's items; each result carries its `contentStatus`
  // (a `contentstatus:` search field is not documented).
  const items = (await reader.list(`/search?${await organizationQuery(reader)}`, 'results')) ?? [];
  const publicAuthoritativeUnavailable = portal.access === 'private' || portal.isVerified === false;
  return items.flatMap((item): DiscoveredObject[] => {
    const id = textOf(item['id']);
    const status = liveStatus(item['contentStatus']);
    if (id === undefined || typeof status !== 'string' || !statuses.has(status)) return [];
    const name = ownedName(item);
    if (status === 'public_authoritative' && publicAuthoritativeUnavailable) {
      // The kind's own rule rejects it for this organization: name it instead of writing invalid config.
      return [{ path: [{ container: 'item' }], fields: {}, notes: [`item ${id} ${name}: status public_authoritative, which this organization (private or not verified) cannot declare; not imported.`] }];
    }
    return [{ path: [{ container: 'item', key: id, comment: name }], fields: { status } }];
  });
}
