/**
 * Errors of the portal REST API client. Every failure of a request (the HTTP-200 error
 * envelope, `success:false`, a non-2xx answer, a dropped connection, a timeout) becomes an
 * ApiError that names the request (method and path, never the query string, the token or form
 * values) and carries the portal's code, messageCode, message and details.
 */
import { PortalctlError } from '../core/errors.js';

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
  const details = (fields.details ?? []).filter((detail) => detail.trim() !== '');
  if (details.length > 0) text += `\n  details: ${details.join('; ')}`;
  if (fields.hint) text += `\n  ${fields.hint}`;
  return text;
}

/**
 * messageCodes that mean "does not exist or is inaccessible": CONT_0001 for an item
 * (wire-samples/errors.json), CONT_0006 for a group (the vendor's Esri/solution.js test mocks).
 */
const NOT_FOUND_MESSAGE_CODES = new Set(['CONT_0001', 'CONT_0006']);

/**
 * The portal says the resource does not exist or is inaccessible: code 404, or a messageCode
 * that says so. Decided by code and messageCode only, never by the message, which the portal
 * localises (a user that does not exist answers code 400 with no messageCode and is not
 * recognised here: its read fails with the portal's own words instead).
 */
export function isNotFound(error: unknown): error is ApiError {
  if (!(error instanceof ApiError) || error instanceof ApiNetworkError) return false;
  if (error.code === 404 || error.httpStatus === 404) return true;
  return error.messageCode !== undefined && NOT_FOUND_MESSAGE_CODES.has(error.messageCode);
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
