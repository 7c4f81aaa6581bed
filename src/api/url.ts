/**
 * URL policy: the REST root must be https, except on loopback or with `--insecure`, because
 * the token travels in a header that plain http exposes to anyone on the path.
 */
import { PortalUrlError } from './errors.js';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  // IPv4-mapped IPv6 loopback (URL normalises ::ffff:127.0.0.1 to ::ffff:7f00:1).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host) || /^::ffff:127\./.test(host);
}

/** Validate the REST root and return it without a trailing slash. */
export function normalizeBaseUrl(raw: string, insecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PortalUrlError(
      `Portal URL "${shownUrl(raw)}" is not a valid URL; expected the REST root, e.g. https://host/portal/sharing/rest.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // The URL as written: `origin` is "null" for a scheme the URL standard does not know, such as
    // the `localhost:` of a URL written without its scheme.
    throw new PortalUrlError(
      `Portal URL "${shownUrl(raw)}" is not an https:// URL (its scheme reads as "${url.protocol}"); expected the REST root, e.g. https://host/portal/sharing/rest.`,
    );
  }
  if (url.username || url.password) {
    throw new PortalUrlError(
      'Portal URL must not contain a user name or password; put credentials in PORTALCTL_* environment variables.',
    );
  }
  if (url.search || url.hash) {
    throw new PortalUrlError(`Portal URL "${url.origin}${url.pathname}" must not contain a query string or fragment.`);
  }
  if (url.protocol === 'http:' && !insecure && !isLoopbackHost(url.hostname)) {
    throw new PortalUrlError(
      `Refusing plain http:// for ${url.host}: the token would travel unencrypted. Use an https:// URL, or pass --insecure if you accept the risk.`,
    );
  }
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** A URL's text in the pieces messages show differently, parseable or not; joined, they are the text. */
export interface UrlPieces {
  /** `https://`, or '' when the text has none (a proxy written as `host:port`). */
  scheme: string;
  /**
   * The user name and password with their `@`, up to the last `@` that can end them (a password
   * may hold an unencoded `/`, `?`, `#` or `@`, but only after the `:` that starts it); '' when none.
   */
  credentials: string;
  /** The host, port and path. */
  location: string;
  /** The query string and fragment, with their `?` and `#`; '' when none. */
  query: string;
}

/** Whether `text`, before an `@`, can be a user name and password: a `/`, `?` or `#` in it comes after a `:`. */
function mayBeCredentials(text: string): boolean {
  const delimiter = text.search(/[/?#]/);
  if (delimiter === -1) return true;
  const colon = text.indexOf(':');
  return colon !== -1 && colon < delimiter;
}

export function urlPieces(raw: string): UrlPieces {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? '';
  const rest = raw.slice(scheme.length);
  let at = rest.lastIndexOf('@');
  // `unpkg.com/portalctl@0.1.0/x` has no credentials: a `/` before any `:` is the path's.
  while (at !== -1 && !mayBeCredentials(rest.slice(0, at))) at = rest.lastIndexOf('@', at - 1);
  const credentials = at === -1 ? '' : rest.slice(0, at + 1);
  const after = rest.slice(credentials.length);
  const queryStart = after.search(/[?#]/);
  return queryStart === -1
    ? { scheme, credentials, location: after, query: '' }
    : { scheme, credentials, location: after.slice(0, queryStart), query: after.slice(queryStart) };
}

/** The pieces as messages show them: the credentials as `***@`, each query value and the fragment as `***`. */
export function shownPieces(pieces: UrlPieces): UrlPieces {
  const [search = '', fragment] = pieces.query.split(/#(.*)/s, 2);
  const parameters = search
    .slice(1)
    .split('&')
    .map((parameter) => (parameter.includes('=') ? `${parameter.slice(0, parameter.indexOf('=') + 1)}***` : parameter === '' ? '' : '***'));
  return {
    scheme: pieces.scheme,
    credentials: pieces.credentials === '' ? '' : '***@',
    location: pieces.location,
    query: `${search === '' ? '' : `?${parameters.join('&')}`}${fragment === undefined ? '' : '#***'}`,
  };
}

/**
 * `raw` as messages may show it, parseable or not: the user name and password before the host
 * (`https://***@host`) and each value of a query string (`?token=***`) and a fragment masked.
 */
export function shownUrl(raw: string): string {
  const shown = shownPieces(urlPieces(raw));
  return `${shown.scheme}${shown.credentials}${shown.location}${shown.query}`;
}

/** What is wrong with `raw` as a REST root, whatever the scheme policy (validate has no --insecure to weigh). */
export function portalUrlProblem(raw: string): string | undefined {
  try {
    normalizeBaseUrl(raw, true);
    return undefined;
  } catch (error) {
    if (error instanceof PortalUrlError) return error.message;
    throw error;
  }
}
