/** users: the portal's rules (checks that refuse a request before anything changes). */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, User } from '../state/model.js';
import { appMay, forbidden } from '../shared/access.js';
import { badRequest } from '../shared/params.js';
import type { Caller } from '../shared/types.js';
import { requireVersion } from '../shared/versions.js';
import { compareVersions } from '../state/releases.js';
import { findUser } from './store.js';

export const LAST_VERSION_WITH_USER_LEVELS = '10.6.1';

export const TASKS_INTRODUCED_IN = '10.8.1';

export function requireUserLevelsAvailable(state: EmulatorState): void {
  const { edition, version } = state.organization;
  if (edition !== 'self-managed' || compareVersions(version, LAST_VERSION_WITH_USER_LEVELS) > 0) {
    throw badRequest('Invalid URL: updateUserLevel is not available on this portal.', [
      `updateUserLevel exists only on the self-managed edition at version ${LAST_VERSION_WITH_USER_LEVELS} or earlier ` +
        `(user levels were replaced by user types); this portal is ${edition} ${version}.`,
    ]);
  }
}

/** Tasks of a user: reserved to default administrators and the user themself. */
export function taskOwner(state: EmulatorState, caller: Caller, username: string, operation: string): User {
  requireVersion(state.organization, operation, TASKS_INTRODUCED_IN);
  const allowed = caller.app ? appMay(caller, operation) : caller.isDefaultAdmin || caller.user.username === username;
  if (!allowed) {
    throw forbidden(`${operation} is reserved to default administrators and the user '${username}'.`);
  }
  return findUser(state, username);
}

/** The user searches need `q`, as the item and group searches do (400 without it). */
export const usersNeedQuery = (): PortalApiError => new PortalApiError(400, "'q' parameter is required", undefined, []);
