/**
 * Credentials and tokens. Credentials come only from the environment (DESIGN.md "Command
 * line"); a token is fetched lazily, shared by concurrent requests, and renewed at most once
 * per failed request when the portal answers 498/499. A token travels only in the
 * `X-Esri-Authorization: Bearer` header, never in a URL.
 */
import type { JsonObject } from '../core/json.js';
import { CredentialsError } from './errors.js';

/** `from`: the variables they were read from, as messages name them (default: the PORTALCTL_* ones). */
export type Credentials = (
  | { type: 'token'; token: string }
  | { type: 'password'; username: string; password: string }
  | { type: 'client'; clientId: string; clientSecret: string }
) & { from?: string };

export const CREDENTIAL_VARIABLES = [
  'PORTALCTL_TOKEN',
  'PORTALCTL_USERNAME',
  'PORTALCTL_PASSWORD',
  'PORTALCTL_CLIENT_ID',
  'PORTALCTL_CLIENT_SECRET',
] as const;

/** Read credentials from the environment; throws a CredentialsError naming the variables. */
export function credentialsFromEnv(env: Readonly<Record<string, string | undefined>>): Credentials {
  const value = (name: string): string | undefined => {
    const text = env[name];
    return text === undefined || text === '' ? undefined : text;
  };
  const token = value('PORTALCTL_TOKEN');
  if (token) return { type: 'token', token: tokenText(token, 'PORTALCTL_TOKEN') };

  const username = value('PORTALCTL_USERNAME');
  const password = value('PORTALCTL_PASSWORD');
  if (username && password) return { type: 'password', username, password };
  if (username || password) {
    throw new CredentialsError(
      `${username ? 'PORTALCTL_USERNAME' : 'PORTALCTL_PASSWORD'} is set but ${username ? 'PORTALCTL_PASSWORD' : 'PORTALCTL_USERNAME'} is not; set both to sign in with a user name and password.`,
    );
  }

  const clientId = value('PORTALCTL_CLIENT_ID');
  const clientSecret = value('PORTALCTL_CLIENT_SECRET');
  if (clientId && clientSecret) return { type: 'client', clientId, clientSecret };
  if (clientId || clientSecret) {
    throw new CredentialsError(
      `${clientId ? 'PORTALCTL_CLIENT_ID' : 'PORTALCTL_CLIENT_SECRET'} is set but ${clientId ? 'PORTALCTL_CLIENT_SECRET' : 'PORTALCTL_CLIENT_ID'} is not; set both to use OAuth client credentials.`,
    );
  }

  throw new CredentialsError(
    'No portal credentials found. Set PORTALCTL_TOKEN, or PORTALCTL_USERNAME and PORTALCTL_PASSWORD, ' +
      'or PORTALCTL_CLIENT_ID and PORTALCTL_CLIENT_SECRET in the environment.',
  );
}

/**
 * A token as a header carries it. The line break a secret copied from a file or an `echo` keeps
 * is dropped with any space around it (a token has none); anything else no header may carry
 * would fail every request as a dropped connection, so it is said at once, never shown.
 */
function tokenText(text: string, variable: string): string {
  const token = text.trim();
  if (token === '' || !/^[\x21-\x7e]+$/.test(token)) {
    throw new CredentialsError(`${variable} holds ${token === '' ? 'only spaces' : 'a character no token has (a space, a control character or a letter outside ASCII)'}: set it to the token alone.`);
  }
  return token;
}

/** The variables an environment names for its credentials (README "Environments"), by role. */
export interface CredentialVariables {
  token?: string;
  username?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
}

/**
 * Credentials from the variables an environment names instead of PORTALCTL_*: the same three
 * ways, in the same order; a named variable that is unset or empty is an error that names it
 * (never its value) and the environment.
 */
export function credentialsFromVariables(names: CredentialVariables, env: Readonly<Record<string, string | undefined>>, owner: string): Credentials {
  const read = (role: keyof CredentialVariables, variable: string): string => {
    const text = env[variable];
    if (text === undefined || text === '') throw new CredentialsError(`${owner} takes its ${role} from ${variable}, which is not set.`);
    return text;
  };
  if (names.token) return { type: 'token', token: tokenText(read('token', names.token), names.token), from: names.token };
  if (names.username || names.password) {
    if (!names.username || !names.password) throw new CredentialsError(`${owner} names a variable for its ${names.username ? 'username but not its password' : 'password but not its username'}; name both.`);
    return { type: 'password', username: read('username', names.username), password: read('password', names.password), from: `${names.username} and ${names.password}` };
  }
  if (names.clientId || names.clientSecret) {
    if (!names.clientId || !names.clientSecret) throw new CredentialsError(`${owner} names a variable for its ${names.clientId ? 'clientId but not its clientSecret' : 'clientSecret but not its clientId'}; name both.`);
    return { type: 'client', clientId: read('clientId', names.clientId), clientSecret: read('clientSecret', names.clientSecret), from: `${names.clientId} and ${names.clientSecret}` };
  }
  return credentialsFromEnv(env);
}

/**
 * The header that carries a token. `X-Esri-Authorization` is the documented header that works
 * behind web-tier authentication (IWA, PKI, Basic), where the standard `Authorization` header
 * belongs to the web server; the portal accepts it without web-tier authentication too.
 */
export function tokenHeaders(token: string): Record<string, string> {
  return { 'x-esri-authorization': `Bearer ${token}` };
}

/** Which variables to check when a token endpoint refuses the credentials: those they came from. */
export function credentialVariablesFor(tokenPath: string, credentials: Credentials): string {
  return credentials.from ?? (tokenPath === '/generateToken' ? 'PORTALCTL_USERNAME and PORTALCTL_PASSWORD' : 'PORTALCTL_CLIENT_ID and PORTALCTL_CLIENT_SECRET');
}

/** What to do about a token that was refused and cannot be renewed (it was given, not signed in for). */
export function refusedTokenAdvice(credentials: Credentials): string {
  const variable = credentials.from ?? 'PORTALCTL_TOKEN';
  const renewable =
    credentials.from === undefined
      ? 'use PORTALCTL_USERNAME + PORTALCTL_PASSWORD or PORTALCTL_CLIENT_ID + PORTALCTL_CLIENT_SECRET'
      : "name a username and password, or a clientId and clientSecret, under the environment's credentials";
  return `The token in ${variable} was rejected as invalid or expired (498) and cannot be renewed. Set a fresh ${variable}, or ${renewable} so portalctl can renew it.`;
}

/** Posts an unauthenticated form to a token endpoint and returns the checked JSON answer. */
export type TokenEndpoint = (path: string, form: Record<string, string>) => Promise<JsonObject>;

interface IssuedToken {
  token: string;
  /** Epoch ms; undefined when the portal did not say. */
  expiresAt: number | undefined;
}

/** Renew this long before the portal's stated expiry, so a request does not race it. */
const EXPIRY_MARGIN_MS = 60_000;

export class TokenProvider {
  private issued: Promise<IssuedToken> | undefined;

  constructor(
    private readonly credentials: Credentials,
    private readonly endpoint: TokenEndpoint,
    private readonly options: { referer: string; expirationMinutes: number; now: () => number },
  ) {}

  /** A static PORTALCTL_TOKEN cannot be renewed. */
  get renewable(): boolean {
    return this.credentials.type !== 'token';
  }

  /** Every secret this provider knows, so error texts can be scrubbed of them. */
  secrets(): string[] {
    const known: string[] = [];
    switch (this.credentials.type) {
      case 'token':
        known.push(this.credentials.token);
        break;
      case 'password':
        known.push(this.credentials.password);
        break;
      case 'client':
        known.push(this.credentials.clientSecret);
        break;
    }
    return known;
  }

  async current(): Promise<string> {
    if (this.issued) {
      const issued = await this.issued;
      if (issued.expiresAt === undefined || issued.expiresAt - EXPIRY_MARGIN_MS > this.options.now()) {
        return issued.token;
      }
      return this.renew(issued.token);
    }
    return (await this.start()).token;
  }

  /**
   * Get a new token because `rejected` was refused. When another request already renewed it,
   * the newer token is returned without asking the portal again.
   */
  async renew(rejected: string): Promise<string> {
    const pending = this.issued;
    if (pending) {
      const issued = await pending.catch(() => undefined);
      if (issued && issued.token !== rejected) return issued.token;
      // Another caller started a renewal while we waited: share it rather than ask again.
      if (this.issued !== undefined && this.issued !== pending) return this.renew(rejected);
    }
    return (await this.start()).token;
  }

  knownTokens(): Promise<string[]> {
    if (!this.issued) return Promise.resolve([]);
    return this.issued.then(
      (issued) => [issued.token],
      () => [],
    );
  }

  private start(): Promise<IssuedToken> {
    const pending = this.fetch();
    this.issued = pending;
    // A failed fetch must not stick: the next request asks again.
    pending.catch(() => {
      if (this.issued === pending) this.issued = undefined;
    });
    return pending;
  }

  private async fetch(): Promise<IssuedToken> {
    const credentials = this.credentials;
    switch (credentials.type) {
      case 'token':
        return { token: credentials.token, expiresAt: undefined };
      case 'password': {
        const answer = await this.endpoint('/generateToken', {
          username: credentials.username,
          password: credentials.password,
          client: 'referer',
          referer: this.options.referer,
          expiration: String(this.options.expirationMinutes),
        });
        const token = answer['token'];
        if (typeof token !== 'string' || token === '') {
          throw new CredentialsError('generateToken answered without a token; check PORTALCTL_USERNAME and PORTALCTL_PASSWORD.');
        }
        const expires = answer['expires'];
        return { token, expiresAt: typeof expires === 'number' ? expires : undefined };
      }
      case 'client': {
        const answer = await this.endpoint('/oauth2/token', {
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          grant_type: 'client_credentials',
        });
        const token = answer['access_token'];
        if (typeof token !== 'string' || token === '') {
          throw new CredentialsError('oauth2/token answered without an access_token; check PORTALCTL_CLIENT_ID and PORTALCTL_CLIENT_SECRET.');
        }
        const expiresIn = answer['expires_in'];
        return {
          token,
          expiresAt: typeof expiresIn === 'number' ? this.options.now() + expiresIn * 1000 : undefined,
        };
      }
    }
  }
}
