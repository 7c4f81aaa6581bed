/** users: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import { effectivePrivileges } from '../auth.js';
import { PortalApiError, notFound } from '../errors.js';
import type { EmulatorState, Task, User } from '../state/model.js';
import { badRequest } from '../shared/params.js';
import { containsText, sameKeyword, type SearchFields } from '../shared/search.js';
import type { Caller } from '../shared/types.js';
import { isList, isRecord } from '../state/json.js';
import { findBy, ListIndex } from '../state/store.js';

export const BUILT_IN_ROLE_IDS: readonly string[] = ['org_admin', 'org_publisher', 'org_user'];

export function userNotFound(username: string): PortalApiError {
  return new PortalApiError(400, 'User does not exist or is inaccessible.', undefined, [`No user named '${username}'.`]);
}

export function findUser(state: EmulatorState, username: string): User {
  const user = findBy(state.users, 'username', username);
  if (!user) throw userNotFound(username);
  return user;
}

/** The built-in role a user is reported with, and the custom role's id (or the built-in name) as roleId. */
export function reportedRole(state: EmulatorState, user: User): { role: string; roleId: string } {
  if (BUILT_IN_ROLE_IDS.includes(user.role)) return { role: user.role, roleId: user.role };
  const privileges = findBy(state.roles, 'id', user.role)?.privileges ?? [];
  const role = privileges.some((privilege) => privilege.startsWith('portal:admin:'))
    ? 'org_admin'
    : privileges.some((privilege) => privilege.startsWith('portal:publisher:'))
      ? 'org_publisher'
      : 'org_user';
  return { role, roleId: user.role };
}

/** A stable 32-hex id for a name (users have no id in the data file). */
export function idFor(name: string): string {
  let hash = 0x811c9dc5;
  let out = '';
  for (let round = 0; round < 4; round += 1) {
    for (const char of `${round}:${name}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    out += hash.toString(16).padStart(8, '0');
  }
  return out;
}

/** The fields `portals/self` `user` shares with the full user profile. */
export function userSummary(state: EmulatorState, user: Readonly<User>): Record<string, unknown> {
  return {
    username: user.username,
    id: idFor(user.username),
    fullName: user.fullName,
    email: `${user.username}@${state.organization.hostname}`,
    orgId: state.organization.id,
    ...reportedRole(state, user),
    privileges: effectivePrivileges(state, user),
    level: String(user.level),
    userLicenseTypeId: user.level === 1 ? 'viewerUT' : 'creatorUT',
    userType: 'both',
    disabled: false,
    access: 'org',
    created: 0,
    modified: 0,
    provider: 'arcgis',
  };
}

function nameParts(user: User): { firstName: string; lastName: string } {
  const [firstName = user.fullName, ...rest] = user.fullName.split(' ');
  return { firstName, lastName: rest.join(' ') };
}

/**
 * A member as `portals/self/users` lists it (wire sample portals-self-users.json): the fields of
 * `portals/self` `user` plus the names and the last sign-in.
 */
export function memberView(state: EmulatorState, user: User): Record<string, unknown> {
  return { ...userSummary(state, user), ...nameParts(user), lastLogin: -1 };
}

/**
 * The search fields of users (Search reference: `username`, `fullname`, `firstname`,
 * `lastname`, `role`, `orgid`, `accountid`, `access`; bare terms search the username and the
 * full name). `role` matches the reported built-in role or the role id (a custom role's id).
 */
export function userSearchFields(state: EmulatorState): SearchFields<User> {
  const inOrganization = (_user: User, value: string): boolean => value === '*' || value === state.organization.id;
  return {
    what: 'users',
    fields: {
      username: (user, value) => sameKeyword(user.username, value),
      fullname: (user, value) => containsText(user.fullName, value),
      firstname: (user, value) => sameKeyword(nameParts(user).firstName, value),
      lastname: (user, value) => sameKeyword(nameParts(user).lastName, value),
      role: (user, value) => {
        const { role, roleId } = reportedRole(state, user);
        return sameKeyword(role, value) || sameKeyword(roleId, value);
      },
      orgid: inOrganization,
      accountid: inOrganization,
      access: (_user, value) => sameKeyword('org', value),
    },
    text: (user, value) => sameKeyword(user.username, value) || containsText(user.fullName, value),
  };
}

/** `community/users/{u}/update`: the profile fields the emulator keeps; any other is refused (not silently dropped). */
export const UPDATABLE_PROFILE_FIELDS = ['fullName', 'firstName', 'lastName', 'tags'] as const;
const updatableProfileFields: ReadonlySet<string> = new Set(UPDATABLE_PROFILE_FIELDS);

export function updateProfile(user: User, params: Readonly<Record<string, string>>): void {
  const unknown = Object.keys(params).filter((name) => !updatableProfileFields.has(name));
  if (unknown.length > 0) {
    throw badRequest(`The emulator cannot update the user's ${unknown.map((name) => `'${name}'`).join(', ')}.`, [
      `It keeps ${UPDATABLE_PROFILE_FIELDS.join(', ')} of a user profile.`,
    ]);
  }
  const names = nameParts(user);
  if (params['fullName'] !== undefined) {
    user.fullName = params['fullName'];
  } else if (params['firstName'] !== undefined || params['lastName'] !== undefined) {
    user.fullName = [params['firstName'] ?? names.firstName, params['lastName'] ?? names.lastName].filter((part) => part !== '').join(' ');
  }
  if (params['tags'] !== undefined) user.tags = params['tags'].split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
}

/** Positions of the groups each user belongs to (owner, manager or member). */
const membership = new ListIndex((committed) => {
  const byUser = new Map<string, number[]>();
  const names = (value: unknown): readonly unknown[] => (isList(value) ? value : []);
  committed.forEach((group, position) => {
    if (!isRecord(group)) return;
    for (const name of new Set([group.owner, ...names(group.managers), ...names(group.members)])) {
      if (typeof name === 'string') byUser.set(name, [...(byUser.get(name) ?? []), position]);
    }
  });
  return byUser;
});

/** Groups a user belongs to (owner, manager or member), from an index over the committed groups. */
export function groupsOf(state: EmulatorState, username: string): Record<string, unknown>[] {
  return (membership.of(state.groups).get(username) ?? []).flatMap((position) => {
    const group = state.groups[position];
    if (!group) return [];
    const memberType = group.owner === username ? 'owner' : group.managers.includes(username) ? 'admin' : 'member';
    return [{ id: group.id, title: group.title, owner: group.owner, access: group.access, userMembership: { username, memberType, applications: 0 } }];
  });
}

/**
 * community/users/{u}: the full profile for the user themself and administrators; others see
 * the public profile only (documented).
 */
export function userView(state: EmulatorState, user: User, caller?: Caller): Record<string, unknown> {
  const { firstName, lastName } = nameParts(user);
  const publicProfile = {
    username: user.username,
    fullName: user.fullName,
    description: '',
    tags: [...user.tags],
    culture: 'en',
    region: 'US',
    units: 'metric',
    thumbnail: 'profile.png',
    created: 0,
    modified: 0,
    provider: 'arcgis',
  };
  const full = caller === undefined || caller.isDefaultAdmin || caller.user.username === user.username || caller.hasPrivilege('portal:admin:viewUsers');
  if (!full) return publicProfile;
  const summary = userSummary(state, user);
  return {
    ...publicProfile,
    ...summary,
    availableCredits: 0,
    assignedCredits: 0,
    firstName,
    lastName,
    preferredView: 'Web',
    idpUsername: null,
    favGroupId: idFor(`favorites:${user.username}`),
    lastLogin: -1,
    mfaEnabled: false,
    storageUsage: 0,
    storageQuota: 2147483648,
    groups: groupsOf(state, user.username),
  };
}

/** Task fields per the documented list element (community/users/{u}/tasks). */
export const taskView = (user: User, task: Task): Record<string, unknown> => ({
  id: task.id,
  itemId: task.itemId,
  type: task.type,
  title: task.title,
  userId: user.username,
  cronSchedule: { minute: '0', hour: '*', dayOfMonth: '*', month: '*', dayOfWeek: '?' },
  runIntervalSeconds: 3600,
  lastStart: -1,
  maxOccurrences: -1,
  parameters: { updatePortalItem: false, saveInjectedParameters: false, notebookParameters: '{}' },
  created: 0,
  updated: 0,
  startDate: 0,
  active: task.active,
  taskState: task.active ? 'active' : 'completed',
});

/** How many more active tasks a user may have (the documented `activeTasksAvailable`). */
export const MAX_ACTIVE_TASKS = 20;

export function findTask(user: User, taskId: string): Task {
  const task = user.tasks.find((candidate) => candidate.id === taskId);
  if (!task) throw notFound();
  return task;
}

const ownersIndex = new ListIndex((committed) => {
  const found = new Set<string>();
  for (const element of committed) {
    const owner = isRecord(element) ? element.owner : undefined;
    if (typeof owner === 'string') found.add(owner);
  }
  return found;
});

/** Everyone who owns an element of `list` (an index over the committed list). */
export function owners(list: readonly { owner: string }[]): Set<string> {
  return ownersIndex.of(list);
}

export function changeLevel(state: EmulatorState, user: User, level: 1 | 2): void {
  if (user.level === level) return;
  if (level === 1) {
    if (BUILT_IN_ROLE_IDS.includes(user.role)) {
      throw badRequest("Unable to change the user's level; level 1 is for users with a custom role only.", [
        `'${user.username}' has the built-in role ${user.role}; give them a custom role first.`,
      ]);
    }
    const ownsItems = owners(state.items).has(user.username);
    const ownsGroups = owners(state.groups).has(user.username);
    if (ownsItems || ownsGroups) {
      throw new PortalApiError(400, "Unable to change the user's level. User must not own items or groups.", 'ORG_1084');
    }
  }
  const disallowed = user.licences.filter((licence) => licence.minLevel > level);
  if (disallowed.length > 0) {
    throw badRequest(`Unable to change the user's level; licences not allowed at level ${level}.`, [
      `'${user.username}' holds licences for ${disallowed.map((licence) => licence.app).join(', ')}, which need a higher level.`,
    ]);
  }
  const quotas = state.organization.quotas;
  const target = level === 1 ? 'level1' : 'level2';
  const left = level === 1 ? 'level2' : 'level1';
  const remaining = quotas[target];
  if (remaining !== undefined && remaining <= 0) {
    throw badRequest(`Unable to change the user's level; no level ${level} seat is left.`, [
      `The organization's level ${level} quota is exhausted.`,
    ]);
  }
  if (remaining !== undefined) quotas[target] = remaining - 1;
  const freed = quotas[left];
  if (freed !== undefined) quotas[left] = freed + 1;
  user.level = level;
}
