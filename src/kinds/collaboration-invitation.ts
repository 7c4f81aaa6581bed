/**
 * E13: an invitation of a guest portal to the collaboration. Value:
 * `{ guestPortalUrl, workspaces: { <workspaceId>: send|receive|sendAndReceive }, expirationHours? }`.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { Change, DesiredObject, DiscoveredObject, Kind, PortalFacts } from './contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { deepEqual } from '../core/json.js';
import { collaborationVersionGate } from './collaboration-gates.js';
import {
  accessModesOf,
  collaborationPath,
  invitationsPath,
  participantIdentity,
  participantsPath,
  samePortalUrl,
  workspaceAddress,
} from './collaboration-live.js';
import { isObject, pick, problem } from './support.js';
import { collaborationsSeen, liveVersionBelow, oneLine } from './discover.js';

export const accessModes = ['send', 'receive', 'sendAndReceive'] as const;

/** Invitations in these states no longer stand for the guest portal (an expired one may be re-sent). */
const closedStatuses = new Set(['expired', 'declined', 'rejected', 'cancelled', 'canceled', 'revoked']);

/**
 * The guest portal's live standing, `{ guestPortalUrl, workspaces }`: as a participant that
 * joined, or as a pending invitation. Among several, the one with the declared access wins, so
 * a portal already invited with that access is never invited again; null when neither exists.
 */
async function readInvitation(obj: DesiredObject, reader: LiveReader): Promise<JsonValue> {
  const url = obj.ids['guestPortalUrl'];
  const [participants, invitations] = await Promise.all([
    reader.list(participantsPath(obj.ids), 'participants'),
    reader.list(invitationsPath(obj.ids), 'invitations'),
  ]);
  const standing: JsonObject[] = [];
  for (const participant of participants ?? []) {
    const identity = participantIdentity(participant);
    if (samePortalUrl(identity.url, url)) {
      standing.push({ guestPortalUrl: identity.url ?? null, workspaces: accessModesOf(participant['workspaces']) });
    }
  }
  for (const invitation of invitations ?? []) {
    const status = typeof invitation['status'] === 'string' ? invitation['status'].toLowerCase() : 'pending';
    if (closedStatuses.has(status) || !samePortalUrl(invitation['guestPortalUrl'], url)) continue;
    standing.push({ guestPortalUrl: invitation['guestPortalUrl'] ?? null, workspaces: accessModesOf(invitation['workspaces']) });
  }
  const wanted = isObject(obj.value) ? accessModesOf(obj.value['workspaces']) : {};
  return standing.find((entry) => deepEqual(entry['workspaces'], wanted)) ?? standing[0] ?? null;
}

function invitationInSync(desired: DesiredObject, live: JsonValue): boolean {
  if (!isObject(desired.value) || !isObject(live)) return false;
  return (
    samePortalUrl(desired.value['guestPortalUrl'], live['guestPortalUrl']) &&
    deepEqual(accessModesOf(desired.value['workspaces']), accessModesOf(live['workspaces']))
  );
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
    if (typeof url === 'string' && !/^https:\/\/[^/\s]+/i.test(url)) {
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
  change: invitationChange,
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
    const invitations = (await reader.list(invitationsPath(collaboration.ids), 'invitations')) ?? [];
    const notes = invitations.flatMap((invitation) => {
      const url = invitation['guestPortalUrl'];
      const status = typeof invitation['status'] === 'string' ? invitation['status'].toLowerCase() : 'pending';
      if (typeof url !== 'string' || closedStatuses.has(status)) return [];
      const modes = Object.entries(accessModesOf(invitation['workspaces'])).map(([workspaceId, mode]) => `${workspaceId}: ${String(mode)}`);
      return [oneLine(`invitations: ${url} ${status}${modes.length > 0 ? ` (${modes.join(', ')})` : ''}`)];
    });
    if (notes.length > 0) {
      found.push({ path: [{ container: 'collaboration', key: collaboration.id, comment: collaboration.name }], fields: {}, notes });
    }
  }
  return found;
}
