/** content: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, Item } from '../state/model.js';
import { compileSearch, conjunction, containsText, matchesNumber, numberRange, sameKeyword, sortedBy, type SearchFields, type SearchOrder, type SearchTerm } from '../shared/search.js';
import type { Listing } from '../shared/paging.js';
import type { Caller } from '../shared/types.js';
import { isRecord } from '../state/json.js';
import { findBy, ListIndex } from '../state/store.js';

export const UPDATE_ITEMS_PRIVILEGE = 'portal:admin:updateItems';

export const VIEW_ITEMS_PRIVILEGE = 'portal:admin:viewItems';

export function itemNotFound(itemId: string): PortalApiError {
  return new PortalApiError(400, 'Item does not exist or is inaccessible.', 'CONT_0001', [`No item with id '${itemId}'.`]);
}

export function maySee(caller: Caller, item: Item): boolean {
  if (item.access === 'public' || item.access === 'org') return true;
  return item.owner === caller.user.username || caller.isDefaultAdmin || caller.hasPrivilege(VIEW_ITEMS_PRIVILEGE);
}

export function findVisibleItem(state: EmulatorState, caller: Caller, itemId: string): Item {
  const item = findBy(state.items, 'id', itemId);
  if (!item || !maySee(caller, item)) throw itemNotFound(itemId);
  return item;
}

export const isAuthoritative = (item: Item): boolean => item.contentStatus === 'org_authoritative' || item.contentStatus === 'public_authoritative';

/** A search result (documented: no `protected`). */
export function resultView(state: EmulatorState, item: Item): Record<string, unknown> {
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

/** The item resource: a search result and more (documented: with `protected`, which authoritative items always are). */
export function itemView(state: EmulatorState, item: Item): Record<string, unknown> {
  return {
    ...resultView(state, item),
    guid: null,
    name: null,
    description: '',
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
    protected: isAuthoritative(item),
    numComments: 0,
    numRatings: 0,
    avgRating: 0,
  };
}

/** Positions of the items everyone in the organization sees, and of each owner's other items. */
const visibility = new ListIndex((committed) => {
  const shared: number[] = [];
  const ownOnly = new Map<string, number[]>();
  committed.forEach((item, position) => {
    if (!isRecord(item)) return;
    if (item.access === 'public' || item.access === 'org') shared.push(position);
    else if (typeof item.owner === 'string') ownOnly.set(item.owner, [...(ownOnly.get(item.owner) ?? []), position]);
  });
  return { shared, ownOnly };
});

/**
 * The search fields of items (Search reference: `id`, `owner`, `orgid`, `accountid`, `type`,
 * `title`, `access`, `tags`; bare terms search title, tags and type, the documented default
 * fields the emulator keeps). `contentstatus` is kept for the wire sample's example query
 * (search.json marks it unverified). Owner values are case-sensitive, as documented.
 */
export function itemSearchFields(state: EmulatorState): SearchFields<Item> {
  const inOrganization = (_item: Item, value: string): boolean => value === '*' || value === state.organization.id;
  return {
    what: 'items',
    fields: {
      id: (item, value) => sameKeyword(item.id, value),
      owner: (item, value) => value === '*' || item.owner === value,
      orgid: inOrganization,
      accountid: inOrganization,
      type: (item, value) => sameKeyword(item.type, value),
      title: (item, value) => containsText(item.title, value),
      access: (item, value) => sameKeyword(item.access, value),
      tags: (item, value) => item.tags.some((tag) => sameKeyword(tag, value)),
      contentstatus: (item, value) => sameKeyword(item.contentStatus ?? '', value),
      created: (item, value) => matchesNumber(item.created, value),
    },
    text: (item, value) => containsText(item.title, value) || item.tags.some((tag) => sameKeyword(tag, value)) || sameKeyword(item.type, value),
  };
}

/** Positions of the items by creation time (then position): the index a window of `created:[A TO B]` reads. */
const createdOrder = new ListIndex((committed) =>
  committed
    .map((item, position) => ({ position, created: isRecord(item) && typeof item['created'] === 'number' ? item['created'] : 0 }))
    .sort((a, b) => a.created - b.created || a.position - b.position),
);

/** The items a search returns, as a lazily read list (only the requested page is copied), in `order` when given. */
export function searchList(state: EmulatorState, caller: Caller, q: string, order?: SearchOrder): Listing<Item> {
  const { node, matches } = compileSearch(q, itemSearchFields(state));
  const terms = conjunction(node);
  const indexed = terms && indexedSearch(state, caller, terms, order);
  if (indexed) return indexed;
  // Any other query filters the organization's items (O(n)) and sorts them when asked.
  const found = state.items.filter((item) => maySee(caller, item) && matches(item));
  return order ? sortedBy(found, order) : found;
}

/**
 * A search answered from an index, O(page) per request, or undefined: the organization's items
 * (`orgid:<id>`, `accountid:<id>`, `*`, joined by AND) in the list's order, through the index of
 * what the caller may see; with one `created` range added (and a caller who sees every item), in
 * order of creation, through the index by creation time.
 */
function indexedSearch(state: EmulatorState, caller: Caller, terms: readonly SearchTerm[], order: SearchOrder | undefined): Listing<Item> | undefined {
  const organization = terms.filter((term) => term.field !== 'created');
  const [range, ...moreRanges] = terms.filter((term) => term.field === 'created');
  if (!organization.every((term) => term.field === 'orgid' || term.field === 'accountid' || (term.field === undefined && term.value === '*'))) return undefined;
  const seesAll = caller.isDefaultAdmin || caller.hasPrivilege(VIEW_ITEMS_PRIVILEGE);
  if (range === undefined ? order !== undefined : moreRanges.length > 0 || !seesAll || (order !== undefined && order.field !== 'created')) return undefined;
  if (organization.some((term) => term.field !== undefined && term.value !== '*' && term.value !== state.organization.id)) return [];
  if (range) {
    const { from, to } = numberRange(range.value);
    const byCreated = createdOrder.of(state.items);
    const positions = byCreated.slice(lowerBound(byCreated, from), lowerBound(byCreated, to + 1)).map((entry) => entry.position);
    return lazyList(order?.descending ? positions.reverse() : positions, (position) => state.items[position]);
  }
  if (seesAll) return state.items;
  const { shared, ownOnly } = visibility.of(state.items);
  const positions = [...shared, ...(caller.app ? [] : (ownOnly.get(caller.user.username) ?? []))];
  return lazyList(positions, (position) => state.items[position]);
}

/** The first index of `sorted` whose creation time is at least `created`. */
function lowerBound(sorted: readonly { created: number }[], created: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle]?.created ?? 0) < created) low = middle + 1;
    else high = middle;
  }
  return low;
}


/** A listing that fetches elements by position on demand (slice reads only its range). */
export function lazyList<T>(positions: readonly number[], at: (position: number) => T | undefined): Listing<T> {
  return {
    length: positions.length,
    slice: (start, end) =>
      positions.slice(start, end).flatMap((position) => {
        const element = at(position);
        return element === undefined ? [] : [element];
      }),
  };
}
