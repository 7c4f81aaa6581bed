/**
 * E4: a member's user level. Value: the level number (1 or 2). The operation exists only on the
 * self-managed edition at 10.6.1 or earlier.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { DiscoveredObject, PortalFacts } from './toolkit/contract.js';
import { entryProperty } from './toolkit/config-entries.js';
import { defineKind } from './toolkit/define.js';
import { type LiveReader } from '../core/request.js';
import { compareVersions } from '../core/version.js';
import { missingUser, pathId, requiredId } from './toolkit/live.js';
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
