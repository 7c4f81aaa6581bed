/**
 * Distributed collaboration: E9 (workspace updateInfo), E11 (remove participant), E13 (invite
 * participant), E14 (remove this portal's group link) and the collaboration reads.
 *
 * | code      | status | condition                                                                |
 * |-----------|--------|--------------------------------------------------------------------------|
 * | EMU_0006  | 400    | any of the four before 10.5                                              |
 * | GWM_0003  | 403    | caller not a default administrator; E9/E11/E13 when this portal does not host the collaboration |
 * | 404 (none)| 404    | unknown collaboration, workspace or participant; E14 when this portal has no group link in the workspace |
 * | EMU_0001  | 400    | E9 `name` sent empty; E13 without guestPortalUrl / collaborationWorkspacesParticipantConfigJSON |
 * | EMU_0002  | 400    | E9 copyByRefIfCopyFail not true/false                                     |
 * | EMU_0003  | 400    | E9 a size that is not an integer; E13 expiration not a number            |
 * | EMU_0004  | 400    | E9 a size below 1; E13 expiration not positive or a timestamp in the past |
 * | EMU_0005  | 400    | E13 an access mode other than send, receive, sendAndReceive              |
 * | EMU_0007  | 400    | E9 config / E13 workspace config JSON invalid or of the wrong shape       |
 * | EMU_0008  | 400    | E9 name over 100 or description over 250 characters                      |
 * | EMU_0601  | 400    | E13 guestPortalUrl not an https URL                                      |
 * | EMU_0602  | 400    | E13 a workspace id that is not a workspace of the collaboration          |
 * | EMU_0603  | 400    | E13 the same workspace listed twice                                      |
 *
 * Versions: the sizes and copyByRefIfCopyFail of E9 exist from 10.6 and are ignored before; the
 * `config` JSON object exists before 10.6 only (ignored from 10.6). Its known keys are the three
 * config fields, validated and merged; other keys are ignored (its structure is not documented).
 *
 * E13's `expiration`: a positive number of hours from now (default 24), or, when at least 1e11,
 * an epoch-milliseconds timestamp that must lie in the future.
 *
 * Reads: GET /portals/:portalId/collaborations -> {collaborations:[{id,name,hostPortalId}]};
 * GET .../collaborations/:collabId -> {id,name,hostPortalId}; GET .../workspaces -> {workspaces:[...]};
 * GET .../workspaces/:workspaceId -> {id,name,description,config,participantGroupLinks,
 * participantsWithoutGroupLinks}; GET .../participants -> paged `participants` of
 * {portalInfo:{id,url,name}, workspaces:{<workspaceId>: <mode>}}; GET .../invitations ->
 * {invitations:[{id,guestPortalUrl,status,workspaces,expiration,created}]} where status is
 * "expired" once the expiration has passed.
 */
import { randomUUID } from 'node:crypto';
import { notFound, PortalApiError } from '../errors.js';
import type { AccessMode, Collaboration, EmulatorState, Invitation, Workspace, WorkspaceConfig } from '../model.js';
import { requireDefaultAdmin, requireHostAdmin } from './auth.js';
import { page } from './paging.js';
import {
  badRequest,
  checkEnum,
  checkMaxLength,
  checkRange,
  invalidJsonShape,
  isRecord,
  json,
  optionalParam,
  parseBoolean,
  parseInteger,
  parseJson,
  parseNumber,
  requireParam,
  success,
  type Params,
} from './params.js';
import type { Route, RouteRequest } from './types.js';
import { hasVersion, requireVersion } from './versions.js';

const COLLABORATION_OPERATIONS_SINCE = '10.5';
const WORKSPACE_SIZES_SINCE = '10.6';
export const MAX_WORKSPACE_NAME = 100;
export const MAX_WORKSPACE_DESCRIPTION = 250;
export const DEFAULT_INVITATION_HOURS = 24;
const HOUR_MS = 3_600_000;
/** Below this, `expiration` is a number of hours; from it on, an epoch-milliseconds timestamp. */
const TIMESTAMP_THRESHOLD = 1e11;
const ACCESS_MODES: readonly AccessMode[] = ['send', 'receive', 'sendAndReceive'];

function findCollaboration(state: EmulatorState, collaborationId: string): Collaboration {
  const collaboration = state.collaborations.find((candidate) => candidate.id === collaborationId);
  if (!collaboration) throw notFound();
  return collaboration;
}

function findWorkspace(collaboration: Collaboration, workspaceId: string): Workspace {
  const workspace = collaboration.workspaces.find((candidate) => candidate.id === workspaceId);
  if (!workspace) throw notFound();
  return workspace;
}

/** Gate, default administrator, the collaboration; and the host check when `hostOnly`. */
function collaborationFor(request: RouteRequest, operation: string, hostOnly: boolean): Collaboration {
  const { state, caller, pathParams } = request;
  requireVersion(state.organization, operation, COLLABORATION_OPERATIONS_SINCE);
  requireDefaultAdmin(caller, operation);
  const collaboration = findCollaboration(state, pathParams.collabId ?? '');
  if (hostOnly) requireHostAdmin(caller, state, collaboration, operation);
  return collaboration;
}

function workspaceView(workspace: Workspace): Record<string, unknown> {
  return {
    id: workspace.id,
    name: workspace.name,
    description: workspace.description,
    config: { ...workspace.config },
    participantGroupLinks: workspace.participantGroupLinks.map((link) => ({ ...link })),
    participantsWithoutGroupLinks: [...workspace.participantsWithoutGroupLinks],
  };
}

const SIZE_FIELDS = ['maxItemSizeInMB', 'maxReplicationPackageSizeInMB'] as const;

function applySizesAndCopyFlag(config: WorkspaceConfig, read: (name: string) => string | undefined): void {
  for (const field of SIZE_FIELDS) {
    const text = read(field);
    if (text === undefined) continue;
    if (text.trim() === '') delete config[field];
    else config[field] = checkRange(field, parseInteger(field, text), 1);
  }
  const copy = read('copyByRefIfCopyFail');
  if (copy !== undefined) {
    if (copy.trim() === '') delete config.copyByRefIfCopyFail;
    else config.copyByRefIfCopyFail = parseBoolean('copyByRefIfCopyFail', copy);
  }
}

/** Before 10.6: the `config` JSON object; its known fields are merged (null clears one). */
function applyLegacyConfig(config: WorkspaceConfig, text: string): void {
  const parsed = parseJson('config', text);
  if (!isRecord(parsed)) throw invalidJsonShape('config', 'a JSON object');
  const asText = (value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (value === null) return '';
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (typeof value === 'string') return value;
    throw invalidJsonShape('config', 'numbers and booleans for maxItemSizeInMB, maxReplicationPackageSizeInMB, copyByRefIfCopyFail');
  };
  applySizesAndCopyFlag(config, (name) => asText(parsed[name]));
}

function updateWorkspace(state: EmulatorState, workspace: Workspace, params: Params): void {
  const name = optionalParam(params, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", 'EMU_0001', ['A workspace needs a name.']);
    workspace.name = checkMaxLength('name', name, MAX_WORKSPACE_NAME);
  }
  const description = optionalParam(params, 'description');
  if (description !== undefined) workspace.description = checkMaxLength('description', description, MAX_WORKSPACE_DESCRIPTION);
  if (hasVersion(state.organization, WORKSPACE_SIZES_SINCE)) {
    applySizesAndCopyFlag(workspace.config, (field) => optionalParam(params, field));
  } else {
    const config = optionalParam(params, 'config');
    if (config !== undefined && config.trim() !== '') applyLegacyConfig(workspace.config, config);
  }
}

function parseGuestUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:') {
    throw badRequest(`Invalid guestPortalUrl '${text}'.`, 'EMU_0601', ['The guest portal URL must be an https:// URL.']);
  }
  return url;
}

function parseWorkspaceModes(collaboration: Collaboration, text: string): Record<string, AccessMode> {
  const name = 'collaborationWorkspacesParticipantConfigJSON';
  const parsed = parseJson(name, text);
  const shape = 'a non-empty JSON array of one-key objects such as [{"<workspaceId>":"sendAndReceive"}]';
  if (!Array.isArray(parsed) || parsed.length === 0) throw invalidJsonShape(name, shape);
  const modes: Record<string, AccessMode> = {};
  for (const entry of parsed as unknown[]) {
    if (!isRecord(entry) || Object.keys(entry).length !== 1) throw invalidJsonShape(name, shape);
    const [workspaceId, mode] = Object.entries(entry)[0] as [string, unknown];
    if (!collaboration.workspaces.some((workspace) => workspace.id === workspaceId)) {
      throw badRequest(`Unknown workspace '${workspaceId}'.`, 'EMU_0602', [
        `Collaboration ${collaboration.id} has workspaces: ${collaboration.workspaces.map((workspace) => workspace.id).join(', ')}.`,
      ]);
    }
    if (Object.prototype.hasOwnProperty.call(modes, workspaceId)) {
      throw badRequest(`Workspace '${workspaceId}' is listed twice.`, 'EMU_0603', ['List each workspace once.']);
    }
    modes[workspaceId] = checkEnum(`access mode of ${workspaceId}`, typeof mode === 'string' ? mode : JSON.stringify(mode), ACCESS_MODES);
  }
  return modes;
}

function parseExpiration(text: string | undefined, now: number): number {
  if (text === undefined || text.trim() === '') return now + DEFAULT_INVITATION_HOURS * HOUR_MS;
  const value = parseNumber('expiration', text);
  if (value >= TIMESTAMP_THRESHOLD) {
    if (value <= now) {
      throw badRequest('The invitation would already be expired.', 'EMU_0004', ['An expiration timestamp must lie in the future.']);
    }
    return value;
  }
  if (value <= 0) {
    throw badRequest(`Invalid value for 'expiration': ${value}.`, 'EMU_0004', ["'expiration' must be a positive number of hours."]);
  }
  return now + Math.round(value * HOUR_MS);
}

function invitationFile(state: EmulatorState, collaboration: Collaboration, invitation: Invitation): string {
  const { organization } = state;
  return JSON.stringify(
    {
      type: 'collaborationInvitation',
      invitationId: invitation.id,
      collaboration: { id: collaboration.id, name: collaboration.name },
      host: { portalId: organization.id, name: organization.name, url: `https://${organization.hostname}/portal` },
      guestPortalUrl: invitation.guestPortalUrl,
      workspaces: Object.entries(invitation.workspaces).map(([id, accessMode]) => ({
        id,
        name: collaboration.workspaces.find((workspace) => workspace.id === id)?.name ?? id,
        accessMode,
      })),
      created: invitation.created,
      expiration: invitation.expiration,
    },
    null,
    2,
  );
}

export const collaborationRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId/updateInfo',
    handle(request) {
      const collaboration = collaborationFor(request, 'workspaces/updateInfo', true);
      const workspace = findWorkspace(collaboration, request.pathParams.workspaceId ?? '');
      updateWorkspace(request.state, workspace, request.params);
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/participants/:participantId/remove',
    handle(request) {
      const collaboration = collaborationFor(request, 'participants/remove', true);
      const participantId = request.pathParams.participantId ?? '';
      const index = collaboration.participants.findIndex((participant) => participant.portalId === participantId);
      if (index < 0) throw notFound();
      collaboration.participants.splice(index, 1);
      for (const workspace of collaboration.workspaces) {
        workspace.participantGroupLinks = workspace.participantGroupLinks.filter((link) => link.portalId !== participantId);
        workspace.participantsWithoutGroupLinks = workspace.participantsWithoutGroupLinks.filter((id) => id !== participantId);
      }
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/inviteParticipant',
    handle(request) {
      const { state, params, now } = request;
      const collaboration = collaborationFor(request, 'inviteParticipant', true);
      const guestPortalUrl = requireParam(params, 'guestPortalUrl').trim();
      const guestUrl = parseGuestUrl(guestPortalUrl);
      const workspaces = parseWorkspaceModes(collaboration, requireParam(params, 'collaborationWorkspacesParticipantConfigJSON'));
      const invitation: Invitation = {
        id: randomUUID().replace(/-/g, ''),
        guestPortalUrl,
        status: 'pending',
        workspaces,
        expiration: parseExpiration(optionalParam(params, 'expiration'), now),
        created: now,
      };
      collaboration.invitations.push(invitation);
      return {
        type: 'file',
        filename: `collaboration-${guestUrl.hostname}.invite`,
        contentType: 'application/octet-stream',
        body: invitationFile(state, collaboration, invitation),
      };
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId/removePortalGroupLink',
    handle(request) {
      const { state } = request;
      const collaboration = collaborationFor(request, 'removePortalGroupLink', false);
      const workspace = findWorkspace(collaboration, request.pathParams.workspaceId ?? '');
      const orgId = state.organization.id;
      const index = workspace.participantGroupLinks.findIndex((link) => link.portalId === orgId);
      if (index < 0) {
        throw new PortalApiError(404, 'Resource does not exist or is inaccessible.', undefined, [
          `This portal (${orgId}) has no group linked to workspace ${workspace.id}.`,
        ]);
      }
      workspace.participantGroupLinks.splice(index, 1);
      if (!workspace.participantsWithoutGroupLinks.includes(orgId)) workspace.participantsWithoutGroupLinks.push(orgId);
      return { type: 'json', body: { collaborationId: collaboration.id, collaborationWorkspaceId: workspace.id, success: true } };
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations',
    handle({ state }) {
      return json({
        collaborations: state.collaborations.map(({ id, name, hostPortalId }) => ({ id, name, hostPortalId })),
      });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId',
    handle({ state, pathParams }) {
      const { id, name, hostPortalId } = findCollaboration(state, pathParams.collabId ?? '');
      return json({ id, name, hostPortalId });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces',
    handle({ state, pathParams }) {
      return json({ workspaces: findCollaboration(state, pathParams.collabId ?? '').workspaces.map(workspaceView) });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId',
    handle({ state, pathParams }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(workspaceView(findWorkspace(collaboration, pathParams.workspaceId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/participants',
    handle({ state, params, pathParams }) {
      const participants = findCollaboration(state, pathParams.collabId ?? '').participants.map((participant) => ({
        portalInfo: { id: participant.portalId, url: participant.url, name: participant.name },
        workspaces: { ...participant.workspaces },
      }));
      return json(page(params, participants, 'participants'));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/invitations',
    handle({ state, pathParams, now }) {
      const invitations = findCollaboration(state, pathParams.collabId ?? '').invitations.map((invitation) => ({
        id: invitation.id,
        guestPortalUrl: invitation.guestPortalUrl,
        status: now >= invitation.expiration ? 'expired' : invitation.status,
        workspaces: { ...invitation.workspaces },
        expiration: invitation.expiration,
        created: invitation.created,
      }));
      return json({ invitations });
    },
  },
];
