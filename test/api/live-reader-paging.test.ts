/**
 * The LiveReader's lists and `total`: the first page of a list, read (once) to learn its size, is
 * also the first page of the list read that follows, so choosing between a list and single reads
 * costs no request of its own; the pages after it are asked for together, never more than the
 * reader's concurrency at once.
 */
import { describe, expect, it } from 'vitest';
import { createLiveReader, type ApiClient } from '../../src/api/index.js';
import { ApiError, ApiNetworkError } from '../../src/api/errors.js';
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

  it('reads a list itself: the first page alone, then every other page at once', async () => {
    const { client, calls } = pagedClient(250);
    const reader = createLiveReader(client);
    expect(await reader.list('/things', 'entries')).toHaveLength(250);
    expect(calls).toEqual(['get /things start=1 num=100', 'get /things start=101 num=100', 'get /things start=201 num=100']);
  });
});

/** A client whose answers wait until released, to see what is in flight at once. */
/** `served`: how many entries the server puts on a page (it may hold fewer than asked for). */
function heldClient(entries: number, pageSize = 100, served = pageSize) {
  const inFlight: string[] = [];
  let most = 0;
  const waiting: (() => void)[] = [];
  const all = Array.from({ length: entries }, (_, index) => ({ id: `e${index + 1}` }));
  const client: Pick<ApiClient, 'get'> = {
    async get(path: string, params: Params = {}): Promise<JsonObject> {
      const start = Number(params['start'] ?? 1);
      const num = Number(params['num'] ?? pageSize);
      const name = `${path}@${start}`;
      inFlight.push(name);
      most = Math.max(most, inFlight.length);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight.splice(inFlight.indexOf(name), 1);
      const size = Math.min(num, served);
      const next = start + size;
      return { total: entries, start, num: size, nextStart: next > entries ? -1 : next, entries: all.slice(start - 1, start - 1 + size) };
    },
  };
  /** Answers the requests waiting, round after round until none comes: how many each round answered (the last 0). */
  const answerAll = async (): Promise<number[]> => {
    const rounds: number[] = [];
    let answered = 0;
    do {
      await new Promise((resolve) => setImmediate(resolve));
      const now = waiting.splice(0);
      for (const resolve of now) resolve();
      await new Promise((resolve) => setImmediate(resolve));
      answered = now.length;
      rounds.push(answered);
    } while (answered > 0);
    return rounds;
  };
  return { client, answerAll, most: () => most };
}

describe('createLiveReader concurrency', () => {
  it('keeps at most `concurrency` requests in flight across lists and single reads', async () => {
    const held = heldClient(1000);
    const reader = createLiveReader(held.client, { concurrency: 3 });
    const list = reader.list('/things', 'entries');
    const singles = Promise.all(['/a', '/b', '/c', '/d'].map((path) => reader.get(path)));
    const rounds = await held.answerAll();
    expect((await list)?.map((entry) => entry['id'])).toEqual(Array.from({ length: 1000 }, (_, index) => `e${index + 1}`));
    expect(await singles).toHaveLength(4);
    expect(held.most()).toBe(3);
    // 1 first page + 9 more pages + 4 single reads, three at a time.
    expect(rounds.reduce((a, b) => a + b, 0)).toBe(14);
    expect(rounds.filter((n) => n > 0)).toEqual([3, 3, 3, 3, 2]);
  });

  it('pages one after another when the pages do not follow on by the page size', async () => {
    const held = heldClient(250, 100, 50);
    const reader = createLiveReader(held.client, { concurrency: 8 });
    const list = reader.list('/odd', 'entries');
    const rounds = await held.answerAll();
    expect((await list)?.map((entry) => entry['id'])).toEqual(Array.from({ length: 250 }, (_, index) => `e${index + 1}`));
    // start=1, 51, 101, 151, 201: each asked for only after the one before answered.
    expect(rounds.filter((n) => n > 0)).toEqual([1, 1, 1, 1, 1]);
  });

  it('reads a list again from a fresh first page when it grew while it was read', async () => {
    const calls: string[] = [];
    let size = 150;
    const client: Pick<ApiClient, 'get'> = {
      async get(path: string, params: Params = {}): Promise<JsonObject> {
        const start = Number(params['start']);
        calls.push(`start=${start}`);
        const answer = { total: size, start, num: 100, nextStart: start + 100 > size ? -1 : start + 100, entries: Array.from({ length: Math.max(0, Math.min(100, size - start + 1)) }, (_, i) => ({ id: `e${start + i}` })) };
        size = 250; // grows after the first page
        return answer;
      },
    };
    const reader = createLiveReader(client);
    const listed = await reader.list('/growing', 'entries');
    // The second page said 250 where the first said 150: the first read is thrown away and the list read again.
    expect(calls).toEqual(['start=1', 'start=101', 'start=201', 'start=1', 'start=101', 'start=201']);
    expect(listed?.map((entry) => entry['id'])).toEqual(Array.from({ length: 250 }, (_, index) => `e${index + 1}`));
    expect(await reader.total?.('/growing', 'entries')).toBe(250);
  });
});

describe('createLiveReader failures', () => {
  /** A client that fails every read of a path with `failure`, counting the requests. */
  function failingClient(failure: () => Error): { client: Pick<ApiClient, 'get'>; calls: string[] } {
    const calls: string[] = [];
    return {
      client: {
        async get(path: string): Promise<JsonObject> {
          calls.push(path);
          throw failure();
        },
      },
      calls,
    };
  }

  it("keeps the portal's refusal (a 4xx in its envelope) as its answer: asked once however many callers", async () => {
    const { client, calls } = failingClient(() => new ApiError({ method: 'GET', path: '/community/users/ghost/tasks', code: 400, apiMessage: 'refused', enveloped: true }));
    const reader = createLiveReader(client);
    await expect(reader.list('/community/users/ghost/tasks', 'tasks')).rejects.toThrow('refused');
    await expect(reader.list('/community/users/ghost/tasks', 'tasks')).rejects.toThrow('refused');
    await expect(reader.get('/community/users/ghost/tasks')).rejects.toThrow('refused');
    await expect(reader.get('/community/users/ghost/tasks')).rejects.toThrow('refused');
    // The first page (the list's) and the whole read (get): one request each.
    expect(calls).toEqual(['/community/users/ghost/tasks', '/community/users/ghost/tasks']);
  });

  it('asks again after a failure that is not a refusal: a server error, a rate limit, no answer, a bare HTTP status', async () => {
    const failures: (() => Error)[] = [
      () => new ApiError({ method: 'GET', path: '/x', code: 500, apiMessage: 'Server error', enveloped: true }),
      () => new ApiError({ method: 'GET', path: '/x', code: 429, apiMessage: 'Too many requests', enveloped: true }),
      () => new ApiError({ method: 'GET', path: '/x', code: 400, httpStatus: 400, apiMessage: 'Bad Request' }),
      () => new ApiNetworkError({ method: 'GET', path: '/x', apiMessage: 'timed out', failure: 'timeout', outcomeUnknown: false }),
    ];
    for (const failure of failures) {
      const { client, calls } = failingClient(failure);
      const reader = createLiveReader(client);
      await expect(reader.get('/x')).rejects.toThrow();
      await expect(reader.get('/x')).rejects.toThrow();
      expect(calls, failure().message).toEqual(['/x', '/x']);
    }
  });
});
