/**
 * What the kinds' `discover` members (for `portalctl import`) share: version gates on the live
 * portal's facts, reading many things with bounded concurrency, naming objects in comments, and
 * the collaborations this organization hosts.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { LiveReader } from '../../core/request.js';
import type { PortalFacts } from './contract.js';
import { ownCollaborationPortalId, workspacesPath } from './collaboration-live.js';
import { selfManagedVersionBelow } from './support.js';

/** How many reads one kind keeps in flight while discovering (per group, per user, ...). */
const DISCOVERY_CONCURRENCY = 8;

/** True when the live portal is self-managed and older than `minimum` (the kinds' own gate, on live facts). */
export function liveVersionBelow(portal: PortalFacts, minimum: string): boolean {
  return selfManagedVersionBelow({ portal, all: [] }, minimum);
}

/** `fn` over `items`, at most DISCOVERY_CONCURRENCY at once, results in the order of `items`. */
export async function mapLimited<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const pending = items.entries();
  const worker = async (): Promise<void> => {
    for (const [index, item] of pending) results[index] = await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(DISCOVERY_CONCURRENCY, items.length) }, worker));
  return results;
}

/** A non-empty string field, else undefined. */
export function textOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Text made safe for one comment line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `Road Centerlines (owner publisher1)`: how items and groups are named in comments. */
export function ownedName(entry: JsonObject, titleField = 'title'): string {
  const title = textOf(entry[titleField]) ?? '(untitled)';
  const owner = textOf(entry['owner']);
  return oneLine(owner ? `${title} (owner ${owner})` : title);
}

export interface HostedCollaboration {
  id: string;
  name: string;
  /** The ids the collaboration kinds' paths take. */
  ids: Readonly<Record<string, string>>;
}

export interface CollaborationsSeen {
  /** Collaborations this organization hosts: only the host manages them. */
  hosted: HostedCollaboration[];
  /** One comment line per collaboration another portal hosts. */
  guestNotes: string[];
}

/**
 * The organization's collaborations, split into those it hosts and those it takes part in as a
 * guest. The host is `collaborationHostPortalId` (a GUID-style id, never comparable with the
 * short `portals/self` id); this portal's own GUID shows in its own workspace group links. When
 * it has linked no group, it cannot be told apart, and the collaboration is taken as hosted
 * (the host-only operations then answer for themselves).
 */
export async function collaborationsSeen(reader: LiveReader): Promise<CollaborationsSeen> {
  const listed = (await reader.list('/portals/self/collaborations', 'collaborations')) ?? [];
  const seen: CollaborationsSeen = { hosted: [], guestNotes: [] };
  for (const entry of listed) {
    const id = textOf(entry['id']);
    if (id === undefined) continue;
    const name = oneLine(textOf(entry['name']) ?? id);
    const ids = { collaborationId: id };
    const host = textOf(entry['collaborationHostPortalId']);
    const self = host === undefined ? undefined : ownCollaborationPortalId((await reader.list(workspacesPath(ids), 'workspaces')) ?? []);
    if (host !== undefined && self !== undefined && host !== self) {
      seen.guestNotes.push(`collaboration ${id} ${name}: hosted by portal ${host}; only its host manages it, so it is not imported.`);
    } else {
      seen.hosted.push({ id, name, ids });
    }
  }
  return seen;
}

/** The workspaces of a hosted collaboration as listed. */
export async function workspacesOf(reader: LiveReader, collaboration: HostedCollaboration): Promise<JsonObject[]> {
  return (await reader.list(workspacesPath(collaboration.ids), 'workspaces')) ?? [];
}
