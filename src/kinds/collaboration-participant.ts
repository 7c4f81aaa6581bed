/**
 * E11: removal of a collaboration participant, `{ portalId, absent: true }` (value null).
 * `{ portalId }` alone keeps a participant; it matters only with the collaboration's
 * `pruneParticipants: true`, whose prune declaration lists every declared portal id and guest URL.
 */
import { PortalRefusesError, type ConfigContribution, type DesiredObject, type DiscoveredObject, type PortalFacts, type PruneDeclaration } from './toolkit/contract.js';
import { defineKind } from './toolkit/define.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { collaborationVersionGate } from './toolkit/collaboration-gates.js';
import { collaborationPath, isHostParticipant, missingCollaboration, participantIdentity, participantsPath, samePortalUrl, segment } from './toolkit/collaboration-live.js';
import { collaborationsSeen, liveVersionBelow, oneLine, textOf } from './toolkit/discover.js';
import { isObject } from './toolkit/support.js';

function declaredKeys(participants: JsonValue | undefined): string[] {
  if (!Array.isArray(participants)) return [];
  return participants.flatMap((participant) => {
    if (!isObject(participant)) return [];
    const key = participant['portalId'] ?? participant['guestPortalUrl'];
    return typeof key === 'string' ? [key] : [];
  });
}

export const collaborationParticipant = defineKind({
  name: 'collaboration.participant',
  operation: { id: 'E11', name: 'Remove collaboration participant' },
  authority: { who: 'capability Administrator (roles); the collaboration host', role: 'administrator' },
  config: [removalEntries(), pruning()],
  check(obj, ctx) {
    return collaborationVersionGate(obj, ctx, 'Removing a participant (E11)');
  },
  /** `{ portalId, url }` of the participant while it takes part; null once it is gone. */
  live: {
    list: {
      path: (obj) => participantsPath(obj.ids),
      itemsField: 'participants',
      keyOf: (entry) => participantIdentity(entry).id,
      idOf: (obj) => obj.ids['participantPortalId'],
    },
    // A participants list that is not there (404) is an unknown collaboration: a participant it lacks is one already removed.
    missingEnclosing: async (obj, reader) => ((await reader.list(participantsPath(obj.ids), 'participants')) === undefined ? missingCollaboration(obj, reader) : undefined),
    // E11 is the host's call to remove a guest: the host itself is no participant to remove (the prune never removes it either).
    refusal: async (record, obj) =>
      isHostParticipant(record)
        ? new PortalRefusesError(
            'participant/host',
            `Portal ${obj.ids['participantPortalId'] ?? ''} is the host of collaboration ${obj.ids['collaborationId'] ?? ''}: E11 removes guest participants, not the host; nothing would be left to host the collaboration.`,
            "a guest participant's portal id",
          )
        : undefined,
  },
  removal: { view: (record) => participantView(participantIdentity(record)) },
  request: { path: (desired) => `${collaborationPath(desired.ids)}/participants/${segment(desired.ids, 'participantPortalId')}/remove`, form: () => ({}) },
  label: (record) => textOf((isObject(record['portalInfo']) ? record['portalInfo'] : record)['name']),
  discover: discoverParticipants,
  prune: pruneParticipants,
});

function participantView(participant: { id?: string; url?: string }): JsonObject {
  const view: JsonObject = { portalId: participant.id ?? null };
  if (participant.url !== undefined) view['url'] = participant.url;
  return view;
}

/**
 * Every live participant the collaboration's declaration names neither by portal id nor by
 * guest portal URL becomes a destructive removal. The host (`collaborationRole: Host`, this portal) is never one.
 */
async function pruneParticipants(declaration: PruneDeclaration, reader: LiveReader): Promise<DesiredObject[]> {
  const participants = await reader.list(participantsPath(declaration.ids), 'participants');
  if (!participants) {
    // No participants list (404): an unknown collaboration, said as such rather than pruned of nothing.
    const missing = await missingCollaboration(declaration, reader);
    if (missing) throw missing;
    return [];
  }
  if (participants.length === 0) return [];
  const keys = new Set(declaration.keys);
  const declared = (participant: { id?: string; url?: string }): boolean =>
    (participant.id !== undefined && keys.has(participant.id)) || declaration.keys.some((key) => samePortalUrl(key, participant.url));
  return participants
    .filter((participant) => !isHostParticipant(participant))
    .map(participantIdentity)
    .filter((participant): participant is { id: string; url?: string } => participant.id !== undefined)
    .filter((participant) => !declared(participant))
    .map((participant) => ({
      kind: declaration.kind,
      address: `${declaration.collection}[${participant.id}]`,
      ids: { ...declaration.ids, participantPortalId: participant.id },
      value: null,
      absent: true,
      destructive: true,
      source: declaration.source,
    }));
}

function removalEntries(): ConfigContribution {
  return {
    container: 'participant',
    variantKey: 'portalId',
    properties: {
      portalId: { type: 'string', minLength: 1, description: "E11: the participant portal's id." },
      absent: { type: 'boolean', description: 'true: remove the participant from the collaboration (E11).' },
    },
    extract(entry, scope, declare) {
      const portalId = entry['portalId'];
      if (typeof portalId !== 'string' || entry['absent'] !== true) return;
      declare.object({
        address: `${scope.address}.participant[${portalId}]`,
        ids: { ...scope.ids, participantPortalId: portalId },
        value: null,
        absent: true,
        path: [],
      });
    },
    addressOf: (entry, scope) => `${scope.address}.participant[${String(entry['portalId'])}]`,
  };
}

function pruning(): ConfigContribution {
  return {
    container: 'collaboration',
    properties: {
      pruneParticipants: {
        type: 'boolean',
        description:
          'true: remove every participant not declared in participants (destructive; apply needs --allow-destructive).',
      },
    },
    extract(entry, scope, declare) {
      if (entry['pruneParticipants'] !== true) return;
      declare.prune({
        collection: `${scope.address}.participant`,
        kind: 'collaboration.participant',
        ids: scope.ids,
        keys: declaredKeys(entry['participants']),
        path: ['pruneParticipants'],
      });
    },
  };
}

/** For import: participants can only be removed, so each one is only named on its collaboration. */
async function discoverParticipants(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.5')) return [];
  const { hosted } = await collaborationsSeen(reader);
  const found: DiscoveredObject[] = [];
  for (const collaboration of hosted) {
    const participants = (await reader.list(participantsPath(collaboration.ids), 'participants')) ?? [];
    const notes = participants.flatMap((participant) => {
      const { id, url } = participantIdentity(participant);
      if (id === undefined || isHostParticipant(participant)) return [];
      const info = isObject(participant['portalInfo']) ? participant['portalInfo'] : participant;
      const name = textOf(info['name']);
      return [oneLine(`participants: ${id}${name ? ` ${name}` : ''}${url ? ` (${url})` : ''}`)];
    });
    if (notes.length > 0) {
      found.push({ path: [{ container: 'collaboration', key: collaboration.id, comment: collaboration.name }], fields: {}, notes });
    }
  }
  return found;
}
