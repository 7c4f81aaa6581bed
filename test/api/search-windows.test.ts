/**
 * The portal's search operations page through their first 10,000 results only; `total` may say
 * more (Considerations and limitations,
 * developers.arcgis.com/rest/users-groups-and-items/considerations-and-limitations.htm). The
 * emulator answers so (items and groups), sorts by `created` or `title` and takes `created:[A TO B]`
 * ranges; the LiveReader reads a longer search in windows of creation time, over HTTP, whole, and
 * refuses windows a portal did not narrow and sort.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, createLiveReader } from '../../src/api/index.js';
import type { Params } from '../../src/api/encoding.js';
import type { JsonObject } from '../../src/core/json.js';
import { loadDataFile, type EmulatorState } from '../../src/emulator/index.js';
import { SAMPLE_ORG, portalPerTest } from '../support/portal.js';

const ITEMS = 25_000;
const BASE = Date.UTC(2021, 0, 1);
const itemId = (index: number): string => `w${String(index).padStart(31, '0')}`;

/** The sample organization with ITEMS more items; `createdAt(i)` gives each its creation time. */
function withItems(createdAt: (index: number) => number, count = ITEMS): EmulatorState {
  const state = loadDataFile(SAMPLE_ORG);
  const extra = Array.from({ length: count }, (_, index) => ({
    id: itemId(index),
    title: `Layer ${index}`,
    owner: 'publisher1',
    access: 'org' as const,
    type: 'Feature Service',
    tags: [],
    categories: [],
    created: createdAt(index),
  }));
  // Stored out of creation order, as a portal's index is: the windows must not depend on it.
  return { ...state, items: [...state.items, ...extra.reverse()] };
}

const portal = portalPerTest({ data: withItems((index) => BASE + index * 1000) });

const search = async (params: Record<string, string>): Promise<JsonObject> => portal.client.get('/search', params);
const orgQuery = async (): Promise<string> => `orgid:${(await portal.state()).organization.id}`;
const ids = (answer: JsonObject): unknown[] => (answer['results'] as JsonObject[]).map((result) => result['id']);

describe('the emulator\'s search past 10,000 results', () => {
  it('pages through the first 10,000 only; total is the whole count', async () => {
    const q = await orgQuery();
    const total = (await portal.state()).items.length;
    const last = await search({ q, start: '9901', num: '100' });
    expect(last).toMatchObject({ total, start: 9901, nextStart: -1 });
    expect(ids(last)).toHaveLength(100);
    const past = await search({ q, start: '10001', num: '100' });
    expect(past).toMatchObject({ total, nextStart: -1, results: [] });
  });

  it('sorts by created or title, either way, and narrows to a created range', async () => {
    const q = await orgQuery();
    expect(ids(await search({ q: `${q} AND created:[${BASE} TO ${BASE + 2000}]`, sortField: 'created', sortOrder: 'asc', num: '10' }))).toEqual([itemId(0), itemId(1), itemId(2)]);
    const newest = await search({ q, sortField: 'created', sortOrder: 'desc', num: '2' });
    expect(ids(newest)).toEqual([itemId(ITEMS - 1), itemId(ITEMS - 2)]);
    // Zero-padded bounds and an open end, as the Search reference writes them.
    const padded = await search({ q: `(${q}) AND created:[${String(BASE + (ITEMS - 3) * 1000).padStart(19, '0')} TO *]`, sortField: 'created' });
    expect(padded).toMatchObject({ total: 3 });
    const byTitle = await search({ q: `${q} AND created:[${BASE} TO ${BASE + 2000}]`, sortField: 'title', sortOrder: 'desc' });
    expect((byTitle['results'] as JsonObject[]).map((result) => result['title'])).toEqual(['Layer 2', 'Layer 1', 'Layer 0']);
    await expect(search({ q: `${q} AND created:[soon TO later]` })).rejects.toThrow(/Invalid number or range/);
    await expect(search({ q, sortField: 'numviews' })).rejects.toThrow(/Unsupported sortField/);
    await expect(search({ q, sortField: 'created', sortOrder: 'up' })).rejects.toThrow(/Invalid sortOrder/);
  });

  it('groups too: a created time from the data file, ranges, both sorts, and the same paging limit', async () => {
    const state = withItems((index) => BASE + index * 1000, 0);
    const [first] = state.groups;
    if (!first) throw new Error('the sample organization has groups');
    const extra = Array.from({ length: 10_005 }, (_, index) => ({ ...first, id: `g${String(index).padStart(31, '0')}`, title: `Team ${index}`, created: BASE + index }));
    await portal.replaceState({ ...state, groups: [...state.groups, ...extra] });
    const q = await orgQuery();
    const groups = (params: Record<string, string>) => portal.client.get('/community/groups', params);
    const ranged = await groups({ q: `${q} AND created:[${BASE + 1} TO ${BASE + 2}]`, sortField: 'title', sortOrder: 'desc' });
    expect((ranged['results'] as JsonObject[]).map((group) => [group['title'], group['created']])).toEqual([['Team 2', BASE + 2], ['Team 1', BASE + 1]]);
    const newest = await groups({ q, sortField: 'created', sortOrder: 'desc', num: '1' });
    expect((newest['results'] as JsonObject[])[0]?.['id']).toBe(`g${String(10_004).padStart(31, '0')}`);
    expect(await groups({ q, start: '10001' })).toMatchObject({ total: state.groups.length + 10_005, nextStart: -1, results: [] });
  });
});

describe('the LiveReader over a search longer than 10,000 results', () => {
  it('reads it whole in windows of creation time, each sorted by created', async () => {
    const q = await orgQuery();
    await portal.clearRequests();
    const listed = await createLiveReader(portal.client).list(`/search?q=${encodeURIComponent(q)}`, 'results');
    const everything = (await portal.state()).items.map((item) => item.id).sort();
    expect(listed?.map((item) => item['id']).sort()).toEqual(everything);
    const windows = (await portal.requests()).filter((entry) => entry.params['sortField'] === 'created' && entry.params['start'] === '1').map((entry) => entry.params['q']);
    expect(windows.length).toBe(3);
    expect(windows[0]).toBe(`(${q}) AND created:[${'0'.repeat(19)} TO ${'9'.repeat(19)}]`);
    // No page past the limit was asked for.
    expect((await portal.requests()).every((entry) => Number(entry.params['start'] ?? 1) <= 10_000)).toBe(true);
  });

  it('keeps once the results created in the millisecond a window ends and the next begins', async () => {
    // 40 items share the creation time of the 10,000th result of the first window.
    await portal.replaceState(withItems((index) => BASE + (index >= 9_980 && index < 10_020 ? 9_990 : index) * 1000));
    const listed = await createLiveReader(portal.client).list(`/search?q=${encodeURIComponent(await orgQuery())}`, 'results');
    const unique = new Set(listed?.map((item) => item['id']));
    expect(unique.size).toBe(listed?.length);
    expect(unique.size).toBe((await portal.state()).items.length);
  });

  it('a portal that does not narrow or sort by created: no list from the windows, after three reads', async () => {
    // Answers as if sortField and the created range were not there: the first 10,000 by position, newest first.
    const all = Array.from({ length: 12_000 }, (_, index) => ({ id: `i${index}`, created: BASE + (12_000 - index) * 1000 }));
    const requests: string[] = [];
    const reader = createLiveReader({
      async get(_path: string, params: Params = {}): Promise<JsonObject> {
        requests.push(String(params['q'] ?? ''));
        const start = Number(params['start'] ?? 1);
        const end = Math.min(start - 1 + Number(params['num'] ?? 10), 10_000);
        return { total: all.length, start, num: end - start + 1, nextStart: end >= 10_000 ? -1 : end + 1, results: all.slice(start - 1, end) };
      },
    });
    const error = await reader.list('/search?q=orgid%3Ao1', 'results').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toContain('could not be read whole in 3 reads: the window created from 0 was not narrowed to that range and sorted by creation time (sortField=created)');
    expect(requests.filter((q) => q.startsWith('(orgid:o1) AND created:[')).length).toBeGreaterThan(0);
  });

  it('more than 10,000 results created in one millisecond: a clear error, not part of the list', async () => {
    await portal.replaceState(withItems(() => BASE, 10_050));
    const error = await createLiveReader(portal.client)
      .list(`/search?q=${encodeURIComponent(await orgQuery())}`, 'results')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toContain(`more than 10000 results were created in the same millisecond (${BASE})`);
  });
});
