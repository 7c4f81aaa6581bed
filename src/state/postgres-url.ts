/**
 * `postgres://` / `postgresql://` state URLs: what is a database URL, the schema it names, the
 * connection settings for node-postgres, and the URL as it may be shown (never a password).
 */
import { UsageError } from '../core/errors.js';

export const DEFAULT_STATE_SCHEMA = 'portalctl';
export const DEFAULT_STATE_NAME = 'default';

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** The URL without its password (also a `password=` query parameter); safe to print. */
export function redactPostgresUrl(spec: string): string {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    // Not parseable: drop anything between "//user:" and "@".
    return spec.replace(/(\/\/[^/:@]*):[^@/]*@/, '$1@');
  }
  url.password = '';
  if (url.searchParams.has('password')) url.searchParams.delete('password');
  return url.toString();
}

/** Any postgres URL inside a text (a command line, an error message) shown without its password. */
export function redactPostgresUrlsIn(text: string): string {
  return text.replace(/postgres(?:ql)?:\/\/[^\s"']+/gi, (match) => redactPostgresUrl(match));
}

export interface PostgresTarget {
  /** For node-postgres only (it holds the password): the URL without our own `schema` parameter. */
  connectionString: string;
  password: string | undefined;
  schema: string;
  /** The URL to show. */
  shown: string;
}

const SCHEMA_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkStateName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new UsageError(`--state-name takes letters, digits, ".", "_" and "-" (at most 128, starting with a letter or digit), not "${name}".`);
  }
  return name;
}

/** Parse a state URL; the password comes from the URL or, failing that, from PGPASSWORD. */
export function parsePostgresUrl(spec: string, env: NodeJS.ProcessEnv): PostgresTarget {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new UsageError(`--state ${redactPostgresUrl(spec)} is not a valid postgres:// URL.`);
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_STATE_SCHEMA;
  if (!SCHEMA_PATTERN.test(schema)) throw new UsageError(`The state URL's schema "${schema}" must be a plain SQL name (letters, digits, "_").`);
  const password = url.password ? decodeURIComponent(url.password) : url.searchParams.get('password') ?? env['PGPASSWORD'] ?? undefined;
  const shown = redactPostgresUrl(spec);
  // node-postgres takes settings from the connection string over separate ones: the password
  // goes in it (this string is never shown).
  url.password = password ? encodeURIComponent(password) : '';
  url.searchParams.delete('password');
  url.searchParams.delete('schema');
  // sslmode means what it means to libpq (require: encrypted, verify-full: also checks the certificate and host).
  if (url.searchParams.has('sslmode') && !url.searchParams.has('uselibpqcompat')) url.searchParams.set('uselibpqcompat', 'true');
  return { connectionString: url.toString(), password: password === '' ? undefined : password, schema, shown };
}
