/**
 * The engine's LiveReader over the API client: memoised per plan, so one URL is fetched at
 * most once however many objects or kinds ask for it (a list is read again only when it was not
 * read whole, paging.ts). Concurrent callers share the in-flight
 * request; "does not exist or is inaccessible" becomes `undefined`. A list's first page, read to
 * learn its `total`, is the first page of the list read that follows, and the pages after it
 * are asked for together. At most `concurrency` requests are in flight: the limit is on
 * requests, not on the callers, so a caller waiting for a shared list holds no place.
 */
import pLimit from 'p-limit';
import type { JsonObject } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import type { ApiClient } from './client.js';
import type { Params } from './encoding.js';
import { ApiError, ApiNetworkError, isNotFound } from './errors.js';
import { readAllPagesAhead, readSearchInWindows, SEARCH_PAGING_LIMIT } from './paging.js';

/** The most a list page may hold (the portal's limit). */
const PAGE_SIZE = 100;

/** Requests in flight when the caller does not say (`--parallelism` does). */
export const DEFAULT_READ_CONCURRENCY = 8;

export interface LiveReaderOptions {
  /** Requests in flight at most. */
  concurrency?: number;
}

export function createLiveReader(client: Pick<ApiClient, 'get'>, options: LiveReaderOptions = {}): LiveReader {
  // One cache per kind of answer, so each keeps its own type.
  const objects = new Map<string, Promise<JsonObject | undefined>>();
  const lists = new Map<string, Promise<JsonObject[] | undefined>>();
  const limit = pLimit(Math.max(1, options.concurrency ?? DEFAULT_READ_CONCURRENCY));
  const get = (path: string, params?: Params): Promise<JsonObject> => limit(() => client.get(path, params));

  function memo<T>(cache: Map<string, Promise<T | undefined>>, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const known = cache.get(key);
    if (known) return known;
    const pending = load().catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      // The portal's refusal is an answer, kept as one (a missing user's task list is asked for
      // once, not once per task); a failure to get an answer may be retried by a later caller.
      if (!isRefusal(error)) cache.delete(key);
      throw error;
    });
    cache.set(key, pending);
    return pending;
  }

  const firstPageKey = (path: string): string => `page1\u0000${path}`;
  const firstPage = (path: string): Promise<JsonObject | undefined> => memo(objects, firstPageKey(path), () => get(path, { start: 1, num: PAGE_SIZE }));

  return {
    get: (path) => memo(objects, `get\u0000${path}`, () => get(path)),
    list: (path, itemsField) =>
      memo(lists, `list\u0000${path}\u0000${itemsField}`, async () => {
        // An owner that does not exist answers the first page with "not found": the list is undefined.
        const first = await firstPage(path);
        if (first === undefined) return undefined;
        const fail = (message: string): Error => new ApiError({ method: 'GET', path, apiMessage: message });
        const q = searchQueryOf(path);
        if (q !== undefined && typeof first['total'] === 'number' && first['total'] > SEARCH_PAGING_LIMIT) {
          // Past the search's paging limit: read in windows of creation time, each request its own.
          return readSearchInWindows({ get: (params) => get(path, params), fail }, itemsField, q, PAGE_SIZE);
        }
        return readAllPagesAhead(
          {
            get: async (params, reread) => {
              let page: JsonObject | undefined;
              if (params['start'] === 1 && reread) {
                // A list read again (it changed while it was read) starts from a fresh first page, which `total` then reports too.
                page = await get(path, params);
                objects.set(firstPageKey(path), Promise.resolve(page));
              } else {
                page = params['start'] === 1 ? await firstPage(path) : await get(path, params);
              }
              if (!page) throw new ApiError({ method: 'GET', path, apiMessage: 'the list disappeared while it was read' });
              return page;
            },
            fail,
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

/** The `q` of a search operation's path (the operations that take one are the searches); undefined for another list. */
function searchQueryOf(path: string): string | undefined {
  const query = path.split('?', 2)[1];
  return query === undefined ? undefined : (new URLSearchParams(query).get('q') ?? undefined);
}

/**
 * The portal's own refusal of a read: a 4xx in its error envelope. Not a rate limit (429), a
 * failure of the server (5xx) or of the network, which the same read may get past later.
 */
function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && !(error instanceof ApiNetworkError) && error.enveloped && error.code !== undefined && error.code >= 400 && error.code < 500 && error.code !== 429;
}
