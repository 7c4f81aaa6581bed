/**
 * E13: an invitation of a guest portal to the collaboration. Value:
 * `{ guestPortalUrl, workspaces: { <workspaceId>: send|receive|sendAndReceive }, expirationHours? }`.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { NotOnPortalError, type Change, type DesiredObject, type DiscoveredObject, type Kind, type PortalFacts, type RecoveredAnswer } from './toolkit/contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { deepEqual } from '../core/json.js';
import { collaborationVersionGate } from './toolkit/collaboration-gates.js';
import {
  INVITATIONS_FIELD,
  accessModesOf,
  collaborationPath,
  invitationAccess,
  invitationGuestUrl,
  invitationsPath,
  isHostParticipant,
  missingCollaboration,
  participantAccess,
  participantIdentity,
  participantsPath,
  samePortalUrl,
  workspaceAddress,
  workspacesPath,
} from './toolkit/collaboration-live.js';
import { isObject, pick, problem } from './toolkit/support.js';
import { collaborationsSeen, liveVersionBelow, oneLine } from './toolkit/discover.js';

export const accessModes = ['send', 'receive', 'sendAndReceive'] as const;

/** Invitations in these states no longer stand for the guest portal (an expired one may be re-sent). */
const closedStatuses = new Set(['expired', 'declined', 'rejected', 'cancelled', 'canceled', 'revoked', 'invalidated']);

/** An invitation that still stands: the documented `host_created` and any status not known to be closed. */
const isOpen = (invitation: JsonObject): boolean =>
  !closedStatuses.has(typeof invitation['status'] === 'string' ? invitation['status'].toLowerCase() : '');

/**
 * The guest portal's live standing, `{ guestPortalUrl, workspaces, standing }`: `participant`
 * once it joined (its access per workspace read from the workspaces' group links), else
 * `invited` for a pending invitation (its access read from the invitation string). Among several
 * invitations, the one with the declared access wins, so a portal already invited with that
 * access is never invited again; null when neither exists.
 */
async function readInvitation(obj: DesiredObject, reader: LiveReader): Promise<JsonValue> {
  const url = obj.ids['guestPortalUrl'];
  const [participants, invitations, workspaces] = await Promise.all([
    reader.list(participantsPath(obj.ids), 'participants'),
    reader.list(invitationsPath(obj.ids), INVITATIONS_FIELD),
    reader.list(workspacesPath(obj.ids), 'workspaces'),
  ]);
  // No participants list (404): an unknown collaboration, to be said as such rather than invited to.
  const missing = participants === undefined ? await missingCollaboration(obj, reader) : undefined;
  if (missing) throw missing;
  const wanted = isObject(obj.value) ? accessModesOf(obj.value['workspaces']) : {};
  // The portal refuses an invitation to a workspace the collaboration does not have: said now, not after other writes.
  const unknown = workspaces && unknownWorkspace(Object.keys(wanted), workspaces);
  if (unknown !== undefined) throw new NotOnPortalError(`workspace ${unknown} of collaboration ${obj.ids['collaborationId'] ?? ''}`);
  const joined = (participants ?? [])
    .filter((participant) => !isHostParticipant(participant))
    .map(participantIdentity)
    .find((identity) => samePortalUrl(identity.url, url));
  if (joined) {
    return { guestPortalUrl: joined.url ?? null, workspaces: joined.id === undefined ? {} : participantAccess(workspaces ?? [], joined.id), standing: 'participant' };
  }
  const pending: JsonObject[] = (invitations ?? [])
    .filter((invitation) => isOpen(invitation) && samePortalUrl(invitationGuestUrl(invitation), url))
    .map((invitation) => ({ guestPortalUrl: invitationGuestUrl(invitation) ?? null, workspaces: invitationAccess(invitation), standing: 'invited' }));
  return pending.find((entry) => deepEqual(entry['workspaces'], wanted)) ?? pending[0] ?? null;
}

/** The first of `declared` that is not the id of one of the collaboration's `workspaces`. */
function unknownWorkspace(declared: readonly string[], workspaces: readonly JsonObject[]): string | undefined {
  const known = new Set(workspaces.map((workspace) => workspace['id']));
  return declared.find((workspaceId) => !known.has(workspaceId));
}

/**
 * The file of a pending invitation whose answer was lost: its `invitationString` (the content of
 * the `.invite` file), or, when the portal does not give it, the invitation's `refresh`
 * operation, which answers with the file (and extends its expiry by 72 hours).
 */
async function recoverInvitationFile(obj: DesiredObject, reader: LiveReader): Promise<RecoveredAnswer | undefined> {
  const url = obj.ids['guestPortalUrl'];
  const wanted = isObject(obj.value) ? accessModesOf(obj.value['workspaces']) : {};
  const invitations = ((await reader.list(invitationsPath(obj.ids), INVITATIONS_FIELD)) ?? []).filter(
    (invitation) => isOpen(invitation) && samePortalUrl(invitationGuestUrl(invitation), url),
  );
  // The newest with the declared access: the one the lost answer created.
  const invitation = [...invitations].reverse().find((candidate) => deepEqual(invitationAccess(candidate), wanted)) ?? invitations[invitations.length - 1];
  if (!invitation) return undefined;
  const config = isObject(invitation['config']) ? invitation['config'] : {};
  const host = (() => {
    try {
      return new URL(String(url)).hostname;
    } catch {
      return 'guest';
    }
  })();
  const filename = typeof config['invitationRequestFilename'] === 'string' ? config['invitationRequestFilename'] : `collaboration-${host}.invite`;
  if (typeof invitation['invitationString'] === 'string' && invitation['invitationString'] !== '') {
    return { file: { filename, content: invitation['invitationString'] } };
  }
  if (typeof invitation['id'] !== 'string' || invitation['id'] === '') return undefined;
  return {
    request: {
      method: 'POST',
      path: `${invitationsPath(obj.ids)}/${encodeURIComponent(invitation['id'])}/refresh`,
      form: {},
      response: 'file',
      idempotent: true,
    },
  };
}

/** `text` as a URL with a host, or undefined when it is not one (a space in the host, a bad port, no scheme). */
function parsedUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.hostname === '' ? undefined : url;
  } catch {
    return undefined;
  }
}

function sameAccess(desired: DesiredObject, live: JsonObject): boolean {
  return isObject(desired.value) && deepEqual(accessModesOf(desired.value['workspaces']), accessModesOf(live['workspaces']));
}

/**
 * A portal that already takes part is never invited again (whatever its access: no spec
 * operation changes it, see invitationWarnings); a pending invitation counts when its access is the declared one.
 */
function invitationInSync(desired: DesiredObject, live: JsonValue): boolean {
  if (!isObject(desired.value) || !isObject(live)) return false;
  if (live['standing'] === 'participant') return true;
  return samePortalUrl(desired.value['guestPortalUrl'], live['guestPortalUrl']) && sameAccess(desired, live);
}

const describeAccess = (modes: JsonObject): string =>
  Object.keys(modes).length === 0 ? 'none' : Object.entries(modes).map(([workspaceId, mode]) => `${workspaceId}: ${mode === null ? 'unknown' : String(mode)}`).join(', ');

/** A joined participant whose access differs from the config: named, since no spec operation changes it. */
function invitationWarnings(desired: DesiredObject, live: JsonValue): string[] {
  if (!isObject(desired.value) || !isObject(live) || live['standing'] !== 'participant' || sameAccess(desired, live)) return [];
  const have = describeAccess(accessModesOf(live['workspaces']));
  const want = describeAccess(accessModesOf(desired.value['workspaces']));
  return [
    `${String(desired.value['guestPortalUrl'])} already takes part in the collaboration with access {${have}}, but the config declares {${want}}. ` +
      'No planned operation changes a participant\'s access (it is not invited again): change it on the portal, or declare the access it has.',
  ];
}

/** `[{"<workspaceId>":"<mode>"}, ...]` in declaration order; `expiration` in hours when declared. */
export function invitationForm(value: JsonValue): Record<string, string> {
  if (!isObject(value)) return {};
  const form: Record<string, string> = {};
  if (typeof value['guestPortalUrl'] === 'string') form['guestPortalUrl'] = value['guestPortalUrl'];
  const modes = Object.entries(accessModesOf(value['workspaces'])).map(([workspaceId, mode]) => ({ [workspaceId]: mode }));
  form['collaborationWorkspacesParticipantConfigJSON'] = JSON.stringify(modes);
  if (typeof value['expirationHours'] === 'number') form['expiration'] = String(value['expirationHours']);
  return form;
}

function invitationChange(desired: DesiredObject, live: JsonValue): Change {
  return {
    action: 'create',
    before: live,
    after: desired.value,
    request: {
      method: 'POST',
      path: `${collaborationPath(desired.ids)}/inviteParticipant`,
      form: invitationForm(desired.value),
      // A file download, and each call creates one more invitation: never retried.
      response: 'file',
      idempotent: false,
    },
  };
}

export const collaborationInvitation = {
  name: 'collaboration.invitation',
  operation: { id: 'E13', name: 'Invite collaboration participant' },
  authority: { who: 'capability Administrator (host)', role: 'administrator' },
  config: [
    {
      container: 'participant',
      variantKey: 'guestPortalUrl',
      properties: {
        guestPortalUrl: { type: 'string', minLength: 1, description: 'E13: URL of the invited portal; must use HTTPS.' },
        workspaces: {
          type: 'object',
          minProperties: 1,
          description: 'E13: access mode per workspace id: send | receive | sendAndReceive.',
          additionalProperties: { enum: [...accessModes] },
        },
        expirationHours: { type: 'number', exclusiveMinimum: 0, description: 'E13: hours until the invitation expires.' },
      },
      extract(entry, scope, declare) {
        const url = entry['guestPortalUrl'];
        if (typeof url !== 'string') return;
        declare.object({
          address: `${scope.address}.invitation[${url}]`,
          ids: { ...scope.ids, guestPortalUrl: url },
          value: pick(entry, ['guestPortalUrl', 'workspaces', 'expirationHours']),
          absent: false,
          path: [],
        });
      },
      addressOf: (entry, scope) => `${scope.address}.invitation[${String(entry['guestPortalUrl'])}]`,
    },
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = collaborationVersionGate(obj, ctx, 'Inviting a participant (E13)');
    const url = isObject(obj.value) ? obj.value['guestPortalUrl'] : undefined;
    const parsed = typeof url === 'string' ? parsedUrl(url) : undefined;
    if (typeof url === 'string' && parsed === undefined) {
      diagnostics.push(
        problem(ctx, obj, ['guestPortalUrl'], {
          code: 'invitation/invalid-url',
          message: 'The invited portal URL is not a valid URL; the portal refuses it.',
          value: url,
          expected: 'an https:// URL such as https://partner.example.org/portal',
        }),
      );
    } else if (typeof url === 'string' && parsed?.protocol !== 'https:') {
      diagnostics.push(
        problem(ctx, obj, ['guestPortalUrl'], {
          code: 'invitation/https-required',
          message: 'The invited portal URL must use HTTPS.',
          value: url,
          expected: 'an https:// URL',
        }),
      );
    }
    if (isObject(obj.value) && obj.value['workspaces'] === undefined) {
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'invitation/no-workspaces',
          message: 'An invitation needs at least one workspace and its access mode.',
          expected: 'workspaces: { <workspaceId>: send | receive | sendAndReceive }',
        }),
      );
    }
    return diagnostics;
  },
  read: readInvitation,
  inSync: invitationInSync,
  warnings: invitationWarnings,
  change: invitationChange,
  recoverAnswer: recoverInvitationFile,
  discover: discoverInvitations,
  /** The workspaces it names, when their info is declared: the guest is invited to their final state. */
  dependsOn(obj, all) {
    const workspaces = isObject(obj.value) ? Object.keys(accessModesOf(obj.value['workspaces'])) : [];
    const addresses = workspaces.map((workspaceId) => workspaceAddress(obj.ids['collaborationId'], workspaceId));
    return addresses.filter((address) => all.some((other) => other.address === address));
  },
} satisfies Kind;

/**
 * For import: pending invitations are only named. Declaring one would send a new invitation
 * (each call creates one), which a reviewer should decide on, not an import.
 */
async function discoverInvitations(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.5')) return [];
  const { hosted } = await collaborationsSeen(reader);
  const found: DiscoveredObject[] = [];
  for (const collaboration of hosted) {
    const invitations = (await reader.list(invitationsPath(collaboration.ids), INVITATIONS_FIELD)) ?? [];
    const notes = invitations.flatMap((invitation) => {
      const url = invitationGuestUrl(invitation);
      const status = typeof invitation['status'] === 'string' ? invitation['status'] : 'pending';
      if (url === undefined || !isOpen(invitation)) return [];
      const modes = Object.entries(invitationAccess(invitation)).map(([workspaceId, mode]) => `${workspaceId}: ${String(mode)}`);
      return [oneLine(`invitations: ${url} ${status}${modes.length > 0 ? ` (${modes.join(', ')})` : ''}`)];
    });
    if (notes.length > 0) {
      found.push({ path: [{ container: 'collaboration', key: collaboration.id, comment: collaboration.name }], fields: {}, notes });
    }
  }
  return found;
}
