/**
 * The LiveReader's `total`: the first page of a list, read (once) to learn its size, is also the
 * first page of the list read that follows, so choosing between a list and single reads costs
 * no request of its own.
 */
import { describe, expect, it } from 'vitest';
import { createLiveReader, type ApiClient } from '../../src/api/index.js';
import type { Params } from '../../src/api/encoding.js';
import type { JsonObject } from '../../src/core/json.js';

function pagedClient(entries: number): { client: Pick<ApiClient, 'get' | 'list'>; calls: string[] } {
  const calls: string[] = [];
  const all = Array.from({ length: entries }, (_, index) => ({ id: `e${index + 1}` }));
  const client: Pick<ApiClient, 'get' | 'list'> = {
    async get(path: string, params: Params = {}): Promise<JsonObject> {
      const start = Number(params['start'] ?? 1);
      const num = Number(params['num'] ?? 10);
      calls.push(`get ${path} start=${start} num=${num}`);
      const next = start + num;
      return { total: entries, start, num, nextStart: next > entries ? -1 : next, entries: all.slice(start - 1, start - 1 + num) };
    },
    async list(path: string): Promise<JsonObject[]> {
      calls.push(`list ${path}`);
      return all;
    },
  };
  return { client, calls };
}

describe('createLiveReader total', () => {
  it('reads the first page once for the total, and the list goes on from the second page', async () => {
    const { client, calls } = pagedClient(250);
    const reader = createLiveReader(client);
    const [total, again] = await Promise.all([reader.total?.('/things', 'entries'), reader.total?.('/things', 'entries')]);
    expect(total).toBe(250);
    expect(again).toBe(250);
    const listed = await reader.list('/things', 'entries');
    expect(listed?.map((entry) => entry['id'])).toEqual(Array.from({ length: 250 }, (_, index) => `e${index + 1}`));
    expect(await reader.list('/things', 'entries')).toBe(listed);
    expect(calls).toEqual(['get /things start=1 num=100', 'get /things start=101 num=100', 'get /things start=201 num=100']);
  });

  it('lists through the client as before when no total was asked', async () => {
    const { client, calls } = pagedClient(3);
    const reader = createLiveReader(client);
    expect(await reader.list('/things', 'entries')).toHaveLength(3);
    expect(calls).toEqual(['list /things']);
  });
});
