/**
 * Paged lists: `start` 1-based (default 1), `num` default 10 and at most 100 (larger values are
 * clamped to 100, smaller than 1 are rejected). The answer is `{total, start, num, nextStart,
 * <key>: [...]}` with `nextStart` -1 on the last page.
 */
import { badRequest, optionalParam, type Params } from './params.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

function pagingInteger(params: Params, name: string, fallback: number): number {
  const text = optionalParam(params, name);
  if (text === undefined || text.trim() === '') return fallback;
  if (!/^\d+$/.test(text.trim()) || Number.parseInt(text, 10) < 1) {
    throw badRequest(`Invalid paging parameter '${name}': '${text}'.`, [`'${name}' must be an integer of at least 1.`]);
  }
  return Number.parseInt(text, 10);
}

/** What paging reads of a list: an array, or a view that fetches only the entries asked for (content/store.ts lazyList). */
export type Listing<T> = Pick<readonly T[], 'length' | 'slice'>;

/**
 * The search operations page through their first 10,000 results only: "Only the first 10,000
 * results can be paginated; results greater than 10,000 cannot be returned through pagination.
 * The actual number of total returned results may be greater than 10,000" (Considerations and
 * limitations, developers.arcgis.com/rest/users-groups-and-items/considerations-and-limitations.htm).
 * `total` is the whole count; the list ends at the 10,000th result, and a page past it is empty.
 */
export const SEARCH_PAGING_LIMIT = 10_000;

/** One page of a search's results: as `page`, with only the first SEARCH_PAGING_LIMIT reachable. */
export function searchPage<T>(params: Params, all: Listing<T>, key: string, view: (entry: T) => unknown = (entry) => entry): Record<string, unknown> {
  return pageWithin(params, all, key, view, SEARCH_PAGING_LIMIT);
}

/**
 * One page of `all`; only the page's entries are viewed (a draft list copies only what it hands
 * out), so paging through a large list costs O(page) per request, not O(list).
 */
export function page<T>(params: Params, all: Listing<T>, key: string, view: (entry: T) => unknown = (entry) => entry): Record<string, unknown> {
  return pageWithin(params, all, key, view, Infinity);
}

/** One page of the first `limit` entries of `all`; `total` is still all of them. */
function pageWithin<T>(params: Params, all: Listing<T>, key: string, view: (entry: T) => unknown, limit: number): Record<string, unknown> {
  const start = pagingInteger(params, 'start', 1);
  const num = Math.min(pagingInteger(params, 'num', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  const reachable = Math.min(all.length, limit);
  const lastShown = Math.min(start - 1 + num, reachable);
  return {
    total: all.length,
    start,
    num,
    nextStart: lastShown >= reachable ? -1 : lastShown + 1,
    [key]: start - 1 < lastShown ? all.slice(start - 1, lastShown).map(view) : [],
  };
}
