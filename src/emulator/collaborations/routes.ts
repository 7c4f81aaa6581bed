/**
 * Distributed collaboration: E9 (workspace updateInfo), E11 (remove participant), E13 (invite
 * participant), E14 (remove this portal's group link) and the collaboration reads.
 *
 * | code      | status | condition                                                                |
 * |-----------|--------|--------------------------------------------------------------------------|
 * | (none)    | 400    | "Invalid URL": any of the four before 10.5                                              |
 * | GWM_0003  | 403    | caller not a default administrator; E9/E11/E13 when this portal does not host the collaboration |
 * | 404 (none)| 404    | unknown collaboration, workspace or participant; E14 when this portal has no group link in the workspace |
 * | (none)    | 400    | E9 `name` sent empty; E13 without guestPortalUrl / collaborationWorkspacesParticipantConfigJSON |
 * | (none)    | 400    | E9 copyByRefIfCopyFail not true/false                                     |
 * | (none)    | 400    | E9 a size that is not an integer; E13 expiration not a number            |
 * | (none)    | 400    | E9 a size below 1; E13 expiration not positive or a timestamp in the past |
 * | (none)    | 400    | E13 an access mode other than send, receive, sendAndReceive              |
 * | (none)    | 400    | E9 config / E13 workspace config JSON invalid or of the wrong shape       |
 * | (none)    | 400    | E9 name over 100 or description over 250 characters                      |
 * | (none)    | 400    | E13 guestPortalUrl not an https URL                                      |
 * | (none)    | 400    | E13 a workspace id that is not a workspace of the collaboration          |
 * | (none)    | 400    | E13 the same workspace listed twice                                      |
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
import { PortalApiError, notFound } from '../errors.js';
import type { Collaboration, Invitation, Workspace } from '../state/model.js';
import { requireDefaultAdmin, requireHostAdmin } from '../shared/access.js';
import { page } from '../shared/paging.js';
import { json, optionalParam, requireParam, success } from '../shared/params.js';
import type { Route, RouteRequest } from '../shared/types.js';
import { requireVersion } from '../shared/versions.js';
import { COLLABORATION_OPERATIONS_SINCE, HOUR_MS, REFRESH_HOURS, parseExpiration, parseGuestUrl, parseWorkspaceModes } from './rules.js';
import { collaborationView, findCollaboration, findInvitation, findParticipant, findWorkspace, invitationFile, invitationView, participantView, setAccess, updateWorkspace, workspaceView } from './store.js';
import { randomUUID } from 'node:crypto';

/** Gate, default administrator, the collaboration; and the host check when `hostOnly`. */
function collaborationFor(request: RouteRequest, operation: string, hostOnly: boolean): Collaboration {
  const { state, caller, pathParams } = request;
  requireVersion(state.organization, operation, COLLABORATION_OPERATIONS_SINCE);
  requireDefaultAdmin(caller, operation);
  const collaboration = findCollaboration(state, pathParams.collabId ?? '');
  if (hostOnly) requireHostAdmin(caller, state, collaboration, operation);
  return collaboration;
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
