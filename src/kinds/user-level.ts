/**
 * E4: a member's user level. Value: the level number (1 or 2). The operation exists only on the
 * self-managed edition at 10.6.1 or earlier.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { PortalRefusesError, type DesiredObject, type DiscoveredObject, type PortalFacts } from './toolkit/contract.js';
import type { JsonObject } from '../core/json.js';
import { counted } from '../core/words.js';
import { entryProperty } from './toolkit/config-entries.js';
import { defineKind } from './toolkit/define.js';
import { type LiveReader } from '../core/request.js';
import { compareVersions } from '../core/version.js';
import { BUILT_IN_ROLE_IDS, missingUser, pathId, requiredId } from './toolkit/live.js';
import { problem } from './toolkit/support.js';
import { oneLine, textOf } from './toolkit/discover.js';

export const userLevel = defineKind({
  name: 'user.level',
  operation: { id: 'E4', name: 'Update user level' },
  authority: { who: 'organization administrators', role: 'administrator' },
  config: [
    entryProperty(
      'user',
      'level',
      {
        enum: [1, 2],
        description: 'E4: 1 (custom role with at most 9 privileges, owns no content) or 2 (any role). Self-managed 10.6.1 or earlier only.',
      },
      (level) => (typeof level === 'number' ? level : undefined),
    ),
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    const { edition, version } = ctx.portal;
    const tooNew = edition !== 'hosted' && version !== undefined && (compareVersions(version, '10.6.1') ?? -1) > 0;
    if (edition === 'hosted' || tooNew) {
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'user-level/unavailable',
          message:
            edition === 'hosted'
              ? 'User levels (E4) cannot be set on the hosted edition; user types replaced them.'
              : `User levels (E4) can be set only on self-managed 10.6.1 or earlier; the portal is ${version}.`,
          value: obj.value,
          expected: 'no level (manage user types instead), or portal self-managed 10.6.1 or earlier',
        }),
      );
    }
    return diagnostics;
  },
  live: {
    one: (obj, reader) => reader.get(`/community/users/${pathId(obj, 'username')}`),
    list: { path: () => USERS_PATH, itemsField: 'users', keyOf: (entry) => textOf(entry['username']), idOf: (obj) => obj.ids['username'] },
    missing: missingUser,
    refusal: levelOneRefusal,
  },
  value: {
    // The portal reports the level as a string ("1" or "2").
    read(record) {
      const level = Number(record['level']);
      return level === 1 || level === 2 ? level : null;
    },
    action: () => 'update',
  },
  request: {
    path: () => '/portals/self/updateUserLevel',
    form: (desired) => ({ user: requiredId(desired, 'username'), level: desired.value }),
  },
  label: (record) => textOf(record['fullName']),
  discover: discoverUserLevels,
});

const USERS_PATH = '/portals/self/users';

/**
 * Why the portal would refuse to move this user to level 1 (spec E4: "for level 1 the user has
 * a custom role and owns no items or groups"; ORG_1084), read only when the plan would send it.
 * A `roleId` the answer leaves out is unknown and refuses nothing.
 */
async function levelOneRefusal(record: JsonObject, obj: DesiredObject, reader: LiveReader): Promise<PortalRefusesError | undefined> {
  if (obj.value !== 1 || Number(record['level']) === 1) return undefined;
  const username = requiredId(obj, 'username');
  const roleId = textOf(record['roleId']);
  if (roleId !== undefined && BUILT_IN_ROLE_IDS.has(roleId)) {
    return new PortalRefusesError(
      'user-level/custom-role-only',
      `Level 1 is for users with a custom role only; ${username} has the built-in role ${roleId}, so the portal would refuse it.`,
      'level 2, or a custom role for the user first',
    );
  }
  // `owner:` searches, the first page only: its `total` is the count.
  const query = `q=${encodeURIComponent(`owner:"${username}"`)}&num=1`;
  const [items, groups] = await Promise.all([ownedCount(reader, `/search?${query}`), ownedCount(reader, `/community/groups?${query}`)]);
  if (items === 0 && groups === 0) return undefined;
  const owned = [items > 0 ? counted(items, 'item') : undefined, groups > 0 ? counted(groups, 'group') : undefined].filter(Boolean).join(' and ');
  return new PortalRefusesError(
    'user-level/owns-content',
    `A level 1 user may not own items or groups; ${username} owns ${owned}, so the portal would refuse it (ORG_1084).`,
    "level 2, or the user's items and groups reassigned first",
  );
}

async function ownedCount(reader: LiveReader, path: string): Promise<number> {
  const answer = await reader.get(path);
  const total = answer?.['total'];
  if (typeof total === 'number') return total;
  const results = answer?.['results'];
  return Array.isArray(results) ? results.length : 0;
}

/** For import: every member's level, only where levels can be set (self-managed 10.6.1 or earlier). */
async function discoverUserLevels(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  const { edition, version } = portal;
  const order = version === undefined ? undefined : compareVersions(version, '10.6.1');
  if (edition !== 'self-managed' || order === undefined || order > 0) return [];
  const users = (await reader.list(USERS_PATH, 'users')) ?? [];
  return users.flatMap((user): DiscoveredObject[] => {
    const username = textOf(user['username']);
    // The portal reports the level as a string ("1" or "2").
    const level = Number(user['level']);
    if (username === undefined || (level !== 1 && level !== 2)) return [];
    const fullName = textOf(user['fullName']);
    return [{ path: [{ container: 'user', key: username, ...(fullName ? { comment: oneLine(fullName) } : {}) }], fields: { level } }];
  });
}
