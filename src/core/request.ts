/** What every room may know of a request and of reading the portal: plain types, no behaviour. */
import type { JsonObject } from './json.js';

/** An exact request the plan will send. The token is never part of it. */
export interface ApiRequest {
  method: 'POST';
  /** Path relative to the REST root, with `{portalID}` as the literal `self`. */
  path: string;
  /** Form fields in the order they are sent, `f=json` excluded (the client adds it). */
  form: Record<string, string>;
  /** E13 answers with a file download instead of a JSON object. */
  response: 'json' | 'file';
  /** False for requests that must never be repeated (E13 creates a new invitation each call). */
  idempotent: boolean;
}

/**
 * Reads live state for kinds. Memoised per plan: one URL is fetched at most once however many
 * objects or kinds ask for it (the workspace serves both E9 and E14).
 */
export interface LiveReader {
  /** GET a JSON resource; `undefined` when the portal says it does not exist or is inaccessible. */
  get(path: string): Promise<JsonObject | undefined>;
  /** GET every page of a paged list (until nextStart is -1); `undefined` when the list's owner does not exist. */
  list(path: string, itemsField: string): Promise<JsonObject[] | undefined>;
  /**
   * The `total` a paged list reports on its first page (which a later `list` reuses), to choose
   * one list read over single reads; undefined when the list's owner does not exist or it
   * reports none. Optional: without it, kinds read object by object.
   */
  total?(path: string, itemsField: string): Promise<number | undefined>;
}
