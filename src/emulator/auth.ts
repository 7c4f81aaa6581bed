/**
 * Authentication: tokens to users, users to callers with privileges, and the two token
 * endpoints (`generateToken`, `oauth2/token`).
 */
import { randomBytes } from 'node:crypto';
import { PortalApiError } from './errors.js';
import { LEVEL_1_PRIVILEGES, type EmulatorState, type Role, type Token, type User } from './state/model.js';
import { findBy } from './state/store.js';
import type { Caller } from './shared/types.js';

/** What a default administrator (org_admin) holds; `hasPrivilege` is true for anything else as well. */
export const ADMIN_PRIVILEGES: readonly string[] = [
  'portal:admin:assignToGroups',
  'portal:admin:changeUserRoles',
  'portal:admin:deleteGroups',
  'portal:admin:deleteItems',
  'portal:admin:deleteUsers',
  'portal:admin:disableUsers',
  'portal:admin:inviteUsers',
  'portal:admin:manageCollaborations',
  'portal:admin:manageEnterpriseGroups',
  'portal:admin:manageLicenses',
  'portal:admin:manageRoles',
  'portal:admin:manageSecurity',
  'portal:admin:manageServers',
  'portal:admin:manageUtilityServices',
  'portal:admin:manageWebhooks',
  'portal:admin:reassignGroups',
  'portal:admin:reassignItems',
  'portal:admin:reassignUsers',
  'portal:admin:updateGroups',
  'portal:admin:updateItemCategorySchema',
  'portal:admin:updateItems',
  'portal:admin:updateMemberCategorySchema',
  'portal:admin:updateUsers',
  'portal:admin:viewGroups',
  'portal:admin:viewItems',
  'portal:admin:viewUsers',
];

/** The built-in User role: join, view and share; no administrative privilege. */
export const USER_PRIVILEGES: readonly string[] = [
  ...LEVEL_1_PRIVILEGES,
  'portal:user:createGroup',
  'portal:user:createItem',
  'portal:user:shareToGroup',
  'portal:user:shareToOrg',
  'portal:user:shareToPublic',
  'portal:user:shareGroupToOrg',
  'portal:user:shareGroupToPublic',
];

/** The built-in Publisher role: the User role plus hosted publishing. */
export const PUBLISHER_PRIVILEGES: readonly string[] = [
  ...USER_PRIVILEGES,
  'portal:publisher:publishFeatures',
  'portal:publisher:publishScenes',
  'portal:publisher:publishTiles',
  'portal:publisher:publishDynamicImagery',
  'portal:publisher:publishTiledImagery',
];

/**
 * The privileges a user effectively holds. A level 1 user keeps only the LEVEL_1_PRIVILEGES of
 * its role (the portal disables the rest); org_admin users are level 2 in practice.
 */
export function effectivePrivileges(state: EmulatorState, user: User): string[] {
  const granted = rolePrivileges(state, user);
  return user.level === 1 && user.role !== 'org_admin' ? granted.filter((p) => LEVEL_1_PRIVILEGES.includes(p)) : granted;
}

function rolePrivileges(state: EmulatorState, user: User): string[] {
  switch (user.role) {
    case 'org_admin':
      return [...ADMIN_PRIVILEGES, ...PUBLISHER_PRIVILEGES];
    case 'org_publisher':
      return [...PUBLISHER_PRIVILEGES];
    case 'org_user':
      return [...USER_PRIVILEGES];
    default:
      return [...(findCustomRole(state, user)?.privileges ?? [])];
  }
}

export function findCustomRole(state: EmulatorState, user: User): Role | undefined {
  return findBy(state.roles, 'id', user.role);
}

/** The caller behind a token: its user, or for an app token the app acting with its own privileges. */
export function callerForToken(state: EmulatorState, token: Token): Caller {
  const client = token.clientId !== undefined ? state.oauthClients.find((candidate) => candidate.clientId === token.clientId) : undefined;
  if (token.clientId !== undefined && !client) throw invalidToken();
  if (client) {
    const privileges = new Set(client.privileges);
    const standIn: User = { username: client.clientId, fullName: client.title, role: 'org_user', level: 2, tags: [], licences: [], tasks: [] };
    return { user: standIn, app: client, isDefaultAdmin: false, hasPrivilege: (privilege) => privileges.has(privilege) };
  }
  const user = state.users.find((candidate) => candidate.username === token.username);
  if (!user) throw invalidToken();
  return callerFor(state, user);
}

export function callerFor(state: EmulatorState, user: User): Caller {
  const isDefaultAdmin = user.role === 'org_admin';
  const privileges = new Set(effectivePrivileges(state, user));
  const customRole = findCustomRole(state, user);
  return {
    user,
    ...(customRole ? { customRole } : {}),
    isDefaultAdmin,
    hasPrivilege: (privilege) => isDefaultAdmin || privileges.has(privilege),
  };
}

export const tokenRequired = (): PortalApiError => new PortalApiError(499, 'Token Required', undefined, []);
export const invalidToken = (): PortalApiError => new PortalApiError(498, 'Invalid token.', undefined, []);

/**
 * The caller behind a token. Missing token: 499. Unknown, expired, orphaned, or referer-bound
 * and used with another Referer: 498.
 */
export function authenticate(state: EmulatorState, token: string | undefined, referer: string | undefined, now: number): Caller {
  if (token === undefined || token === '') throw tokenRequired();
  const record = findBy(state.tokens, 'token', token);
  // A refresh token only buys new tokens at oauth2/token; it is no access token.
  if (!record || record.refreshOf !== undefined) throw invalidToken();
  if (record.expires !== undefined && record.expires <= now) throw invalidToken();
  if (record.referer !== undefined && record.referer !== referer) throw invalidToken();
  return callerForToken(state, record);
}

/**
 * The token of a request, in the documented ways only: the `token` field (form or query), or a
 * `Bearer` token in `X-Esri-Authorization` or `Authorization` (the emulator has no web-tier
 * authentication, so the standard header is allowed too). Anything else (another scheme, a bare
 * header value, a cookie, `access_token`) is no token at all.
 */
export function requestToken(params: Readonly<Record<string, string>>, headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const fromParams = params['token'];
  if (fromParams !== undefined && fromParams !== '') return fromParams;
  for (const name of ['authorization', 'x-esri-authorization']) {
    const header = headers[name];
    const value = Array.isArray(header) ? header[0] : header;
    const match = value !== undefined ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
    if (match?.[1]) return match[1];
  }
  return undefined;
}

function newTokenValue(): string {
  return randomBytes(32).toString('base64url');
}

function unableToGenerateToken(detail: string): PortalApiError {
  return new PortalApiError(400, 'Unable to generate token.', undefined, [detail]);
}

const MINUTE_MS = 60_000;

function positiveMinutes(value: string | undefined, fallback: number, fail: (detail: string) => PortalApiError): number {
  if (value === undefined || value === '') return fallback;
  const minutes = Number(value);
  if (!Number.isFinite(minutes) || minutes <= 0) throw fail(`'expiration' must be a positive number of minutes, not "${value}".`);
  return minutes;
}

/**
 * `POST /generateToken`: username + password -> a token added to the state. `client=referer`
 * binds it to `referer`; `client=requestip` and `client=ip` are accepted without binding (the
 * emulator does not check addresses).
 */
export function generateToken(
  draft: EmulatorState,
  params: Readonly<Record<string, string>>,
  now: number,
): { token: string; expires: number; ssl: boolean } {
  const username = params['username'] ?? '';
  const password = params['password'] ?? '';
  const user = findBy(draft.users, 'username', username);
  if (!user || user.password === undefined || user.password !== password || password === '') {
    throw unableToGenerateToken('Invalid username or password.');
  }
  const client = params['client'] ?? 'requestip';
  if (!['referer', 'requestip', 'ip'].includes(client)) {
    throw unableToGenerateToken(`'client' must be referer, requestip or ip, not "${client}".`);
  }
  const referer = params['referer'];
  if (client === 'referer' && (referer === undefined || referer === '')) {
    throw unableToGenerateToken("'referer' must be specified when client=referer.");
  }
  const minutes = positiveMinutes(params['expiration'], 60, unableToGenerateToken);
  const expires = now + Math.round(minutes * MINUTE_MS);
  const token = newTokenValue();
  draft.tokens.push({ token, username: user.username, expires, ...(client === 'referer' && referer ? { referer } : {}) });
  return { token, expires, ssl: false };
}

/** The OAuth 2 error shape: the envelope plus the standard `error` / `error_description`. */
export class OAuthError extends PortalApiError {
  constructor(
    readonly oauthError: string,
    description: string,
  ) {
    super(400, description, undefined, []);
  }

  override toBody(): { error: { code: number; message: string; details: string[]; error: string; error_description: string } } {
    return {
      error: { code: this.code, error: this.oauthError, error_description: this.message, message: this.message, details: this.details },
    };
  }
}

const REFRESH_TOKEN_SECONDS = 14 * 24 * 3600;

/** The answer of `oauth2/token`: user grants add username, ssl and (for a code) a refresh token. */
export type OAuthAnswer = { access_token: string; expires_in: number } & Partial<{
  username: string;
  ssl: boolean;
  refresh_token: string;
  refresh_token_expires_in: number;
}>;

/**
 * `POST /oauth2/token`. client_credentials: `{access_token, expires_in}` (seconds), a token acting
 * with the app's privileges. authorization_code (a code the data file gives the client, usable
 * once): a user token plus a refresh token. refresh_token: a new user token. As documented,
 * username and ssl come with user tokens and refresh tokens only with the code grant.
 */
export function oauthToken(draft: EmulatorState, params: Readonly<Record<string, string>>, now: number): OAuthAnswer {
  const grantType = params['grant_type'] ?? '';
  const client = findBy(draft.oauthClients, 'clientId', params['client_id'] ?? '');
  if (!client) throw new OAuthError('invalid_client', 'Invalid client_id');
  const minutes = positiveMinutes(params['expiration'], 120, (detail) => new OAuthError('invalid_request', detail));
  const expiresIn = Math.round(minutes * 60);
  const issue = (username: string, appId?: string): string => {
    const token = newTokenValue();
    draft.tokens.push({ token, username, ...(appId !== undefined ? { clientId: appId } : {}), expires: now + expiresIn * 1000 });
    return token;
  };
  switch (grantType) {
    case 'client_credentials':
      if (client.clientSecret !== params['client_secret']) throw new OAuthError('invalid_client', 'Invalid client_secret');
      return { access_token: issue(client.username, client.clientId), expires_in: expiresIn };
    case 'authorization_code': {
      const index = client.authorizationCodes.findIndex((candidate) => candidate.code === params['code']);
      const grant = client.authorizationCodes[index];
      if (!grant) throw new OAuthError('invalid_grant', 'Invalid authorization code');
      client.authorizationCodes.splice(index, 1);
      const refresh = newTokenValue();
      draft.tokens.push({ token: refresh, username: grant.username, refreshOf: client.clientId, expires: now + REFRESH_TOKEN_SECONDS * 1000 });
      const answer = { access_token: issue(grant.username), expires_in: expiresIn, username: grant.username, ssl: false };
      return { ...answer, refresh_token: refresh, refresh_token_expires_in: REFRESH_TOKEN_SECONDS };
    }
    case 'refresh_token': {
      const record = findBy(draft.tokens, 'token', params['refresh_token'] ?? '');
      if (!record || record.refreshOf !== client.clientId || (record.expires !== undefined && record.expires <= now)) {
        throw new OAuthError('invalid_grant', 'Invalid refresh_token');
      }
      return { access_token: issue(record.username), expires_in: expiresIn, username: record.username, ssl: false };
    }
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        `Unsupported grant_type "${grantType}"; the emulator supports client_credentials, authorization_code and refresh_token.`,
      );
  }
}
