/** groups: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, Group } from '../state/model.js';
import type { Caller } from '../shared/types.js';
import { containsText, matchesNumber, sameKeyword, type SearchFields } from '../shared/search.js';
import { findBy } from '../state/store.js';

export function groupNotFound(groupId: string): PortalApiError {
  return new PortalApiError(400, 'Group does not exist or is inaccessible.', 'CONT_0006', [`No group with id '${groupId}'.`]);
}

export function findGroup(state: EmulatorState, groupId: string): Group {
  const group = findBy(state.groups, 'id', groupId);
  if (!group) throw groupNotFound(groupId);
  return group;
}

/** The documented group object, with the caller's membership. */
export function groupView(group: Group, caller: Caller): Record<string, unknown> {
  const username = caller.user.username;
  const memberType =
    group.owner === username ? 'owner' : group.managers.includes(username) ? 'admin' : group.members.includes(username) ? 'member' : 'none';
  return {
    id: group.id,
    title: group.title,
    isInvitationOnly: true,
    owner: group.owner,
    description: '',
    snippet: '',
    tags: [...group.tags],
    phone: null,
    sortField: 'title',
    sortOrder: 'asc',
    isViewOnly: false,
    thumbnail: null,
    created: group.created,
    modified: group.created,
    access: group.access,
    capabilities: [],
    isFav: false,
    isReadOnly: false,
    protected: false,
    autoJoin: false,
    notificationsEnabled: false,
    provider: null,
    providerGroupName: null,
    userMembership: { username, memberType, applications: 0 },
  };
}

/**
 * The search fields of groups (Search reference: `id`, `owner`, `orgid`, `title`, `access`,
 * `tags`, and `accountid` as for items; bare terms search id, title, tags and owner, the
 * documented default fields the emulator keeps). Owner values are case-sensitive.
 */
export function groupSearchFields(state: EmulatorState): SearchFields<Group> {
  const inOrganization = (_group: Group, value: string): boolean => value === '*' || value === state.organization.id;
  return {
    what: 'groups',
    fields: {
      id: (group, value) => sameKeyword(group.id, value),
      owner: (group, value) => value === '*' || group.owner === value,
      orgid: inOrganization,
      accountid: inOrganization,
      title: (group, value) => containsText(group.title, value),
      access: (group, value) => sameKeyword(group.access, value),
      tags: (group, value) => group.tags.some((tag) => sameKeyword(tag, value)),
      created: (group, value) => matchesNumber(group.created, value),
    },
    text: (group, value) => sameKeyword(group.id, value) || containsText(group.title, value) || group.tags.some((tag) => sameKeyword(tag, value)) || group.owner === value,
  };
}

/** `community/groups/{g}/users` (documented): the owner, the admins (owner and managers) and the other members, by username. */
export function groupUsersView(group: Group): Record<string, unknown> {
  const admins = [...new Set([group.owner, ...group.managers])];
  return { owner: group.owner, admins, users: group.members.filter((member) => !admins.includes(member)) };
}
