/**
 * `postgres://` / `postgresql://` state URLs: what is a database URL, the schema it names, the
 * connection settings for node-postgres, and the URL as it may be shown (never a password).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';

export const DEFAULT_STATE_SCHEMA = 'portalctl';
export const DEFAULT_STATE_NAME = 'default';

/**
 * Whether a `--state` value is meant as a database URL: anything that starts with `postgres:` or
 * `postgresql:`, also mistyped (`postgres:/user:pw@host/db`), so that it is parsed and refused
 * with a clear message instead of being taken for a file path (and printed, password and all).
 */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:/i.test(spec);
}

/** The URL without its password (also a `password=` query parameter); safe to print, parseable or not. */
export function redactPostgresUrl(spec: string): string {
  let url: URL | undefined;
  try {
    url = new URL(spec);
  } catch {
    url = undefined;
  }
  if (url && url.host !== '') {
    url.password = '';
    if (url.searchParams.has('password')) url.searchParams.delete('password');
    return url.toString();
  }
  // Not a URL with a host: drop whatever stands between "user:" and "@" after the scheme, and any password= parameter.
  return spec.replace(/^(postgres(?:ql)?:\/*[^/:@?#]*):[^@]*@/i, '$1@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/**
 * Any postgres URL inside a text (a command line, an error message) shown without its password:
 * everything between `user:` and the last `@` of the word, and any `password=` parameter. Read as
 * text, not parsed: a password holding a quote cut the URL short there, and it was shown whole.
 */
export function redactPostgresUrlsIn(text: string): string {
  return text.replace(/postgres(?:ql)?:\S+/gi, redactPostgresWord);
}

/** One argument that is a postgres URL (a password in it may even hold spaces), without its password. */
export function redactPostgresWord(word: string): string {
  return word.replace(/^(postgres(?:ql)?:\/*[^/:@]*):.*@/is, '$1@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

export interface PostgresTarget {
  /** For node-postgres only (it holds the password): the URL without our own parameters. */
  connectionString: string;
  password: string | undefined;
  schema: string;
  /** The URL to show. */
  shown: string;
  /** The password was written in the URL, which `shown` leaves out: a command printed with it needs PGPASSWORD or ~/.pgpass. */
  passwordInUrl: boolean;
  /**
   * `sslmode=prefer` or `allow`: libpq tries one transport and falls back to the other, which
   * node-postgres does not (it takes both for TLS). `connectionString` is the first try
   * (prefer: TLS without verifying the certificate; allow: plain), `fallbackSslMode` the second.
   */
  tlsFallback?: { from: 'prefer' | 'allow'; fallbackSslMode: 'disable' | 'prefer' };
  /** What a password file (~/.pgpass, PGPASSFILE) is searched for, when neither the URL nor PGPASSWORD gives a password. */
  passwordFileKey?: { host: string; port: string; database: string; user: string };
  /** How long connecting may take (`connect_timeout`, seconds, as libpq reads it; else PGCONNECT_TIMEOUT). */
  connectTimeoutMs: number;
  /** How long any one statement, commits included, may wait for the server's answer (`query_timeout`, seconds). */
  queryTimeoutMs: number;
}

/** Default bounds: a database that stops answering fails the command instead of holding it forever. */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;
export const DEFAULT_QUERY_TIMEOUT_SECONDS = 30;

/** libpq's sslmode values (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-SSLMODE). */
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** The modes that check the server's certificate against a root certificate when there is one (require: only then, as libpq). */
const VERIFYING_SSL_MODES = ['require', 'verify-ca', 'verify-full'];

/** libpq's `sslrootcert` value for the system's trusted authorities (a file named so is written `./system`). */
const SYSTEM_ROOT_CERTIFICATES = 'system';

/**
 * libpq's root certificate when the URL names none (https://www.postgresql.org/docs/current/libpq-ssl.html):
 * PGSSLROOTCERT, else `~/.postgresql/root.crt` (`%APPDATA%\postgresql\root.crt` on Windows) when it exists.
 */
function defaultRootCertificate(env: NodeJS.ProcessEnv): string | undefined {
  const named = env['PGSSLROOTCERT'];
  if (named !== undefined && named !== '') return named;
  const appData = env['APPDATA'];
  const directory = process.platform !== 'win32' ? join(env['HOME'] || homedir(), '.postgresql') : appData ? join(appData, 'postgresql') : undefined;
  const file = directory === undefined ? undefined : join(directory, 'root.crt');
  return file !== undefined && existsSync(file) ? file : undefined;
}

const SCHEMA_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkStateName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new UsageError(`--state-name takes letters, digits, ".", "_" and "-" (at most 128, starting with a letter or digit), not "${name}".`);
  }
  return name;
}

/**
 * The URL parameters something reads: portalctl's own (schema, the two bounds, the password) and
 * those node-postgres applies (libpq's names, where it knows them). Any other one would be passed
 * over without a word, so `?query_timout=60` would leave the bound at its default: refused.
 */
const URL_PARAMETERS = [
  'schema',
  'connect_timeout',
  'query_timeout',
  'password',
  'user',
  'host',
  'port',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'sslnegotiation',
  'ssl',
  'uselibpqcompat',
  'application_name',
  'fallback_application_name',
  'options',
  'client_encoding',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
];

function checkUrlParameters(url: URL, shown: string): void {
  for (const name of new Set(url.searchParams.keys())) {
    if (URL_PARAMETERS.includes(name)) continue;
    throw new UsageError(
      `The state URL ${shown} sets ${name}, which portalctl does not read, so it would change nothing.${didYouMean(name, URL_PARAMETERS)} The parameters it reads: ${URL_PARAMETERS.join(', ')}.`,
    );
  }
}

/** A timeout parameter in seconds (a positive number), from the URL or else the environment. */
function seconds(url: URL, parameter: string, fallback: string | undefined, defaultSeconds: number, shown: string): number {
  const text = url.searchParams.get(parameter) ?? fallback;
  url.searchParams.delete(parameter);
  if (text === undefined || text === '') return defaultSeconds * 1000;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new UsageError(`The state URL ${shown} sets ${parameter}=${text}; it takes a number of seconds greater than 0 (default ${defaultSeconds}).`);
  }
  return Math.round(value * 1000);
}

/** The password from the URL, decoded; a broken %-escape is named, never shown. */
function urlPassword(url: URL, shown: string): string | undefined {
  if (!url.password) return undefined;
  try {
    return decodeURIComponent(url.password);
  } catch {
    const escape = /%(?![0-9A-Fa-f]{2})/.exec(url.password) ? 'a "%" not followed by two hexadecimal digits' : 'a %-escape that is not UTF-8';
    throw new UsageError(`The password in the state URL ${shown} holds ${escape}. Write "%" as %25 (and other reserved characters %-encoded), or leave the password out of the URL and set PGPASSWORD or a .pgpass file instead.`);
  }
}

/** Parse a state URL; the password comes from the URL or, failing that, from PGPASSWORD. */
export function parsePostgresUrl(spec: string, env: NodeJS.ProcessEnv): PostgresTarget {
  const shown = redactPostgresUrl(spec);
  let url: URL | undefined;
  try {
    url = new URL(spec);
  } catch {
    url = undefined;
  }
  // `postgres:/user@host/db` parses as a URL without a host: refused like one that does not parse.
  if (!url || !/^postgres(ql)?:\/\//i.test(spec) || url.hostname === '') {
    throw new UsageError(`--state ${shown} is not a valid PostgreSQL URL; write it as postgres://user@host:port/database (the password in PGPASSWORD or .pgpass).`);
  }
  checkUrlParameters(url, shown);
  const schema = url.searchParams.get('schema') ?? DEFAULT_STATE_SCHEMA;
  if (!SCHEMA_PATTERN.test(schema)) throw new UsageError(`The state URL's schema "${schema}" must be a plain SQL name (letters, digits, "_").`);
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    throw new UsageError(`The state URL ${shown} sets sslmode=${sslmode}; it takes one of ${SSL_MODES.join(', ')} (as libpq reads it).`);
  }
  const inUrl = urlPassword(url, shown) ?? url.searchParams.get('password') ?? undefined;
  const password = inUrl ?? env['PGPASSWORD'] ?? undefined;
  const connectTimeoutMs = seconds(url, 'connect_timeout', env['PGCONNECT_TIMEOUT'], DEFAULT_CONNECT_TIMEOUT_SECONDS, shown);
  const queryTimeoutMs = seconds(url, 'query_timeout', undefined, DEFAULT_QUERY_TIMEOUT_SECONDS, shown);
  // node-postgres takes settings from the connection string over separate ones: the password
  // goes in it (this string is never shown).
  url.password = password ? encodeURIComponent(password) : '';
  url.searchParams.delete('password');
  url.searchParams.delete('schema');
  // sslmode means what it means to libpq (require: encrypted, verify-full: also checks the certificate and host).
  if (sslmode !== null && !url.searchParams.has('uselibpqcompat')) url.searchParams.set('uselibpqcompat', 'true');
  // libpq's root certificate when the URL names none: PGSSLROOTCERT, else ~/.postgresql/root.crt if there is one.
  const namedRootCertificate = url.searchParams.get('sslrootcert');
  const rootCertificate = namedRootCertificate ?? (sslmode !== null && VERIFYING_SSL_MODES.includes(sslmode) ? defaultRootCertificate(env) : undefined);
  if (rootCertificate === SYSTEM_ROOT_CERTIFICATES) {
    // libpq 16+: the system's trusted authorities, which only verify-full makes safe (its default
    // here; anything weaker is refused). Node checks against its own trusted authorities (plus
    // NODE_EXTRA_CA_CERTS) when node-postgres is given no root certificate.
    if (sslmode !== null && sslmode !== 'verify-full') {
      const where = namedRootCertificate === null ? 'PGSSLROOTCERT=system' : 'sslrootcert=system';
      throw new UsageError(
        `The state URL ${shown} sets sslmode=${sslmode} with ${where}, which libpq refuses: anyone can get a certificate the system trusts for a host name of their own, so only sslmode=verify-full (the default with sslrootcert=system) checks the server. Set sslmode=verify-full or leave sslmode out.`,
      );
    }
    url.searchParams.delete('sslrootcert');
    url.searchParams.set('sslmode', 'verify-full');
    if (!url.searchParams.has('uselibpqcompat')) url.searchParams.set('uselibpqcompat', 'true');
  } else if (rootCertificate !== undefined) url.searchParams.set('sslrootcert', rootCertificate);
  // allow tries a plain connection first; prefer, TLS first (node-postgres's `prefer` is TLS without verifying).
  if (sslmode === 'allow') url.searchParams.set('sslmode', 'disable');
  const tlsFallback: PostgresTarget['tlsFallback'] =
    sslmode === 'prefer' ? { from: 'prefer', fallbackSslMode: 'disable' } : sslmode === 'allow' ? { from: 'allow', fallbackSslMode: 'prefer' } : undefined;
  const user = decodeURIComponent(url.username) || env['PGUSER'] || env['USER'] || env['USERNAME'] || '';
  const passwordFileKey = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || env['PGPORT'] || '5432',
    database: decodeURIComponent(url.pathname.slice(1)) || env['PGDATABASE'] || user,
    user,
  };
  return {
    connectionString: url.toString(),
    password: password === '' ? undefined : password,
    schema,
    shown,
    passwordInUrl: inUrl !== undefined && inUrl !== '',
    ...(tlsFallback ? { tlsFallback } : {}),
    connectTimeoutMs,
    queryTimeoutMs,
    ...(password ? {} : { passwordFileKey }),
  };
}
