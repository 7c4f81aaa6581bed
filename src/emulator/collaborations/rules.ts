/** collaborations: the portal's rules (checks that refuse a request before anything changes). */
import type { AccessMode, Collaboration } from '../state/model.js';
import { badRequest, checkEnum, invalidJsonShape, isList, isRecord, parseJson, parseNumber } from '../shared/params.js';

export const COLLABORATION_OPERATIONS_SINCE = '10.5';

export const WORKSPACE_SIZES_SINCE = '10.6';

export const MAX_WORKSPACE_NAME = 100;

export const MAX_WORKSPACE_DESCRIPTION = 250;

export const HOUR_MS = 3_600_000;

export const DEFAULT_INVITATION_HOURS = 24;

/** An invitation's refresh moves its expiry this far from now. */
export const REFRESH_HOURS = 72;

/** Below this, `expiration` is a number of hours; from it on, an epoch-milliseconds timestamp. */
export const TIMESTAMP_THRESHOLD = 1e11;

export const ACCESS_MODES: readonly AccessMode[] = ['send', 'receive', 'sendAndReceive'];

export function parseGuestUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:') {
    throw badRequest(`Invalid guestPortalUrl '${text}'.`, ['The guest portal URL must be an https:// URL.']);
  }
  return url;
}

export function parseWorkspaceModes(collaboration: Collaboration, text: string, name = 'collaborationWorkspacesParticipantConfigJSON'): Record<string, AccessMode> {
  const parsed = parseJson(name, text);
  const shape = 'a non-empty JSON array of one-key objects such as [{"<workspaceId>":"sendAndReceive"}]';
  if (!isList(parsed) || parsed.length === 0) throw invalidJsonShape(name, shape);
  const modes: Record<string, AccessMode> = {};
  for (const entry of parsed) {
    const members = isRecord(entry) ? Object.entries(entry) : [];
    const member = members.length === 1 ? members[0] : undefined;
    if (!member) throw invalidJsonShape(name, shape);
    const [workspaceId, mode] = member;
    if (!collaboration.workspaces.some((workspace) => workspace.id === workspaceId)) {
      throw badRequest(`Unknown workspace '${workspaceId}'.`, [
        `Collaboration ${collaboration.id} has workspaces: ${collaboration.workspaces.map((workspace) => workspace.id).join(', ')}.`,
      ]);
    }
    if (Object.prototype.hasOwnProperty.call(modes, workspaceId)) {
      throw badRequest(`Workspace '${workspaceId}' is listed twice.`, ['List each workspace once.']);
    }
    modes[workspaceId] = checkEnum(`access mode of ${workspaceId}`, typeof mode === 'string' ? mode : JSON.stringify(mode), ACCESS_MODES);
  }
  return modes;
}

export function parseExpiration(text: string | undefined, now: number): number {
  if (text === undefined || text.trim() === '') return now + DEFAULT_INVITATION_HOURS * HOUR_MS;
  const value = parseNumber('expiration', text);
  if (value >= TIMESTAMP_THRESHOLD) {
    if (value <= now) {
      throw badRequest('The invitation would already be expired.', ['An expiration timestamp must lie in the future.']);
    }
    return value;
  }
  if (value <= 0) {
    throw badRequest(`Invalid value for 'expiration': ${value}.`, ["'expiration' must be a positive number of hours."]);
  }
  return now + Math.round(value * HOUR_MS);
}
