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

/** The entries of one page, checked; `first` because only the first page may lack the field. */
function entriesOf(source: PageSource, answer: JsonObject, itemsField: string, first: boolean): JsonObject[] {
  const pageItems = answer[itemsField];
  if (pageItems === undefined) {
    // Some lists omit the field when empty; anything else is not the list we asked for.
    if (first && answer['total'] === undefined) throw source.unexpected(`no "${itemsField}" field in the answer`);
    return [];
  }
  if (!Array.isArray(pageItems)) throw source.unexpected(`"${itemsField}" is not an array`);
  for (const item of pageItems) if (!isObject(item)) throw source.unexpected(`an entry of "${itemsField}" is not an object`);
  return pageItems as JsonObject[];
}

/** Where paging goes on after a page that started at `start`; undefined at the end. */
function nextStartOf(answer: JsonObject, start: number): number | undefined {
  const nextStart = answer['nextStart'];
  // Stop on -1, on a missing value, and on a server that would send us back or in place.
  return typeof nextStart !== 'number' || nextStart < 0 || nextStart <= start ? undefined : nextStart;
}

/** Pages one after another from `start`, each asked for once the one before has answered. */
async function follow(source: PageSource, itemsField: string, params: Params, pageSize: number, start: number, items: JsonObject[], pagesRead: number): Promise<JsonObject[]> {
  let next: number | undefined = start;
  for (let page = pagesRead; next !== undefined && page < MAX_PAGES; page++) {
    const answer = await source.get({ ...params, start: next, num: pageSize });
    items.push(...entriesOf(source, answer, itemsField, page === 0));
    next = nextStartOf(answer, next);
  }
  return items;
}

export function readAllPages(source: PageSource, itemsField: string, params: Params, pageSize: number): Promise<JsonObject[]> {
  return follow(source, itemsField, params, pageSize, 1, [], 0);
}

/**
 * Every page, the first alone: when it tells the list's `total` and pages follow on by the page
 * size, the remaining pages are asked for at once (the source bounds how many are in flight),
 * then paging goes on from the last one's `nextStart` in case the list grew meanwhile. Any other
 * answer is paged one page after another.
 */
export async function readAllPagesAhead(source: PageSource, itemsField: string, params: Params, pageSize: number): Promise<JsonObject[]> {
  const first = await source.get({ ...params, start: 1, num: pageSize });
  const items = [...entriesOf(source, first, itemsField, true)];
  const next = nextStartOf(first, 1);
  const total = first['total'];
  if (next === undefined) return items;
  if (next !== 1 + pageSize || typeof total !== 'number' || !Number.isSafeInteger(total)) return follow(source, itemsField, params, pageSize, next, items, 1);
  const starts: number[] = [];
  for (let start = next; start <= total && starts.length < MAX_PAGES; start += pageSize) starts.push(start);
  if (starts.length === 0) return follow(source, itemsField, params, pageSize, next, items, 1);
  const pages = await Promise.all(starts.map((start) => source.get({ ...params, start, num: pageSize })));
  for (const page of pages) items.push(...entriesOf(source, page, itemsField, false));
  const lastStart = starts[starts.length - 1] as number;
  const after = nextStartOf(pages[pages.length - 1] as JsonObject, lastStart);
  return after === undefined ? items : follow(source, itemsField, params, pageSize, after, items, 1 + pages.length);
}
