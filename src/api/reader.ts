/**
 * The engine's LiveReader over the API client: memoised per plan, so one URL is fetched at
 * most once however many objects or kinds ask for it. Concurrent callers share the in-flight
 * request; "does not exist or is inaccessible" becomes `undefined`. A list's first page, read to
 * learn its `total`, is the first page of the list read that may follow.
 */
import type { JsonObject } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import type { ApiClient } from './client.js';
import { isNotFound } from './errors.js';
import { readAllPages } from './paging.js';
import { ApiError } from './errors.js';

/** The most a list page may hold (the portal's limit). */
const PAGE_SIZE = 100;

export function createLiveReader(client: Pick<ApiClient, 'get' | 'list'>): LiveReader {
  const cache = new Map<string, Promise<unknown>>();

  function memo<T>(key: string, load: () => Promise<T>): Promise<T> {
    const known = cache.get(key);
    if (known) return known as Promise<T>;
    const pending = load().catch((error: unknown) => {
      if (isNotFound(error)) return undefined as T;
      // Only answers are memoised: a failure may be retried by a later caller.
      cache.delete(key);
      throw error;
    });
    cache.set(key, pending);
    return pending;
  }

  const firstPage = (path: string): Promise<JsonObject | undefined> =>
    memo<JsonObject | undefined>(`page1\u0000${path}`, () => client.get(path, { start: 1, num: PAGE_SIZE }));

  return {
    get: (path) => memo<JsonObject | undefined>(`get\u0000${path}`, () => client.get(path)),
    list: (path, itemsField) =>
      memo<JsonObject[] | undefined>(`list\u0000${path}\u0000${itemsField}`, async () => {
        // Without a first page already read, the client pages as it always does.
        if (!cache.has(`page1\u0000${path}`)) return client.list(path, itemsField);
        return readAllPages(
          {
            get: async (params) => {
              const page = params['start'] === 1 ? await firstPage(path) : await client.get(path, params);
              if (!page) throw new ApiError({ method: 'GET', path, apiMessage: 'the list disappeared while it was read' });
              return page;
            },
            unexpected: (what) => new ApiError({ method: 'GET', path, apiMessage: `unexpected answer: ${what}` }),
          },
          itemsField,
          {},
          PAGE_SIZE,
        );
      }),
    total: async (path) => {
      const total = (await firstPage(path))?.['total'];
      return typeof total === 'number' && Number.isFinite(total) ? total : undefined;
    },
  };
}
