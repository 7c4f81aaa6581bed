/**
 * Errors of the portal REST API client. Every failure of a request (the HTTP-200 error
 * envelope, `success:false`, a non-2xx answer, a dropped connection, a timeout) becomes an
 * ApiError that names the request (method and path, never the query string, the token or form
 * values) and carries the portal's code, messageCode, message and details.
 */
import { InterruptedError, PortalctlError } from '../core/errors.js';

export interface ApiErrorFields {
  method: string;
  /** Path relative to the REST root, without query string. */
  path: string;
  /** The portal's code: the envelope's `code`, else the HTTP status. */
  code?: number;
  messageCode?: string;
  /** The portal's own message (or a description of the failure). */
  apiMessage: string;
  details?: string[];
  /** HTTP status of the answer, when there was one. */
  httpStatus?: number;
  /** Seconds or date from a `Retry-After` header, already converted to milliseconds. */
  retryAfterMs?: number;
  /** Extra advice appended to the message (what the user can do). */
  hint?: string;
  /** The portal's own error envelope said it (not a bare HTTP status a proxy or web server may give). */
  enveloped?: boolean;
  /** A success status whose body is not the portal's answer (a web page, text that is not JSON, no `success: true`). */
  unreadable?: boolean;
  /** The attempts the request took and how long they lasted, waits included, when there was more than one. */
  tries?: Tries;
}

export interface Tries {
  attempts: number;
  ms: number;
}

export class ApiError extends PortalctlError {
  readonly method: string;
  readonly path: string;
  readonly code: number | undefined;
  readonly messageCode: string | undefined;
  readonly apiMessage: string;
  readonly details: string[];
  readonly httpStatus: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly enveloped: boolean;
  readonly unreadable: boolean;
  readonly tries: Tries | undefined;

  constructor(fields: ApiErrorFields, options?: { cause?: unknown }) {
    super(formatApiErrorMessage(fields), options);
    this.method = fields.method;
    this.path = fields.path;
    this.code = fields.code;
    this.messageCode = fields.messageCode;
    this.apiMessage = fields.apiMessage;
    this.details = fields.details ?? [];
    this.httpStatus = fields.httpStatus;
    this.retryAfterMs = fields.retryAfterMs;
    this.enveloped = fields.enveloped ?? false;
    this.unreadable = fields.unreadable ?? false;
    this.tries = fields.tries;
  }
}

export type NetworkFailure = 'timeout' | 'connection' | 'unreachable';

/**
 * The request got no answer: it timed out, the connection was reset or dropped, or the server
 * could not be reached. For a request that must not be repeated, `outcomeUnknown` says the
 * portal may or may not have performed it.
 */
export class ApiNetworkError extends ApiError {
  readonly failure: NetworkFailure;
  readonly outcomeUnknown: boolean;

  constructor(
    fields: Omit<ApiErrorFields, 'code' | 'messageCode' | 'httpStatus'> & {
      failure: NetworkFailure;
      outcomeUnknown: boolean;
    },
    options?: { cause?: unknown },
  ) {
    super(fields, options);
    this.failure = fields.failure;
    this.outcomeUnknown = fields.outcomeUnknown;
  }
}

/**
 * The portal's TLS certificate was not accepted, so no request left this machine. Never retried,
 * and never answered by turning verification off: the message says how to trust the portal's
 * authority (NODE_EXTRA_CA_CERTS) or what else is wrong with the certificate.
 */
export class UntrustedCertificateError extends ApiNetworkError {
  /** OpenSSL's verification code, e.g. SELF_SIGNED_CERT_IN_CHAIN. */
  readonly certificateCode: string;

  constructor(fields: Omit<ApiErrorFields, 'code' | 'messageCode' | 'httpStatus'> & { certificateCode: string }, options?: { cause?: unknown }) {
    super({ ...fields, failure: 'unreachable', outcomeUnknown: false }, options);
    this.certificateCode = fields.certificateCode;
  }
}

/**
 * A read abandoned because the client's `stopReading` signal was aborted (an interrupted run):
 * nothing was written by it; the caller says what its run left behind.
 */
export class ReadingStoppedError extends InterruptedError {}

/** No usable credentials in the environment. */
export class CredentialsError extends PortalctlError {}

/** The portal URL is not acceptable (plain http to a remote host, not a URL, userinfo in it). */
export class PortalUrlError extends PortalctlError {}

/** The proxy the environment names is not one portalctl can go through (not a URL, a socks4:// proxy). */
export class ProxyUrlError extends PortalctlError {}

function formatApiErrorMessage(fields: ApiErrorFields): string {
  const codes = [fields.code !== undefined ? `code ${fields.code}` : undefined, fields.messageCode]
    .filter((part): part is string => Boolean(part))
    .join(', ');
  let text = `${fields.method} ${fields.path} failed: ${fields.apiMessage}`;
  if (codes) text += ` (${codes})`;
  // Retries take seconds (backoff): without this, the wait before the error looks like a hang.
  if (fields.tries && fields.tries.attempts > 1) text += `; tried ${fields.tries.attempts} times over ${durationText(Math.round(fields.tries.ms))}`;
  const details = (fields.details ?? []).filter((detail) => detail.trim() !== '');
  if (details.length > 0) text += `\n  details: ${details.join('; ')}`;
  if (fields.hint) text += `\n  ${fields.hint}`;
  return text;
}

/** 500 ms, 30 s, 2.5 s: how long a wait was, as messages say it. */
export function durationText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * messageCodes that mean "does not exist or is inaccessible": CONT_0001 for an item
 * (wire-samples/errors.json), CONT_0006 for a group (the vendor's Esri/solution.js test mocks).
 */
const NOT_FOUND_MESSAGE_CODES = new Set(['CONT_0001', 'CONT_0006']);

/**
 * The portal refused with code 400 in its own envelope and named no messageCode: the shape of a
 * user that does not exist, and also of "Invalid URL" and of a bad parameter. Only the request's
 * meaning tells these apart (isNotFound; ListSource.owner in the kinds' toolkit).
 */
export function isUncodedRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && !(error instanceof ApiNetworkError) && error.enveloped && error.code === 400 && error.messageCode === undefined;
}

/** `GET /community/users/{u}`: one user's own read, nothing below it. */
const USER_READ = /^\/community\/users\/[^/]+$/i;

/**
 * The portal says the resource does not exist or is inaccessible: code 404, or a messageCode
 * that says so. Decided by code and messageCode only, never by the message, which the portal
 * localises (errors.json notes); for a user, by the request's meaning too. No messageCode is
 * documented for a user that does not exist (community-users-id.json and errors.json are silent;
 * the envelope makes messageCode optional): it comes as code 400 without one. `GET
 * community/users/{u}` takes nothing but f and token (community-users-id.json notes), so such a
 * 400 in the portal's envelope can only be about the user the path names. A 400 with a
 * messageCode, a bare HTTP 400 (a proxy's), or a 400 on another path (community/users/{u}/tasks
 * also answers "Invalid URL" before 10.8.1) stays the API error it is.
 */
export function isNotFound(error: unknown): error is ApiError {
  if (!(error instanceof ApiError) || error instanceof ApiNetworkError) return false;
  if (error.code === 404 || error.httpStatus === 404) return true;
  if (error.messageCode !== undefined) return NOT_FOUND_MESSAGE_CODES.has(error.messageCode);
  return error.method === 'GET' && USER_READ.test(error.path) && isUncodedRefusal(error);
}

/**
 * The answer says the server failed (5xx: the portal's envelope code, else the HTTP status, as a
 * gateway gives it): a write may have been performed before the failure, or by a portal a gateway
 * stopped waiting for. Unlike a refusal (4xx), it does not say that nothing was done.
 */
export function isServerFailure(error: unknown): boolean {
  if (!(error instanceof ApiError) || error instanceof ApiNetworkError) return false;
  const code = error.enveloped && error.code !== undefined ? error.code : (error.httpStatus ?? error.code);
  return code !== undefined && code >= 500 && code <= 599;
}

/**
 * The answer to a write does not say whether it was performed: a server failure, or a success
 * status whose body is not the portal's answer (a page a gateway or a sign-in put in its place,
 * a body that is not JSON). Only the portal's own refusal (4xx, an envelope, success:false) does.
 */
export function leavesOutcomeUnknown(error: unknown): error is ApiError {
  if (!(error instanceof ApiError) || error instanceof ApiNetworkError) return false;
  if (isServerFailure(error)) return true;
  return error.unreadable;
}

/** The caller lacks a privilege (403 GWM_0003): not an expired token, never retried. */
export function isMissingPrivilege(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.messageCode === 'GWM_0003' &&
    (error.code === 403 || error.httpStatus === 403)
  );
}

/**
 * What is wrong with the token, by the documented codes (wire-samples/errors.json): 498 the
 * token is invalid or expired; 499 a token is required, i.e. none reached the portal.
 */
export function tokenProblem(error: unknown): 'invalid' | 'required' | undefined {
  if (!(error instanceof ApiError) || error instanceof ApiNetworkError) return undefined;
  if (error.code === 498 || error.httpStatus === 498) return 'invalid';
  if (error.code === 499 || error.httpStatus === 499) return 'required';
  return undefined;
}

/** Invalid/expired token (498) or token required (499). */
export function isTokenError(error: unknown): error is ApiError {
  return tokenProblem(error) !== undefined;
}
