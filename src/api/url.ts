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
    throw new PortalUrlError(`Portal URL "${url.origin}" must use https (got ${url.protocol}).`);
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

/** `raw` as messages may show it: a user name and password before the host are masked. */
export function shownUrl(raw: string): string {
  return raw.replace(/^([^:/?#]*:\/\/)[^/?#]*@/, '$1***@');
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
