/** collaborations: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import { notFound } from '../errors.js';
import type { AccessMode, Collaboration, EmulatorState, Invitation, Participant, Workspace, WorkspaceConfig } from '../state/model.js';
import { badRequest, checkMaxLength, checkRange, invalidJsonShape, isRecord, optionalParam, parseBoolean, parseInteger, parseJson, type Params } from '../shared/params.js';
import type { RouteResult } from '../shared/types.js';
import { hasVersion } from '../shared/versions.js';
import { findBy } from '../state/store.js';
import { MAX_WORKSPACE_DESCRIPTION, MAX_WORKSPACE_NAME, WORKSPACE_SIZES_SINCE } from './rules.js';

export function findCollaboration(state: EmulatorState, collaborationId: string): Collaboration {
  const collaboration = findBy(state.collaborations, 'id', collaborationId);
  if (!collaboration) throw notFound();
  return collaboration;
}

export function findWorkspace(collaboration: Collaboration, workspaceId: string): Workspace {
  const workspace = collaboration.workspaces.find((candidate) => candidate.id === workspaceId);
  if (!workspace) throw notFound();
  return workspace;
}

export const collaborationView = (collaboration: Collaboration): Record<string, unknown> => ({
  id: collaboration.id,
  name: collaboration.name,
  description: collaboration.description,
  collaborationHostPortalId: collaboration.hostPortalId,
  config: { ownerUsername: collaboration.ownerUsername },
  created: 0,
  modified: 0,
});

export function workspaceView(state: EmulatorState, collaboration: Collaboration, workspace: Workspace): Record<string, unknown> {
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

export function participantView(state: EmulatorState, collaboration: Collaboration, participant: Participant): Record<string, unknown> {
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

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'example.com';
  }
}

export function invitationFilename(invitation: Invitation): string {
  return `collaboration-${hostOf(invitation.guestPortalUrl)}.invite`;
}

/** The invitation's content: the `.invite` file, and (as a string) `invitationString`. */
export function invitationRequest(collaboration: Collaboration, invitation: Invitation): Record<string, unknown> {
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

export function invitationView(collaboration: Collaboration, invitation: Invitation, now: number): Record<string, unknown> {
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

export function invitationFile(collaboration: Collaboration, invitation: Invitation): RouteResult {
  return {
    type: 'file',
    filename: invitationFilename(invitation),
    contentType: 'application/octet-stream',
    body: JSON.stringify(invitationRequest(collaboration, invitation)),
  };
}

export function findInvitation(collaboration: Collaboration, invitationId: string): Invitation {
  const invitation = collaboration.invitations.find((candidate) => candidate.id === invitationId);
  if (!invitation) throw notFound();
  return invitation;
}

export function findParticipant(collaboration: Collaboration, portalId: string): Participant {
  const participant = collaboration.participants.find((candidate) => candidate.portalId === portalId);
  if (!participant) throw notFound();
  return participant;
}

/** Sets a participant's access to a workspace where the documented shape keeps it. */
export function setAccess(workspace: Workspace, portalId: string, accessMode: AccessMode): void {
  const link = workspace.participantGroupLinks.find((candidate) => candidate.portalId === portalId);
  if (link) {
    link.accessMode = accessMode;
    return;
  }
  const unlinked = workspace.participantsWithoutGroupLinks.find((candidate) => candidate.portalId === portalId);
  if (unlinked) unlinked.accessMode = accessMode;
  else workspace.participantsWithoutGroupLinks.push({ portalId, accessMode });
}

export const SIZE_FIELDS = ['maxItemSizeInMB', 'maxReplicationPackageSizeInMB'] as const;

export function applySizesAndCopyFlag(config: WorkspaceConfig, read: (name: string) => string | undefined): void {
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
export function applyLegacyConfig(config: WorkspaceConfig, text: string): void {
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

export function updateWorkspace(state: EmulatorState, workspace: Workspace, params: Params): void {
  const name = optionalParam(params, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", ['A workspace needs a name.']);
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
