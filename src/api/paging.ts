/**
 * Paging of the portal's lists: `start` (1-based) and `num`, following `nextStart` until it is
 * absent or -1 (some documented lists, such as a collaboration's invitations, carry no paging
 * fields at all: one page).
 */
import type { JsonObject } from '../core/json.js';
import { isObject } from '../core/json.js';
import type { Params } from './encoding.js';

const MAX_PAGES = 100_000;

/** Reads one page; `unexpected` builds the error for an answer that is not the list asked for. */
export interface PageSource {
  get(params: Params): Promise<JsonObject>;
  unexpected(what: string): Error;
}

export async function readAllPages(source: PageSource, itemsField: string, params: Params, pageSize: number): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  let start = 1;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await source.get({ ...params, start, num: pageSize });
    const pageItems = answer[itemsField];
    if (pageItems === undefined) {
      // Some lists omit the field when empty; anything else is not the list we asked for.
      if (page === 0 && answer['total'] === undefined) throw source.unexpected(`no "${itemsField}" field in the answer`);
    } else if (!Array.isArray(pageItems)) {
      throw source.unexpected(`"${itemsField}" is not an array`);
    } else {
      for (const item of pageItems) {
        if (!isObject(item)) throw source.unexpected(`an entry of "${itemsField}" is not an object`);
        items.push(item);
      }
    }
    const nextStart = answer['nextStart'];
    // Stop on -1, on a missing value, and on a server that would send us back or in place.
    if (typeof nextStart !== 'number' || nextStart < 0 || nextStart <= start) return items;
    start = nextStart;
  }
  return items;
}
