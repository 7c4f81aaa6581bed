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
 * Reads (documented shapes, see the wire samples): collaborations, workspaces and participants are
 * paged lists (`collaborations`, `workspaces`, `participants`); invitations answer
 * `{collaborationInvitations:[...]}` without paging. Portal ids are collaboration (GUID-form)
 * ids; per-participant access lives in `workspaces[].participantGroupLinks[].accessMode` and
 * `participantsWithoutGroupLinks[]` ({portalId, accessMode}), never on the participant. An
 * invitation carries its content as the JSON text `invitationString` (the `.invite` file's content);
 * its status is "host_created", or "expired" once its expiration has passed.
 *
 * Also: addWorkspace ({collaborationWorkspaceId, collaborationId, success}),
 * participants/:id/updateParticipantAccessModes, invitations/:id (read), invitations/:id/refresh
 * (the file again, expiry 72 h from now) and invitations/:id/invalidate.
 */
import { randomUUID } from 'node:crypto';
import { notFound, PortalApiError } from '../errors.js';
import type { AccessMode, Collaboration, EmulatorState, Invitation, Participant, Workspace, WorkspaceConfig } from '../model.js';
import { findBy } from '../store.js';
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
import type { Route, RouteRequest, RouteResult } from './types.js';
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

const REFRESH_HOURS = 72;

function findCollaboration(state: EmulatorState, collaborationId: string): Collaboration {
  const collaboration = findBy(state.collaborations, 'id', collaborationId);
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

const collaborationView = (collaboration: Collaboration): Record<string, unknown> => ({
  id: collaboration.id,
  name: collaboration.name,
  description: collaboration.description,
  collaborationHostPortalId: collaboration.hostPortalId,
  config: { ownerUsername: collaboration.ownerUsername },
  created: 0,
  modified: 0,
});

function workspaceView(state: EmulatorState, collaboration: Collaboration, workspace: Workspace): Record<string, unknown> {
  const self = state.organization.collaborationPortalId;
  return {
    id: workspace.id,
    name: workspace.name,
    description: workspace.description,
    collaborationId: collaboration.id,
    config: { ...workspace.config, bidirectionalSyncCapable: false },
    created: 0,
    modified: 0,
    lastSyncSuccess: -1,
    bidirectionalSyncCapable: false,
    participantGroupLinks: workspace.participantGroupLinks.map((link) => ({
      portalId: link.portalId,
      // The group id and name are shown for this portal's own links only (documented).
      ...(link.portalId === self
        ? { portalGroupId: link.portalGroupId, portalGroupName: findBy(state.groups, 'id', link.portalGroupId)?.title ?? link.portalGroupId }
        : {}),
      config: { enableRealtimeSync: false, copyFeatureServiceData: true, enableFeatureServiceBidirectionalSync: false },
      accessMode: link.accessMode,
    })),
    participantsWithoutGroupLinks: workspace.participantsWithoutGroupLinks.map((entry) => ({ ...entry })),
  };
}

function participantView(state: EmulatorState, collaboration: Collaboration, participant: Participant): Record<string, unknown> {
  const isSelf = participant.portalId === state.organization.collaborationPortalId;
  return {
    collaborationId: collaboration.id,
    portalInfo: {
      id: participant.portalId,
      url: participant.url,
      name: participant.name,
      description: '',
      portalType: isSelf && state.organization.edition === 'hosted' ? 'online' : 'onpremises',
    },
    collaborationRole: participant.role,
    status: 'active',
    config: {
      contactEmailAddress: `admin@${hostOf(participant.url)}`,
      contactFirstname: 'Portal',
      contactLastname: 'Administrator',
      canRunAgent: true,
      portalVersion: isSelf ? state.organization.version : '11.3',
      lastConfigSync: 0,
    },
    created: 0,
    modified: 0,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'example.com';
  }
}

function invitationFilename(invitation: Invitation): string {
  return `collaboration-${hostOf(invitation.guestPortalUrl)}.invite`;
}

/** The invitation's content: the `.invite` file, and (as a string) `invitationString`. */
function invitationRequest(collaboration: Collaboration, invitation: Invitation): Record<string, unknown> {
  return {
    invitationRequest: {
      id: invitation.id,
      collaborationId: collaboration.id,
      collaborationName: collaboration.name,
      collaborationDescription: collaboration.description,
      collaborationWorkspaceConfigs: {
        accessMode: Object.entries(invitation.workspaces).map(([workspaceId, accessMode]) => {
          const workspace = collaboration.workspaces.find((candidate) => candidate.id === workspaceId);
          return {
            collaborationWorkspaceId: workspaceId,
            collaborationWorkspaceName: workspace?.name ?? workspaceId,
            collaborationWorkspaceDescription: workspace?.description ?? '',
            accessMode,
            config: {},
          };
        }),
      },
      guestPortalUrl: invitation.guestPortalUrl,
    },
  };
}

function invitationView(collaboration: Collaboration, invitation: Invitation, now: number): Record<string, unknown> {
  return {
    id: invitation.id,
    collaborationId: collaboration.id,
    hostPortalId: collaboration.hostPortalId,
    guestPortalId: 'unknown',
    guestPortalUrl: invitation.guestPortalUrl,
    status: now >= invitation.expiration ? 'expired' : 'host_created',
    config: { invitationRequestFilename: invitationFilename(invitation) },
    invitationString: JSON.stringify(invitationRequest(collaboration, invitation)),
  };
}

function invitationFile(collaboration: Collaboration, invitation: Invitation): RouteResult {
  return {
    type: 'file',
    filename: invitationFilename(invitation),
    contentType: 'application/octet-stream',
    body: JSON.stringify(invitationRequest(collaboration, invitation)),
  };
}

function findInvitation(collaboration: Collaboration, invitationId: string): Invitation {
  const invitation = collaboration.invitations.find((candidate) => candidate.id === invitationId);
  if (!invitation) throw notFound();
  return invitation;
}

function findParticipant(collaboration: Collaboration, portalId: string): Participant {
  const participant = collaboration.participants.find((candidate) => candidate.portalId === portalId);
  if (!participant) throw notFound();
  return participant;
}

/** Sets a participant's access to a workspace where the documented shape keeps it. */
function setAccess(workspace: Workspace, portalId: string, accessMode: AccessMode): void {
  const link = workspace.participantGroupLinks.find((candidate) => candidate.portalId === portalId);
  if (link) {
    link.accessMode = accessMode;
    return;
  }
  const unlinked = workspace.participantsWithoutGroupLinks.find((candidate) => candidate.portalId === portalId);
  if (unlinked) unlinked.accessMode = accessMode;
  else workspace.participantsWithoutGroupLinks.push({ portalId, accessMode });
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

function parseWorkspaceModes(collaboration: Collaboration, text: string, name = 'collaborationWorkspacesParticipantConfigJSON'): Record<string, AccessMode> {
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
        workspace.participantsWithoutGroupLinks = workspace.participantsWithoutGroupLinks.filter((entry) => entry.portalId !== participantId);
      }
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/inviteParticipant',
    handle(request) {
      const { params, now } = request;
      const collaboration = collaborationFor(request, 'inviteParticipant', true);
      const guestPortalUrl = requireParam(params, 'guestPortalUrl').trim();
      parseGuestUrl(guestPortalUrl);
      const workspaces = parseWorkspaceModes(collaboration, requireParam(params, 'collaborationWorkspacesParticipantConfigJSON'));
      const invitation: Invitation = {
        id: randomUUID().replace(/-/g, ''),
        guestPortalUrl,
        workspaces,
        expiration: parseExpiration(optionalParam(params, 'expiration'), now),
        created: now,
      };
      collaboration.invitations.push(invitation);
      return invitationFile(collaboration, invitation);
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId/removePortalGroupLink',
    handle(request) {
      const { state } = request;
      const collaboration = collaborationFor(request, 'removePortalGroupLink', false);
      const workspace = findWorkspace(collaboration, request.pathParams.workspaceId ?? '');
      const orgId = state.organization.collaborationPortalId;
      const index = workspace.participantGroupLinks.findIndex((link) => link.portalId === orgId);
      if (index < 0) {
        throw new PortalApiError(404, 'Resource does not exist or is inaccessible.', undefined, [
          `This portal (${orgId}) has no group linked to workspace ${workspace.id}.`,
        ]);
      }
      const [link] = workspace.participantGroupLinks.splice(index, 1);
      if (!workspace.participantsWithoutGroupLinks.some((entry) => entry.portalId === orgId)) {
        workspace.participantsWithoutGroupLinks.push({ portalId: orgId, accessMode: link?.accessMode ?? 'sendAndReceive' });
      }
      return { type: 'json', body: { collaborationId: collaboration.id, collaborationWorkspaceId: workspace.id, success: true } };
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/participants/:participantId/updateParticipantAccessModes',
    handle(request) {
      const collaboration = collaborationFor(request, 'updateParticipantAccessModes', true);
      const participant = findParticipant(collaboration, request.pathParams.participantId ?? '');
      const name = 'collaborationWorkspacesAccessJSON';
      const modes = parseWorkspaceModes(collaboration, requireParam(request.params, name), name);
      for (const [workspaceId, accessMode] of Object.entries(modes)) {
        setAccess(findWorkspace(collaboration, workspaceId), participant.portalId, accessMode);
      }
      return success();
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/addWorkspace',
    handle(request) {
      const collaboration = collaborationFor(request, 'addWorkspace', true);
      const workspace: Workspace = {
        id: randomUUID().replace(/-/g, ''),
        name: '',
        description: '',
        config: {},
        participantGroupLinks: [],
        participantsWithoutGroupLinks: [],
      };
      requireParam(request.params, 'name');
      updateWorkspace(request.state, workspace, request.params);
      collaboration.workspaces.push(workspace);
      return { type: 'json', body: { collaborationWorkspaceId: workspace.id, collaborationId: collaboration.id, success: true } };
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/invitations/:invitationId/refresh',
    handle(request) {
      const collaboration = collaborationFor(request, 'invitations/refresh', true);
      const invitation = findInvitation(collaboration, request.pathParams.invitationId ?? '');
      invitation.expiration = request.now + REFRESH_HOURS * HOUR_MS;
      return invitationFile(collaboration, invitation);
    },
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/collaborations/:collabId/invitations/:invitationId/invalidate',
    handle(request) {
      const collaboration = collaborationFor(request, 'invitations/invalidate', true);
      const invitation = findInvitation(collaboration, request.pathParams.invitationId ?? '');
      collaboration.invitations = collaboration.invitations.filter((candidate) => candidate !== invitation);
      return success();
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations',
    handle({ state, params }) {
      return json(page(params, state.collaborations, 'collaborations', collaborationView));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId',
    handle({ state, pathParams }) {
      return json(collaborationView(findCollaboration(state, pathParams.collabId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces',
    handle({ state, params, pathParams }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(page(params, collaboration.workspaces, 'workspaces', (workspace) => workspaceView(state, collaboration, workspace)));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId',
    handle({ state, pathParams }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(workspaceView(state, collaboration, findWorkspace(collaboration, pathParams.workspaceId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/participants',
    handle({ state, params, pathParams }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(page(params, collaboration.participants, 'participants', (participant) => participantView(state, collaboration, participant)));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/participants/:participantId',
    handle({ state, pathParams }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(participantView(state, collaboration, findParticipant(collaboration, pathParams.participantId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/invitations',
    handle({ state, pathParams, now }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json({ collaborationInvitations: collaboration.invitations.map((invitation) => invitationView(collaboration, invitation, now)) });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/collaborations/:collabId/invitations/:invitationId',
    handle({ state, pathParams, now }) {
      const collaboration = findCollaboration(state, pathParams.collabId ?? '');
      return json(invitationView(collaboration, findInvitation(collaboration, pathParams.invitationId ?? ''), now));
    },
  },
];
