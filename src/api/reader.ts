/**
 * The engine's LiveReader over the API client: memoised per plan, so one URL is fetched at
 * most once however many objects or kinds ask for it. Concurrent callers share the in-flight
 * request; "does not exist or is inaccessible" becomes `undefined`.
 */
import type { JsonObject } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import type { ApiClient } from './client.js';
import { isNotFound } from './errors.js';

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

  return {
    get: (path) => memo<JsonObject | undefined>(`get\u0000${path}`, () => client.get(path)),
    list: (path, itemsField) =>
      memo<JsonObject[] | undefined>(`list\u0000${path}\u0000${itemsField}`, () => client.list(path, itemsField)),
  };
}
