/**
 * Content: E3 (set content status), the item reads, and the automatic status transitions.
 *
 * | code      | status | condition                                                            |
 * |-----------|--------|----------------------------------------------------------------------|
 * | CONT_0001 | 400    | the item does not exist, or the caller may not see it                 |
 * | GWM_0003  | 403    | the caller is neither the item's owner nor a default administrator nor a holder of portal:admin:updateItems |
 * | CONT_0163 | 400    | public_authoritative while the organization is not public and verified|
 * | EMU_0001  | 400    | `status` not sent at all                                             |
 * | EMU_0002  | 400    | clearEmptyFields not true/false                                      |
 * | EMU_0005  | 400    | status not one of deprecated, org_authoritative, public_authoritative |
 * | EMU_0201  | 400    | empty status without clearEmptyFields=true                           |
 *
 * Reads (documented shapes): GET /content/items/:itemId -> the item with `protected` and
 * `contentStatus` ("" when none); GET /search?q=... -> paged `results` without `protected`.
 * `q` is required (400 otherwise); terms `orgid:`, `id:`, `owner:`, `contentstatus:`, `access:`
 * and free text (in the title) are understood. Items with access private or shared are visible
 * only to their owner, default administrators and holders of portal:admin:viewItems.
 *
 * Listing is indexed: `orgid:<id>` alone pages through an index of what the caller may see
 * (O(page) per request); other terms filter the organization's items (O(n)).
 */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, Item, ItemStatus } from '../model.js';
import { forbidden } from './auth.js';
import { page } from './paging.js';
import { badRequest, checkEnum, json, optionalBoolean, optionalParam, success } from './params.js';
import type { Caller, Route } from './types.js';
import { findBy, listIndex } from '../store.js';
import { parseQuery, type QueryTerm } from './params.js';

export const UPDATE_ITEMS_PRIVILEGE = 'portal:admin:updateItems';
export const VIEW_ITEMS_PRIVILEGE = 'portal:admin:viewItems';
const STATUSES: readonly ItemStatus[] = ['deprecated', 'org_authoritative', 'public_authoritative'];

export function itemNotFound(itemId: string): PortalApiError {
  return new PortalApiError(400, 'Item does not exist or is inaccessible.', 'CONT_0001', [`No item with id '${itemId}'.`]);
}

function maySee(caller: Caller, item: Item): boolean {
  if (item.access === 'public' || item.access === 'org') return true;
  return item.owner === caller.user.username || caller.isDefaultAdmin || caller.hasPrivilege(VIEW_ITEMS_PRIVILEGE);
}

function findVisibleItem(state: EmulatorState, caller: Caller, itemId: string): Item {
  const item = findBy(state.items, 'id', itemId);
  if (!item || !maySee(caller, item)) throw itemNotFound(itemId);
  return item;
}

const isAuthoritative = (item: Item): boolean => item.contentStatus === 'org_authoritative' || item.contentStatus === 'public_authoritative';

/** A search result (documented: no `protected`). */
function resultView(state: EmulatorState, item: Item): Record<string, unknown> {
  return {
    id: item.id,
    owner: item.owner,
    orgId: state.organization.id,
    created: item.created,
    modified: item.created,
    title: item.title,
    type: item.type,
    typeKeywords: [item.type],
    tags: [...item.tags],
    access: item.access,
    contentStatus: item.contentStatus ?? '',
    size: 0,
    numViews: 0,
  };
}

/** The item resource (documented: with `protected`, which authoritative items always are). */
function itemView(state: EmulatorState, item: Item): Record<string, unknown> {
  return {
    id: item.id,
    owner: item.owner,
    orgId: state.organization.id,
    created: item.created,
    modified: item.created,
    guid: null,
    name: null,
    title: item.title,
    type: item.type,
    typeKeywords: [item.type],
    description: '',
    tags: [...item.tags],
    snippet: '',
    thumbnail: 'thumbnail/thumbnail.png',
    extent: [
      [-180, -90],
      [180, 90],
    ],
    categories: [...item.categories],
    spatialReference: null,
    accessInformation: null,
    licenseInfo: null,
    culture: 'en-us',
    url: null,
    access: item.access,
    size: 0,
    protected: isAuthoritative(item),
    contentStatus: item.contentStatus ?? '',
    numViews: 0,
    numComments: 0,
    numRatings: 0,
    avgRating: 0,
  };
}

/** Positions of the items everyone in the organization sees, and of each owner's other items. */
function visibilityIndex(items: readonly Item[]): { shared: number[]; ownOnly: Map<string, number[]> } {
  return listIndex(items, 'visibility', (committed) => {
    const shared: number[] = [];
    const ownOnly = new Map<string, number[]>();
    committed.forEach((element, position) => {
      const item = element as Item;
      if (item.access === 'public' || item.access === 'org') shared.push(position);
      else ownOnly.set(item.owner, [...(ownOnly.get(item.owner) ?? []), position]);
    });
    return { shared, ownOnly };
  }).index;
}

/** The items a search returns, as a lazily read list (only the requested page is copied). */
function searchList(state: EmulatorState, caller: Caller, terms: QueryTerm[]): readonly Item[] {
  const orgOnly = terms.every((term) => term.field === 'orgid' || (term.field === undefined && term.value === '*'));
  if (terms.some((term) => term.field === 'orgid' && term.value !== state.organization.id)) return [];
  if (orgOnly) {
    if (caller.isDefaultAdmin || caller.hasPrivilege(VIEW_ITEMS_PRIVILEGE)) return state.items;
    const { shared, ownOnly } = visibilityIndex(state.items);
    const positions = [...shared, ...(caller.app ? [] : (ownOnly.get(caller.user.username) ?? []))];
    return lazyList(positions, (position) => state.items[position]);
  }
  return state.items.filter((item) => maySee(caller, item) && terms.every((term) => matches(item, term)));
}

/** A read-only array view that fetches elements by position on demand (slice reads only its range). */
function lazyList<T>(positions: readonly number[], at: (position: number) => T | undefined): readonly T[] {
  return new Proxy(positions as unknown as T[], {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        const position = positions[Number(key)];
        return position === undefined ? undefined : at(position);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

function matches(item: Item, term: QueryTerm): boolean {
  const value = term.value.toLowerCase();
  switch (term.field) {
    case 'orgid':
      return true;
    case 'id':
      return item.id.toLowerCase() === value;
    case 'owner':
      return item.owner.toLowerCase() === value;
    case 'contentstatus':
      return (item.contentStatus ?? '').toLowerCase() === value;
    case 'access':
      return item.access === value;
    case 'title':
    case undefined:
      return value === '*' || item.title.toLowerCase().includes(value);
    default:
      throw badRequest(`Unsupported search field '${term.field}'.`, 'EMU_0010', ['The emulator understands orgid, id, owner, contentstatus, access and title.']);
  }
}

const searchNeedsQuery = (): PortalApiError =>
  new PortalApiError(400, "'q' parameter is required", undefined, ['A search requires at least one of q, bbox or categories.']);

/**
 * The portal's own status changes, applied when the whole state is replaced (control API):
 * - an org_authoritative item that becomes public in a verified organization -> public_authoritative;
 * - the organization becomes verified -> every org_authoritative item -> public_authoritative
 *   (the spec's transition table: "Automatic, for all such items", no further condition);
 * - a public_authoritative item that stops being public -> org_authoritative.
 * Items are matched by id; items new in `next` had no sharing change and are left alone.
 * Mutates `next`.
 */
export function applyAutomaticTransitions(previous: EmulatorState, next: EmulatorState): void {
  const previousItems = new Map(previous.items.map((item) => [item.id, item]));
  const verified = next.organization.isVerified;
  const becameVerified = verified && !previous.organization.isVerified;
  for (const item of next.items) {
    const before = previousItems.get(item.id);
    const becamePublic = before !== undefined && before.access !== 'public' && item.access === 'public';
    const stoppedBeingPublic = before !== undefined && before.access === 'public' && item.access !== 'public';
    if (item.contentStatus === 'org_authoritative' && (becameVerified || (verified && becamePublic))) {
      item.contentStatus = 'public_authoritative';
    }
    if (item.contentStatus === 'public_authoritative' && stoppedBeingPublic) {
      item.contentStatus = 'org_authoritative';
    }
  }
}

export const contentRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/content/items/:itemId/setContentStatus',
    handle({ state, params, pathParams, caller }) {
      const itemId = pathParams.itemId ?? '';
      const item = findVisibleItem(state, caller, itemId);
      if (item.owner !== caller.user.username && !caller.isDefaultAdmin && !caller.hasPrivilege(UPDATE_ITEMS_PRIVILEGE)) {
        throw forbidden(`Only the item's owner or an administrator with ${UPDATE_ITEMS_PRIVILEGE} may set its status.`);
      }
      const statusText = optionalParam(params, 'status');
      if (statusText === undefined) {
        throw badRequest("Parameter 'status' is required.", 'EMU_0001', [
          'Send a status, or an empty status with clearEmptyFields=true to remove it.',
        ]);
      }
      const clearEmptyFields = optionalBoolean(params, 'clearEmptyFields') ?? false;
      if (statusText === '') {
        if (!clearEmptyFields) {
          throw badRequest('An empty status needs clearEmptyFields=true.', 'EMU_0201', [
            'Send status= together with clearEmptyFields=true to remove the status.',
          ]);
        }
        delete item.contentStatus;
        return success({ itemId: item.id });
      }
      const status = checkEnum('status', statusText, STATUSES);
      if (status === 'public_authoritative' && !(state.organization.access === 'public' && state.organization.isVerified)) {
        throw new PortalApiError(
          400,
          'Unable to update item status to public_authoritative. The organization has to be public and verified.',
          'CONT_0163',
        );
      }
      item.contentStatus = status;
      return success({ itemId: item.id });
    },
  },
  {
    access: 'read',
    pattern: '/content/items/:itemId',
    handle({ state, pathParams, caller }) {
      return json(itemView(state, findVisibleItem(state, caller, pathParams.itemId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/search',
    handle({ state, params, caller }) {
      const q = params['q'] ?? '';
      const results = page(params, searchList(state, caller, parseQuery(params, searchNeedsQuery)), 'results', (item) => resultView(state, item));
      return json({ query: q, ...results });
    },
  },
];
