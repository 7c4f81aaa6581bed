/**
 * Paging of the portal's lists: `start` (1-based) and `num`, following `nextStart` until it is
 * -1 (some documented lists, such as a collaboration's invitations, carry no paging fields at
 * all: one page).
 *
 * A list is returned only when it was read whole. A plan computed on part of a list can remove
 * or rewrite what it did not see, so a read is checked against what the pages say:
 * - every page tells the same `total` (otherwise entries were added or removed meanwhile);
 * - no entry comes twice (otherwise an entry moved across a page while the pages were read, and
 *   another one was skipped);
 * - as many entries as `total` were read (a page without `nextStart` while `total` says more is
 *   followed on from the entries it held; `nextStart: -1` before that is an early end).
 * A read that fails a check is read again from the first page; after MAX_READS such reads the
 * list fails with the reason. Lists that tell no `total` are taken as they come.
 */
import type { JsonObject } from '../core/json.js';
import { canonicalJson, isObject } from '../core/json.js';
import type { Params } from './encoding.js';

const MAX_PAGES = 100_000;

/** Reads of one list before giving up on getting it whole. */
export const MAX_READS = 3;

/** Reads one page; `fail` builds the error for an answer that is not the list asked for, or a list not read whole. */
export interface PageSource {
  /** `reread`: a later read of the list, which must not reuse a page kept from an earlier one. */
  get(params: Params, reread: boolean): Promise<JsonObject>;
  fail(message: string): Error;
}

interface Page {
  start: number;
  answer: JsonObject;
  entries: JsonObject[];
}

/** The entries of one page, checked; `first` because only the first page may lack the field. */
function entriesOf(source: PageSource, answer: JsonObject, itemsField: string, first: boolean): JsonObject[] {
  const pageItems = answer[itemsField];
  if (pageItems === undefined) {
    // Some lists omit the field when empty; anything else is not the list we asked for.
    if (first && answer['total'] === undefined) throw source.fail(`unexpected answer: no "${itemsField}" field in the answer`);
    return [];
  }
  if (!Array.isArray(pageItems)) throw source.fail(`unexpected answer: "${itemsField}" is not an array`);
  const entries: JsonObject[] = [];
  for (const item of pageItems) {
    if (!isObject(item)) throw source.fail(`unexpected answer: an entry of "${itemsField}" is not an object`);
    entries.push(item);
  }
  return entries;
}

function totalOf(answer: JsonObject): number | undefined {
  const total = answer['total'];
  return typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
}

/**
 * Where paging goes on after `page`; undefined at the end. `nextStart` -1 ends the list; a page
 * without `nextStart` ends it too unless the list's `total` says more than was read by then, in
 * which case paging goes on right after the page's entries. A `nextStart` that would send the
 * reader back or in place ends it (the checks then find the list short).
 */
function nextStartOf(page: Page, total: number | undefined, readSoFar: number): number | undefined {
  const nextStart = page.answer['nextStart'];
  if (typeof nextStart === 'number') return nextStart <= page.start ? undefined : nextStart;
  if (total !== undefined && readSoFar < total && page.entries.length > 0) return page.start + page.entries.length;
  return undefined;
}

/** What identifies an entry of a documented list: its id, username (users), key (resources) or portalInfo.id (participants). */
function identityOf(entry: JsonObject): string {
  for (const field of ['id', 'username', 'key']) {
    const value = entry[field];
    if (typeof value === 'string') return `${field}:${value}`;
  }
  const portalInfo = entry['portalInfo'];
  if (isObject(portalInfo) && typeof portalInfo['id'] === 'string') return `portalInfo.id:${portalInfo['id']}`;
  return `entry:${canonicalJson(entry)}`;
}

/** Why the pages read are not the whole list (or its first `reachable` entries); undefined when they are. */
function problemOf(pages: readonly Page[], reachable?: (total: number) => number): string | undefined {
  const first = pages[0];
  if (!first) return undefined;
  const total = totalOf(first.answer);
  for (const page of pages) {
    const told = totalOf(page.answer);
    if (told !== undefined && total !== undefined && told !== total) {
      return `its total changed from ${total} to ${told} while it was read (entries were added or removed meanwhile)`;
    }
  }
  const seen = new Set<string>();
  let count = 0;
  for (const page of pages) {
    for (const entry of page.entries) {
      const identity = identityOf(entry);
      if (seen.has(identity)) return `the entry ${identity} came twice (an entry moved across a page while the pages were read)`;
      seen.add(identity);
      count += 1;
    }
  }
  const expected = total === undefined ? undefined : (reachable?.(total) ?? total);
  if (expected !== undefined && count !== expected) {
    const last = pages[pages.length - 1] ?? first;
    const nextStart = last.answer['nextStart'];
    const how = typeof nextStart === 'number' ? `nextStart ${nextStart}` : 'no nextStart';
    return `the portal said it has ${total} entries${expected === total ? '' : ` (${expected} of them reachable by paging)`}, but its pages held ${count} (the page at start ${last.start} answered with ${how})`;
  }
  return undefined;
}

async function page(source: PageSource, itemsField: string, params: Params, pageSize: number, start: number, reread: boolean): Promise<Page> {
  const answer = await source.get({ ...params, start, num: pageSize }, reread);
  return { start, answer, entries: entriesOf(source, answer, itemsField, start === 1) };
}

/** Pages one after another after those already read (from the first when none), each asked for once the one before has answered. */
async function follow(source: PageSource, itemsField: string, params: Params, pageSize: number, pages: Page[], reread: boolean): Promise<Page[]> {
  const total = pages[0] ? totalOf(pages[0].answer) : undefined;
  let read = pages.reduce((sum, each) => sum + each.entries.length, 0);
  let last = pages[pages.length - 1];
  let next = last ? nextStartOf(last, total, read) : 1;
  while (next !== undefined && pages.length < MAX_PAGES) {
    last = await page(source, itemsField, params, pageSize, next, reread);
    pages.push(last);
    read += last.entries.length;
    next = nextStartOf(last, total, read);
  }
  return pages;
}

/** One read of the list, page after page. */
function readOnce(source: PageSource, itemsField: string, params: Params, pageSize: number, reread: boolean): Promise<Page[]> {
  return follow(source, itemsField, params, pageSize, [], reread);
}

/**
 * One read of the list, the first page alone: when it tells the list's `total` and pages follow
 * on by the page size, the remaining pages are asked for at once (the source bounds how many are
 * in flight), then paging goes on from the last one's `nextStart`. Any other answer is paged one
 * page after another.
 */
async function readOnceAhead(source: PageSource, itemsField: string, params: Params, pageSize: number, reread: boolean): Promise<Page[]> {
  const first = await page(source, itemsField, params, pageSize, 1, reread);
  const total = totalOf(first.answer);
  const next = nextStartOf(first, total, first.entries.length);
  if (next === undefined || next !== 1 + pageSize || total === undefined) return follow(source, itemsField, params, pageSize, [first], reread);
  const starts: number[] = [];
  for (let start = next; start <= total && starts.length < MAX_PAGES; start += pageSize) starts.push(start);
  const rest = await Promise.all(starts.map((start) => page(source, itemsField, params, pageSize, start, reread)));
  return follow(source, itemsField, params, pageSize, [first, ...rest], reread);
}

/** What one read of a list gave: its entries, or why they are not the whole list. */
interface ListRead {
  entries: JsonObject[];
  problem?: string | undefined;
}

/** The pages of one read, checked. */
function checked(pages: readonly Page[]): ListRead {
  return { entries: pages.flatMap((each) => each.entries), problem: problemOf(pages) };
}

async function readWhole(read: (reread: boolean) => Promise<ListRead>, source: PageSource): Promise<JsonObject[]> {
  let problem: string | undefined;
  for (let attempt = 1; attempt <= MAX_READS; attempt++) {
    const result = await read(attempt > 1);
    problem = result.problem;
    if (problem === undefined) return result.entries;
  }
  throw source.fail(
    `the list could not be read whole in ${MAX_READS} reads: ${problem ?? 'unknown'}. Nothing was planned from part of it; try again once the portal's content is still, or check the portal.`,
  );
}

/** Every entry of the list, page after page; fails unless the list was read whole (see above). */
export function readAllPages(source: PageSource, itemsField: string, params: Params, pageSize: number): Promise<JsonObject[]> {
  return readWhole(async (reread) => checked(await readOnce(source, itemsField, params, pageSize, reread)), source);
}

/** Every entry of the list, the pages after the first asked for together; fails unless the list was read whole. */
export function readAllPagesAhead(source: PageSource, itemsField: string, params: Params, pageSize: number): Promise<JsonObject[]> {
  return readWhole(async (reread) => checked(await readOnceAhead(source, itemsField, params, pageSize, reread)), source);
}

/**
 * The portal's search operations page through their first 10,000 results only: "Only the first
 * 10,000 results can be paginated; results greater than 10,000 cannot be returned through
 * pagination. The actual number of total returned results may be greater than 10,000"
 * (Considerations and limitations,
 * developers.arcgis.com/rest/users-groups-and-items/considerations-and-limitations.htm).
 */
export const SEARCH_PAGING_LIMIT = 10_000;

/** Epoch milliseconds as the Search reference writes them in a range: 19 digits, zero-padded. */
const searchTime = (ms: number): string => String(ms).padStart(19, '0');

/**
 * A search list longer than SEARCH_PAGING_LIMIT, read in windows of creation time: sorted by
 * `created`, each window is the query narrowed to `created:[<from> TO <end of time>]` (the Search
 * reference's range search), read to its 10,000th result, and the next window starts at the
 * creation time of the last result read. Results created in that same millisecond come in both
 * windows and are kept once. Each window is checked like any list (a stable total, no result
 * twice, every reachable one read), and the results together must be as many as the whole
 * search's `total`; otherwise the whole read starts again (MAX_READS in all).
 */
export function readSearchInWindows(source: PageSource, itemsField: string, q: string, pageSize: number): Promise<JsonObject[]> {
  const reachable = (total: number): number => Math.min(total, SEARCH_PAGING_LIMIT);
  const readAll = async (reread: boolean): Promise<ListRead> => {
    const whole = totalOf((await source.get({ q, start: 1, num: pageSize }, reread)));
    const found = new Map<string, JsonObject>();
    for (let from = 0; ; ) {
      const params = { q: `(${q}) AND created:[${searchTime(from)} TO ${'9'.repeat(19)}]`, sortField: 'created', sortOrder: 'asc' };
      const first = await page(source, itemsField, params, pageSize, 1, reread);
      const total = totalOf(first.answer) ?? 0;
      const starts: number[] = [];
      for (let start = 1 + pageSize; start <= reachable(total); start += pageSize) starts.push(start);
      const pages = [first, ...(await Promise.all(starts.map((start) => page(source, itemsField, params, pageSize, start, reread))))];
      const problem = problemOf(pages, reachable);
      if (problem) return { entries: [], problem: `in the window created from ${from}: ${problem}` };
      const window = pages.flatMap((each) => each.entries);
      // The windows rest on the portal narrowing by `created` and sorting by it: checked, never assumed.
      let last = from;
      for (const entry of window) {
        const created = entry['created'];
        if (typeof created !== 'number' || created < last) {
          return { entries: [], problem: `the window created from ${from} was not narrowed to that range and sorted by creation time (sortField=created)` };
        }
        last = created;
        found.set(identityOf(entry), entry);
      }
      if (total <= SEARCH_PAGING_LIMIT) break;
      // 10,000 results created in one millisecond leave no window to follow: the search cannot read them.
      if (last === from) throw source.fail(`more than ${SEARCH_PAGING_LIMIT} results were created in the same millisecond (${from}); the search cannot page through them`);
      from = last;
    }
    const entries = [...found.values()];
    if (whole !== undefined && entries.length !== whole) return { entries, problem: `the search said it has ${whole} results, but its windows held ${entries.length} (results were added or removed meanwhile)` };
    return { entries };
  };
  return readWhole(readAll, source);
}
