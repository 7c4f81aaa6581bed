/**
 * What the live halves of the collaboration kinds (E9, E11, E13, E14) share: the read paths,
 * this portal's own id, and how a guest portal URL is recognised among participants.
 */
import { PortalctlError } from '../core/errors.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { MissingIdentifierError } from './live.js';
import { isObject } from './support.js';

type Ids = Readonly<Record<string, string>>;

/** `ids[name]` as one escaped path segment: ids come from the config and must not reshape the path. */
export function segment(ids: Ids, name: string): string {
  const id = ids[name];
  if (id === undefined || id === '') throw new MissingIdentifierError(`No "${name}" identifier: the collaboration request path cannot be built.`);
  return encodeURIComponent(id);
}

export const collaborationPath = (ids: Ids): string => `/portals/self/collaborations/${segment(ids, 'collaborationId')}`;

export const workspacePath = (ids: Ids): string => `${collaborationPath(ids)}/workspaces/${segment(ids, 'workspaceId')}`;

export const participantsPath = (ids: Ids): string => `${collaborationPath(ids)}/participants`;

export const invitationsPath = (ids: Ids): string => `${collaborationPath(ids)}/invitations`;

/** The address of a declared workspace (E9) of the same collaboration. */
export const workspaceAddress = (collaborationId: string | undefined, workspaceId: string): string =>
  `collaboration[${collaborationId ?? ''}].workspace[${workspaceId}]`;

/**
 * This portal's id, from `portals/self` (memoised by the reader, so one read per plan): the
 * workspace lists every participant's group link, and only this portal's link is ours to remove.
 */
export async function ownPortalId(reader: LiveReader): Promise<string> {
  const self = await reader.get('/portals/self');
  const id = self?.['id'];
  if (typeof id !== 'string' || id === '') {
    throw new PortalctlError('portals/self did not report the organization id, needed to tell this portal apart from other participants.');
  }
  return id;
}

/** Scheme and host are case-insensitive and a trailing slash means nothing. */
export function normalizePortalUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(trimmed);
  return match ? `${(match[1] ?? '').toLowerCase()}${match[2] ?? ''}` : trimmed;
}

export const samePortalUrl = (a: JsonValue | undefined, b: JsonValue | undefined): boolean =>
  typeof a === 'string' && typeof b === 'string' && normalizePortalUrl(a) === normalizePortalUrl(b);

/** A participant's identity from the participants list (`portalInfo.id`, `portalInfo.url`). */
export function participantIdentity(participant: JsonObject): { id?: string; url?: string } {
  const info = isObject(participant['portalInfo']) ? participant['portalInfo'] : participant;
  const id = info['id'] ?? info['portalId'];
  const url = info['url'] ?? info['portalUrl'];
  return {
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof url === 'string' ? { url } : {}),
  };
}

/**
 * Access modes per workspace as `{ <workspaceId>: <mode> }`, from either that object or the
 * wire's array of one-key objects (`[{"w1":"sendAndReceive"}]`).
 */
export function accessModesOf(value: JsonValue | undefined): JsonObject {
  const modes: JsonObject = {};
  const entries = Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    for (const [workspaceId, mode] of Object.entries(entry)) if (typeof mode === 'string') modes[workspaceId] = mode;
  }
  return modes;
}
