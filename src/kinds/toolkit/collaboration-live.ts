/**
 * What the live halves of the collaboration kinds (E9, E11, E13, E14) share: the read paths,
 * this portal's own id, and how a guest portal URL is recognised among participants.
 */
import { PortalctlError } from '../../core/errors.js';
import { parseJsonOrUndefined, type JsonObject, type JsonValue } from '../../core/json.js';
import type { LiveReader } from '../../core/request.js';
import { NotOnPortalError, type DesiredObject } from './contract.js';
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

export const workspacesPath = (ids: Ids): string => `${collaborationPath(ids)}/workspaces`;

/**
 * The collaboration as missing when its own read says it is not there (memoised: one read per
 * collaboration). Its workspaces, workspace, participants and invitations answer an unknown
 * collaboration id with the same 404 as an unknown workspace, so only this read tells the two
 * apart; undefined when the collaboration exists.
 */
export async function missingCollaboration(obj: { ids: Ids }, reader: LiveReader): Promise<NotOnPortalError | undefined> {
  if ((await reader.get(collaborationPath(obj.ids))) !== undefined) return undefined;
  const id = obj.ids['collaborationId'] ?? '';
  return new NotOnPortalError(`collaboration ${id}`, { container: 'collaboration', address: `collaboration[${id}]` });
}

/**
 * The workspace a declaration sits in as missing (or its collaboration, read only then), said at
 * the workspace's entry; undefined when the workspace is there. The workspace read is one the
 * kind made already. Without it, `portalGroupLink: absent` on an unknown workspace read as "no
 * link" and planned nothing.
 */
export async function missingWorkspace(obj: DesiredObject, reader: LiveReader): Promise<NotOnPortalError | undefined> {
  if ((await reader.get(workspacePath(obj.ids))) !== undefined) return undefined;
  const collaborationId = obj.ids['collaborationId'];
  const workspaceId = obj.ids['workspaceId'] ?? '';
  return (
    (await missingCollaboration(obj, reader)) ??
    new NotOnPortalError(`workspace ${workspaceId} of collaboration ${collaborationId ?? ''}`, { container: 'workspace', address: workspaceAddress(collaborationId, workspaceId) })
  );
}

/** The documented key of the invitations list (not `invitations`). */
export const INVITATIONS_FIELD = 'collaborationInvitations';

/** The address of a declared workspace (E9) of the same collaboration. */
export const workspaceAddress = (collaborationId: string | undefined, workspaceId: string): string =>
  `collaboration[${collaborationId ?? ''}].workspace[${workspaceId}]`;

/**
 * The organization's short id from `portals/self` (memoised by the reader, so one read per
 * plan), for `orgid:` searches. Collaboration resources name portals by GUID-style ids
 * (`collaborationHostPortalId`, `portalInfo.id`, `participantGroupLinks[].portalId`) whose
 * relation to this id is not documented: never compare the two.
 */
export async function organizationId(reader: LiveReader): Promise<string> {
  const self = await reader.get('/portals/self');
  const id = self?.['id'];
  if (typeof id !== 'string' || id === '') {
    throw new PortalctlError('portals/self did not report the organization id, needed to list the organization\'s items and groups (q=orgid:<id>).');
  }
  return id;
}

/** `q=orgid:<id>`: the documented way to list an organization's items (`search`) or groups (`community/groups`). */
export async function organizationQuery(reader: LiveReader): Promise<string> {
  return `q=${encodeURIComponent(`orgid:${await organizationId(reader)}`)}`;
}

/**
 * This portal's own link among a workspace's `participantGroupLinks`: the documented answer
 * carries `portalGroupId`/`portalGroupName` only for the caller's own portal.
 */
export function ownGroupLink(workspace: JsonObject): JsonObject | undefined {
  const links = Array.isArray(workspace['participantGroupLinks']) ? workspace['participantGroupLinks'] : [];
  return links.find((link): link is JsonObject => isObject(link) && typeof link['portalGroupId'] === 'string' && link['portalGroupId'] !== '');
}

/**
 * This portal's GUID-style id inside one collaboration, from its own group link in any of the
 * workspaces; undefined when it has linked no group (then it cannot be told from the others).
 */
export function ownCollaborationPortalId(workspaces: readonly JsonObject[]): string | undefined {
  for (const workspace of workspaces) {
    const portalId = ownGroupLink(workspace)?.['portalId'];
    if (typeof portalId === 'string' && portalId !== '') return portalId;
  }
  return undefined;
}

/**
 * A participant's access per workspace, `{ <workspaceId>: send|receive|sendAndReceive }`, from
 * the workspaces: `participantGroupLinks[].accessMode` of its links and the entries of
 * `participantsWithoutGroupLinks` (whose element shape the docs do not show: a portal id, or an
 * object with `portalId` and, when given, `accessMode`).
 */
export function participantAccess(workspaces: readonly JsonObject[], participantPortalId: string): JsonObject {
  const modes: JsonObject = {};
  for (const workspace of workspaces) {
    const workspaceId = workspace['id'];
    if (typeof workspaceId !== 'string') continue;
    const links = Array.isArray(workspace['participantGroupLinks']) ? workspace['participantGroupLinks'] : [];
    const unlinked = Array.isArray(workspace['participantsWithoutGroupLinks']) ? workspace['participantsWithoutGroupLinks'] : [];
    for (const entry of [...links, ...unlinked]) {
      const portalId = isObject(entry) ? (entry['portalId'] ?? (isObject(entry['portalInfo']) ? entry['portalInfo']['id'] : undefined)) : entry;
      if (portalId !== participantPortalId) continue;
      const mode = isObject(entry) ? entry['accessMode'] : undefined;
      modes[workspaceId] = typeof mode === 'string' ? mode : null;
    }
  }
  return modes;
}

/** The parsed `invitationString` of an invitation (JSON in a string): its `invitationRequest`. */
export function invitationRequestOf(invitation: JsonObject): JsonObject | undefined {
  const text = invitation['invitationString'];
  if (typeof text !== 'string') return undefined;
  const parsed = parseJsonOrUndefined(text);
  if (!isObject(parsed)) return undefined;
  return isObject(parsed['invitationRequest']) ? parsed['invitationRequest'] : parsed;
}

/** The access an invitation offers, `{ <workspaceId>: <mode> }`, from `collaborationWorkspaceConfigs.accessMode[]` of its invitation string. */
export function invitationAccess(invitation: JsonObject): JsonObject {
  const configs = invitationRequestOf(invitation)?.['collaborationWorkspaceConfigs'];
  const entries = isObject(configs) && Array.isArray(configs['accessMode']) ? configs['accessMode'] : [];
  const modes: JsonObject = {};
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    const workspaceId = entry['collaborationWorkspaceId'];
    const mode = entry['accessMode'];
    if (typeof workspaceId === 'string' && typeof mode === 'string') modes[workspaceId] = mode;
  }
  return modes;
}

/** The invited portal's URL: the invitation's own field, else the one inside its invitation string. */
export function invitationGuestUrl(invitation: JsonObject): string | undefined {
  const url = invitation['guestPortalUrl'] ?? invitationRequestOf(invitation)?.['guestPortalUrl'];
  return typeof url === 'string' ? url : undefined;
}

/** The host among the participants (`collaborationRole: Host`): never removed, never a guest. */
export const isHostParticipant = (participant: JsonObject): boolean =>
  typeof participant['collaborationRole'] === 'string' && participant['collaborationRole'].toLowerCase() === 'host';

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
  const info = isObject(participant['portalInfo']) ? participant['portalInfo'] : {};
  const id = info['id'];
  const url = info['url'];
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
