/**
 * E14: removal of a workspace's portal group link. `absent` is the only value; value: null.
 */
import type { DiscoveredObject, PortalFacts } from './toolkit/contract.js';
import { absentProperty } from './toolkit/config-entries.js';
import { defineKind } from './toolkit/define.js';
import type { JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { collaborationVersionGate } from './toolkit/collaboration-gates.js';
import { missingWorkspace, organizationQuery, ownGroupLink, workspacePath } from './toolkit/collaboration-live.js';
import { collaborationsSeen, liveVersionBelow, oneLine, textOf, workspacesOf } from './toolkit/discover.js';

export const workspacePortalGroupLink = defineKind({
  name: 'collaboration.workspace.portalGroupLink',
  operation: { id: 'E14', name: 'Remove workspace portal-group link' },
  authority: { who: 'capability Administrator', role: 'administrator' },
  config: [
    absentProperty('workspace', 'portalGroupLink', "E14: `absent` removes the link between the workspace and this portal's group; replication stops."),
  ],
  check(obj, ctx) {
    return collaborationVersionGate(obj, ctx, 'Removing a workspace portal-group link (E14)');
  },
  /**
   * This portal's entry of the workspace's `participantGroupLinks` (the one that carries the
   * group id, which the portal reports only for the caller's own link), `{ portalId, portalGroupId }`;
   * null when it has none.
   */
  live: {
    one: async (obj, reader) => {
      const workspace = await reader.get(workspacePath(obj.ids));
      return workspace && ownGroupLink(workspace) ? workspace : undefined;
    },
    missingEnclosing: missingWorkspace,
  },
  removal: {
    view(workspace) {
      const link = ownGroupLink(workspace) ?? {};
      const portalId: JsonValue = typeof link['portalId'] === 'string' ? link['portalId'] : null;
      return { portalId, portalGroupId: link['portalGroupId'] ?? null };
    },
  },
  request: { path: (desired) => `${workspacePath(desired.ids)}/removePortalGroupLink`, form: () => ({}) },
  label(workspace) {
    const group = textOf(ownGroupLink(workspace)?.['portalGroupName']);
    const name = textOf(workspace['name']);
    return name && group ? `${name} (group ${group})` : (name ?? group);
  },
  discover: discoverPortalGroupLinks,
});

/** For import: a link can only be removed, so this portal's link of each workspace is only named (with the group's title). */
async function discoverPortalGroupLinks(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.5')) return [];
  const { hosted } = await collaborationsSeen(reader);
  const found: DiscoveredObject[] = [];
  for (const collaboration of hosted) {
    for (const live of await workspacesOf(reader, collaboration)) {
      const workspaceId = textOf(live['id']);
      const link = ownGroupLink(live);
      const groupId = link ? textOf(link['portalGroupId']) : undefined;
      if (workspaceId === undefined || groupId === undefined || link === undefined) continue;
      const groups = (await reader.list(`/community/groups?${await organizationQuery(reader)}`, 'results')) ?? [];
      const title = textOf(groups.find((group) => group['id'] === groupId)?.['title']) ?? textOf(link['portalGroupName']);
      const name = textOf(live['name']);
      found.push({
        path: [
          { container: 'collaboration', key: collaboration.id, comment: collaboration.name },
          { container: 'workspace', key: workspaceId, ...(name ? { comment: oneLine(name) } : {}) },
        ],
        fields: {},
        notes: [oneLine(`portalGroupLink: group ${groupId}${title ? ` (${title})` : ''}; only its removal can be declared (portalGroupLink: absent).`)],
      });
    }
  }
  return found;
}
