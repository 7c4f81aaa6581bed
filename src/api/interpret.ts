/**
 * Error interpretation: turns one raw answer into a JSON object or a file, or into the ApiError
 * it carries. The portal answers most errors with HTTP 200 and the error envelope
 * `{"error":{code, messageCode?, message, details[]}}`; a non-2xx status, `success:false` and a
 * body that is not what was asked for are errors too.
 */
import { STATUS_CODES } from 'node:http';
import contentDisposition from 'content-disposition';
import type { JsonObject, JsonValue } from '../core/json.js';
import { isObject, parseJsonOrUndefined } from '../core/json.js';
import type { ApiErrorFields } from './errors.js';
import type { RawAnswer } from './transport.js';
import { shownPieces, urlPieces } from './url.js';

export type SendResult =
  | { type: 'json'; body: JsonObject }
  | {
      type: 'file';
      /** From Content-Disposition, reduced to a bare file name; undefined when the portal gave none. */
      filename: string | undefined;
      contentType: string | undefined;
      content: Buffer;
    };

export type Interpretation = { ok: true; result: SendResult } | { ok: false; error: ApiErrorFields };

const SNIPPET_LENGTH = 300;

/**
 * What the answer to `method path` means, given whether a JSON object or a file was expected.
 * `write`: an operation's JSON answer, which documents `success: true` (E3, E6, E7, E14 add
 * ids); a missing or false `success` is a failure.
 */
export function interpretAnswer(
  request: { method: string; path: string; url: URL; expect: 'json' | 'file'; write?: boolean; administration?: object },
  answer: RawAnswer,
  now: number,
): Interpretation {
  const contentType = headerValue(answer.headers['content-type']);
  const text = answer.body.toString('utf8');
  const parsed = looksLikeJson(contentType, text) ? parseJsonOrUndefined(text) : undefined;
  const retryAfterMs = parseRetryAfter(headerValue(answer.headers['retry-after']), now);
  const base = { method: request.method, path: request.path, httpStatus: answer.status, retryAfterMs };
  const fail = (fields: Omit<ApiErrorFields, keyof typeof base>): Interpretation => ({ ok: false, error: { ...base, ...fields } });

  if (isObject(parsed) && parsed['error'] !== undefined && parsed['error'] !== null) {
    return fail({ ...envelopeFields(parsed['error'], answer.status), enveloped: true });
  }
  if (answer.status < 200 || answer.status > 299) {
    const reason = STATUS_CODES[answer.status] ?? 'unexpected status';
    const location = answer.status >= 300 && answer.status <= 399 ? headerValue(answer.headers['location']) : undefined;
    if (location) return fail({ code: answer.status, apiMessage: `HTTP ${answer.status} ${reason}: ${redirectAdvice(location, request)}` });
    const webTier = answer.status === 401 ? webTierSignIn(answer.headers['www-authenticate']) : undefined;
    if (webTier) return fail({ code: answer.status, apiMessage: `HTTP 401 ${reason}: ${webTier}` });
    const snippet = parsed === undefined ? textSnippet(text, contentType) : '';
    return fail({ code: answer.status, apiMessage: `HTTP ${answer.status} ${reason}${snippet ? `: ${snippet}` : ''}` });
  }
  if (isObject(parsed) && parsed['success'] === false) {
    const message = typeof parsed['message'] === 'string' ? parsed['message'] : 'the portal answered success:false';
    return fail({ apiMessage: message, details: detailsOf(parsed['details']) });
  }
  if (request.expect === 'file') {
    // A web page in place of the file: a sign-in, or a gateway's or firewall's page (some answer 200).
    if (isWebPage(contentType, text)) return fail({ apiMessage: `expected a file, got a web page (${contentType ?? 'no content type'}): ${textSnippet(text, contentType)}`, unreadable: true });
    return {
      ok: true,
      result: { type: 'file', filename: filenameFromDisposition(headerValue(answer.headers['content-disposition'])), contentType, content: answer.body },
    };
  }
  if (!isObject(parsed)) {
    const what = parsed === undefined ? `${contentType ?? 'no content type'}: ${textSnippet(text, contentType)}` : 'JSON that is not an object';
    return fail({ apiMessage: `expected a JSON object, got ${what}`, unreadable: true });
  }
  if (request.write === true && parsed['success'] !== true) {
    return fail({ apiMessage: 'the portal answered without success: true; the operation may not have been performed', unreadable: true });
  }
  return { ok: true, result: { type: 'json', body: parsed } };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isWebPage(contentType: string | undefined, text: string): boolean {
  return (contentType !== undefined && /html/i.test(contentType)) || /^\s*<(!doctype html|html)[\s>]/i.test(text);
}

function looksLikeJson(contentType: string | undefined, text: string): boolean {
  if (contentType && /json/i.test(contentType)) return true;
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

/** `details` is an array of strings in the documented envelope; some servers send null or a string. */
function detailsOf(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry)));
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

/**
 * A redirect is not followed: the token would go along to wherever it points (a web adaptor's
 * http-to-https redirect may be fine; a login page or another host is not). It is said where to
 * (a relative Location resolved against the request, as a browser would), without its query
 * string, and, when it points to the same path under another REST root, that root.
 */
function redirectAdvice(location: string, request: { path: string; url: URL; administration?: object }): string {
  let target: URL;
  try {
    target = new URL(location, request.url);
  } catch {
    // Without its query, as below; its user name and password masked (one that does not parse may hold them).
    const shown = shownPieces(urlPieces(location));
    return `the portal redirects to ${shown.scheme}${shown.credentials}${shown.location}, which portalctl does not follow`;
  }
  // An administration request's path is under /portaladmin, not the REST root: no root follows from it.
  const sameResource = request.administration === undefined && target.pathname.endsWith(request.path);
  const root = sameResource ? `${target.origin}${target.pathname.slice(0, target.pathname.length - request.path.length)}` : undefined;
  return `the portal redirects to ${target.origin}${target.pathname}, which portalctl does not follow (the token would go along)${root ? `; if that is the portal, use ${root} as its URL` : ''}`;
}

/** Sign-in schemes of a web server in front of the portal (web-tier authentication), not the portal's own tokens. */
const WEB_TIER_SCHEMES = ['negotiate', 'ntlm', 'kerberos', 'basic', 'digest'];

/**
 * A 401 whose WWW-Authenticate names a web server's own sign-in: the portal's web adaptor does
 * Integrated Windows Authentication (or basic/digest), which no portal token passes. The portal
 * itself, without the web adaptor, takes the same Windows account as username@DOMAIN (Esri
 * technical support article 000023415, "Can I use IWA authentication to access Portal for ArcGIS
 * without using the ArcGIS Web Adaptor?").
 */
function webTierSignIn(header: string | string[] | undefined): string | undefined {
  const offered = (Array.isArray(header) ? header : header === undefined ? [] : [header])
    .flatMap((value) => value.split(','))
    .map((challenge) => challenge.trim().split(/\s+/)[0] ?? '')
    .filter((scheme) => WEB_TIER_SCHEMES.includes(scheme.toLowerCase()));
  if (offered.length === 0) return undefined;
  return `the web server in front of the portal asks for its own sign-in (${[...new Set(offered)].join(', ')}: web-tier authentication, such as a web adaptor with Integrated Windows Authentication), which portal tokens do not pass. Use the portal's URL without the web adaptor (e.g. https://portal-host:7443/arcgis/sharing/rest), where a Windows account signs in as username@DOMAIN`;
}

function envelopeFields(error: JsonValue, httpStatus: number): Pick<ApiErrorFields, 'code' | 'messageCode' | 'apiMessage' | 'details'> {
  if (!isObject(error)) {
    return { code: httpStatus === 200 ? undefined : httpStatus, apiMessage: typeof error === 'string' ? error : JSON.stringify(error) };
  }
  const rawCode = error['code'];
  const numericCode = typeof rawCode === 'number' ? rawCode : typeof rawCode === 'string' && /^\d+$/.test(rawCode) ? Number(rawCode) : undefined;
  const code = numericCode ?? (httpStatus >= 200 && httpStatus <= 299 ? undefined : httpStatus);
  const messageCode = typeof error['messageCode'] === 'string' && error['messageCode'] !== '' ? error['messageCode'] : undefined;
  const message = typeof error['message'] === 'string' && error['message'] !== '' ? error['message'] : 'the portal reported an error without a message';
  return { code, messageCode, apiMessage: message, details: detailsOf(error['details']) };
}

function textSnippet(text: string, contentType: string | undefined): string {
  const plain = (contentType && /html/i.test(contentType)) || /^\s*</.test(text)
    ? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')
    : text;
  const squeezed = plain.replace(/\s+/g, ' ').trim();
  return squeezed.length > SNIPPET_LENGTH ? `${squeezed.slice(0, SNIPPET_LENGTH)}...` : squeezed;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; undefined when absent or invalid. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The file name of a Content-Disposition header (RFC 6266, via `content-disposition`), reduced to a bare name (no directories). */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let name: string | undefined;
  try {
    name = contentDisposition.parse(header).parameters['filename'];
  } catch {
    // A header the RFC's grammar rejects names no file we can trust.
    return undefined;
  }
  if (name === undefined) return undefined;
  const bare = name.split(/[\\/]/).pop()?.trim() ?? '';
  return bare === '' || bare === '.' || bare === '..' ? undefined : bare;
}
