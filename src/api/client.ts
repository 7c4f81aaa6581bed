/**
 * The HTTP client for the portal's REST API (wire-facts.md): one keep-alive undici Agent per
 * client, `f=json` on every request, form-encoded writes, the token in an
 * `Authorization: Bearer` header, a fixed `Referer`, typed errors, retries with backoff for
 * transient failures of idempotent requests, token renewal on 498/499, and paging.
 */
import { STATUS_CODES } from 'node:http';
import type { Agent } from 'undici';
import type { ApiRequest } from '../core/request.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import { TokenProvider, type Credentials } from './auth.js';
import { encodeForm, type Params } from './encoding.js';
import {
  ApiError,
  ApiNetworkError,
  CredentialsError,
  isMissingPrivilege,
  isTokenError,
  type ApiErrorFields,
  type NetworkFailure,
} from './errors.js';
import { normalizeBaseUrl } from './url.js';

/** What `--verbose` may print about one attempt: never the token, never form values. */
export interface RequestEvent {
  method: string;
  /** Path relative to the REST root, without query string. */
  path: string;
  /** 1 for the first attempt of a call, then 2, 3, ... for retries and the repeat after renewal. */
  attempt: number;
  /** HTTP status, absent when no answer came. */
  status?: number;
  /** When no answer came: why. */
  failure?: NetworkFailure;
  /** Duration of the attempt in milliseconds. */
  ms: number;
}

export interface ApiClientOptions {
  /** The REST root, e.g. https://host/portal/sharing/rest. */
  url: string;
  credentials: Credentials;
  /** Fixed Referer header, also the referer of generateToken client=referer. Default `portalctl`. */
  referer?: string;
  /** Allow plain http:// to a non-loopback host. */
  insecure?: boolean;
  /** Per-attempt timeout covering the answer's headers and body. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt for transient failures. Default 4. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap of one backoff delay. Default 30 s. */
  maxDelayMs?: number;
  /** Cap of an honoured Retry-After. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Lifetime asked of generateToken, in minutes. Default 60. */
  tokenExpirationMinutes?: number;
  /** Page size for lists (the portal allows at most 100). Default 100. */
  pageSize?: number;
  onRequest?: (event: RequestEvent) => void;
  /** For tests: how to wait between retries, and the jitter source. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export type SendResult =
  | { type: 'json'; body: JsonObject }
  | {
      type: 'file';
      /** From Content-Disposition, reduced to a bare file name; undefined when the portal gave none. */
      filename: string | undefined;
      contentType: string | undefined;
      content: Buffer;
    };

export interface ApiClient {
  /** The normalised REST root. */
  readonly url: string;
  /** GET a JSON object. */
  get(path: string, params?: Params): Promise<JsonObject>;
  /** GET every page of a paged list and return the items of `itemsField`. */
  list(path: string, itemsField: string, params?: Params): Promise<JsonObject[]>;
  /** Send one write request exactly as planned. */
  send(request: ApiRequest): Promise<SendResult>;
  /** Close the keep-alive connections. */
  close(): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  return new HttpApiClient(options);
}

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/**
 * undici is loaded with the first request, not with this module: loading it took about a
 * third of the start-up of commands that never reach the network (`plan --refresh=false`).
 */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

const RETRYABLE_CODES = new Set([429, 502, 503, 504]);
const MAX_PAGES = 100_000;
const SNIPPET_LENGTH = 300;

interface CallSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: URLSearchParams;
  form?: URLSearchParams;
  idempotent: boolean;
  expect: 'json' | 'file';
  authenticated: boolean;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

class HttpApiClient implements ApiClient {
  readonly url: string;
  private readonly base: URL;
  /** Created with the first request (see loadUndici). */
  private agent: Promise<Agent> | undefined;
  private readonly tokens: TokenProvider;
  private readonly referer: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly pageSize: number;
  private readonly onRequest: ((event: RequestEvent) => void) | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** Strings that must never appear in an error: credentials and every token seen. */
  private readonly secrets = new Set<string>();

  constructor(options: ApiClientOptions) {
    this.base = normalizeBaseUrl(options.url, options.insecure ?? false);
    this.url = this.base.href.replace(/\/+$/, '');
    this.referer = options.referer ?? 'portalctl';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 4;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.pageSize = Math.min(100, Math.max(1, options.pageSize ?? 100));
    this.onRequest = options.onRequest;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.tokens = new TokenProvider(options.credentials, (path, form) => this.tokenEndpoint(path, form), {
      referer: this.referer,
      expirationMinutes: options.tokenExpirationMinutes ?? 60,
      now: Date.now,
    });
    for (const secret of this.tokens.secrets()) this.secrets.add(secret);
  }

  async get(path: string, params: Params = {}): Promise<JsonObject> {
    const { path: cleanPath, query } = splitPath(path, params);
    const result = await this.call({
      method: 'GET',
      path: cleanPath,
      query,
      idempotent: true,
      expect: 'json',
      authenticated: true,
    });
    if (result.type !== 'json') throw new Error('unreachable: a json call returned a file');
    return result.body;
  }

  async list(path: string, itemsField: string, params: Params = {}): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let start = 1;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.get(path, { ...params, start, num: this.pageSize });
      const pageItems = answer[itemsField];
      if (pageItems === undefined) {
        // Some lists omit the field when empty; anything else is not the list we asked for.
        if (page === 0 && answer['total'] === undefined) throw this.unexpected('GET', path, `no "${itemsField}" field in the answer`);
      } else if (!Array.isArray(pageItems)) {
        throw this.unexpected('GET', path, `"${itemsField}" is not an array`);
      } else {
        for (const item of pageItems) {
          if (!isJsonObject(item)) throw this.unexpected('GET', path, `an entry of "${itemsField}" is not an object`);
          items.push(item);
        }
      }
      const nextStart = answer['nextStart'];
      // Stop on -1, on a missing value, and on a server that would send us back or in place.
      if (typeof nextStart !== 'number' || nextStart < 0 || nextStart <= start) return items;
      start = nextStart;
    }
    return items;
  }

  async send(apiRequest: ApiRequest): Promise<SendResult> {
    const { path, query } = splitPath(apiRequest.path, {});
    if (query.size > 0) throw new TypeError(`ApiRequest.path must not carry a query string: ${path}`);
    return this.call({
      method: apiRequest.method,
      path,
      form: encodeForm(apiRequest.form),
      idempotent: apiRequest.idempotent,
      expect: apiRequest.response,
      authenticated: true,
    });
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  private dispatcher(): Promise<Agent> {
    return (this.agent ??= loadUndici().then(({ Agent }) => new Agent({ keepAliveTimeout: 10_000, connect: { timeout: this.timeoutMs } })));
  }

  private async tokenEndpoint(path: string, form: Record<string, string>): Promise<JsonObject> {
    try {
      const result = await this.call({
        method: 'POST',
        path,
        form: encodeForm(form),
        idempotent: true,
        expect: 'json',
        authenticated: false,
      });
      if (result.type !== 'json') throw new Error('unreachable: a json call returned a file');
      const token = result.body['token'] ?? result.body['access_token'];
      if (typeof token === 'string' && token !== '') this.secrets.add(token);
      return result.body;
    } catch (error) {
      if (error instanceof ApiError && !(error instanceof ApiNetworkError)) {
        const variables =
          path === '/generateToken'
            ? 'PORTALCTL_USERNAME and PORTALCTL_PASSWORD'
            : 'PORTALCTL_CLIENT_ID and PORTALCTL_CLIENT_SECRET';
        throw new CredentialsError(`Could not get a token: ${error.message}\n  Check ${variables}.`, { cause: error });
      }
      throw error;
    }
  }

  private async call(spec: CallSpec): Promise<SendResult> {
    let attempt = 0;
    let retries = 0;
    let renewed = false;
    for (;;) {
      attempt += 1;
      const token = spec.authenticated ? await this.tokens.current() : undefined;
      if (token) this.secrets.add(token);
      const startedAt = performance.now();
      let answer: RawAnswer;
      try {
        answer = await this.attempt(spec, token);
      } catch (cause) {
        const failure = classifyNetworkFailure(cause);
        this.emit({ method: spec.method, path: spec.path, attempt, failure, ms: performance.now() - startedAt });
        // A request that never left (refused connection) is safe to repeat even when not idempotent.
        const mayRetry = spec.idempotent || failure === 'unreachable';
        if (mayRetry && retries < this.maxRetries && isRetryableNetworkFailure(cause, failure)) {
          retries += 1;
          await this.sleep(this.backoff(retries));
          continue;
        }
        throw this.networkError(spec, failure, cause);
      }
      this.emit({ method: spec.method, path: spec.path, attempt, status: answer.status, ms: performance.now() - startedAt });

      let error: ApiError;
      try {
        return this.interpret(spec, answer);
      } catch (caught) {
        if (!(caught instanceof ApiError)) throw caught;
        error = caught;
      }

      if (spec.authenticated && token !== undefined && isTokenError(error)) {
        if (this.tokens.renewable && !renewed) {
          renewed = true;
          const fresh = await this.tokens.renew(token);
          this.secrets.add(fresh);
          continue;
        }
        throw this.rebuild(error, {
          hint: this.tokens.renewable
            ? 'The portal rejected a freshly issued token as well; check that the account may use the REST API and that the Referer is accepted.'
            : 'The token in PORTALCTL_TOKEN was rejected (invalid or expired) and cannot be renewed. Set a fresh PORTALCTL_TOKEN, or use PORTALCTL_USERNAME + PORTALCTL_PASSWORD or PORTALCTL_CLIENT_ID + PORTALCTL_CLIENT_SECRET so portalctl can renew it.',
        });
      }

      const retryable =
        error.messageCode !== 'GWM_0003' &&
        (RETRYABLE_CODES.has(error.httpStatus ?? 0) || RETRYABLE_CODES.has(error.code ?? 0));
      if (retryable && spec.idempotent && retries < this.maxRetries) {
        retries += 1;
        const delay =
          error.retryAfterMs !== undefined ? Math.min(error.retryAfterMs, this.maxRetryAfterMs) : this.backoff(retries);
        await this.sleep(delay);
        continue;
      }
      if (retryable && !spec.idempotent) {
        throw this.rebuild(error, {
          hint: 'This request is not repeated automatically because repeating it could act twice; check the portal, then run apply again.',
        });
      }
      if (isMissingPrivilege(error)) {
        throw this.rebuild(error, {
          hint: 'The account behind the credentials lacks the privilege this operation needs (not retried). Use a default administrator account, or grant the privilege to its role.',
        });
      }
      throw error;
    }
  }

  private async attempt(spec: CallSpec, token: string | undefined): Promise<RawAnswer> {
    const target = new URL(this.base.href);
    target.pathname = `${this.base.pathname}${spec.path}`;
    if (spec.method === 'GET') {
      const query = new URLSearchParams(spec.query);
      query.delete('f');
      query.append('f', 'json');
      target.search = query.toString();
    }
    const headers: Record<string, string> = {
      accept: 'application/json, */*;q=0.5',
      referer: this.referer,
    };
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (spec.method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded; charset=utf-8';
      body = (spec.form ?? encodeForm({})).toString();
    }

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), this.timeoutMs);
    try {
      const [{ request }, dispatcher] = await Promise.all([loadUndici(), this.dispatcher()]);
      const response = await request(target, {
        method: spec.method,
        headers,
        body,
        dispatcher,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const content = Buffer.from(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: response.headers, body: content };
    } catch (error) {
      if (controller.signal.aborted) throw new AttemptTimeout({ cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Turn a raw answer into a result, or throw the ApiError it carries. */
  private interpret(spec: CallSpec, answer: RawAnswer): SendResult {
    const contentType = headerValue(answer.headers['content-type']);
    const text = answer.body.toString('utf8');
    const parsed = looksLikeJson(contentType, text) ? parseJson(text) : undefined;
    const retryAfterMs = parseRetryAfter(headerValue(answer.headers['retry-after']), Date.now());
    const base = { method: spec.method, path: spec.path, httpStatus: answer.status, retryAfterMs };

    if (isJsonObject(parsed) && parsed['error'] !== undefined && parsed['error'] !== null) {
      throw this.makeError({ ...base, ...envelopeFields(parsed['error'], answer.status) });
    }
    if (answer.status < 200 || answer.status > 299) {
      const reason = STATUS_CODES[answer.status] ?? 'unexpected status';
      const snippet = parsed === undefined ? textSnippet(text, contentType) : '';
      throw this.makeError({
        ...base,
        code: answer.status,
        apiMessage: `HTTP ${answer.status} ${reason}${snippet ? `: ${snippet}` : ''}`,
      });
    }
    if (isJsonObject(parsed) && parsed['success'] === false) {
      const message = typeof parsed['message'] === 'string' ? parsed['message'] : 'the portal answered success:false';
      throw this.makeError({ ...base, apiMessage: message, details: detailsOf(parsed['details']) });
    }
    if (spec.expect === 'file') {
      return {
        type: 'file',
        filename: filenameFromDisposition(headerValue(answer.headers['content-disposition'])),
        contentType,
        content: answer.body,
      };
    }
    if (!isJsonObject(parsed)) {
      const what = parsed === undefined ? `${contentType ?? 'no content type'}: ${textSnippet(text, contentType)}` : 'JSON that is not an object';
      throw this.makeError({ ...base, apiMessage: `expected a JSON object, got ${what}` });
    }
    return { type: 'json', body: parsed };
  }

  private makeError(fields: ApiErrorFields): ApiError {
    return new ApiError({
      ...fields,
      apiMessage: this.scrub(fields.apiMessage),
      details: fields.details?.map((detail) => this.scrub(detail)),
    });
  }

  private rebuild(error: ApiError, extra: { hint: string }): ApiError {
    return new ApiError(
      {
        method: error.method,
        path: error.path,
        code: error.code,
        messageCode: error.messageCode,
        apiMessage: error.apiMessage,
        details: error.details,
        httpStatus: error.httpStatus,
        retryAfterMs: error.retryAfterMs,
        hint: extra.hint,
      },
      { cause: error },
    );
  }

  private unexpected(method: string, path: string, what: string): ApiError {
    return new ApiError({ method, path: splitPath(path, {}).path, apiMessage: `unexpected answer: ${what}` });
  }

  private networkError(spec: CallSpec, failure: NetworkFailure, cause: unknown): ApiNetworkError {
    const outcomeUnknown = !spec.idempotent && failure !== 'unreachable';
    const what =
      failure === 'timeout'
        ? `no answer within ${this.timeoutMs} ms`
        : failure === 'unreachable'
          ? `could not reach the portal (${describeCause(cause)})`
          : `the connection was dropped (${describeCause(cause)})`;
    return new ApiNetworkError({
      method: spec.method,
      path: spec.path,
      apiMessage: this.scrub(what),
      failure,
      outcomeUnknown,
      hint: outcomeUnknown
        ? 'The outcome is unknown: the portal may or may not have performed this request. It is not repeated automatically because it is not idempotent; check the portal before running apply again.'
        : undefined,
    });
  }

  private backoff(retry: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (retry - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  private scrub(text: string): string {
    let clean = text;
    for (const secret of this.secrets) {
      if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
    }
    return clean;
  }

  private emit(event: RequestEvent): void {
    if (!this.onRequest) return;
    try {
      this.onRequest({ ...event, ms: Math.round(event.ms) });
    } catch {
      // An observer must not break a request.
    }
  }
}

class AttemptTimeout extends Error {
  constructor(options?: { cause?: unknown }) {
    super('attempt timed out', options);
    this.name = 'AttemptTimeout';
  }
}

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function classifyNetworkFailure(error: unknown): NetworkFailure {
  if (error instanceof AttemptTimeout) return 'timeout';
  const codes = errorCodes(error);
  if (codes.some((code) => UNREACHABLE_CODES.has(code))) return 'unreachable';
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout';
  return 'connection';
}

function isRetryableNetworkFailure(error: unknown, failure: NetworkFailure): boolean {
  if (failure !== 'unreachable') return true;
  // A name that does not resolve will not resolve on the next try either.
  return !errorCodes(error).includes('ENOTFOUND');
}

function describeCause(error: unknown): string {
  const codes = errorCodes(error);
  if (codes.length > 0) return codes.join(' / ');
  return error instanceof Error ? error.message : String(error);
}

function splitPath(path: string, params: Params): { path: string; query: URLSearchParams } {
  const [rawPath = '', rawQuery] = path.split('?', 2);
  const cleanPath = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  const query = new URLSearchParams(rawQuery ?? '');
  for (const [name, value] of encodeForm(params)) query.set(name, value);
  // `f=json` is added to every request in one place (attempt).
  query.delete('f');
  return { path: cleanPath, query };
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function looksLikeJson(contentType: string | undefined, text: string): boolean {
  if (contentType && /json/i.test(contentType)) return true;
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function detailsOf(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry)));
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

function envelopeFields(error: JsonValue, httpStatus: number): Pick<ApiErrorFields, 'code' | 'messageCode' | 'apiMessage' | 'details'> {
  if (!isJsonObject(error)) {
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
  const plain = contentType && /html/i.test(contentType) || /^\s*</.test(text)
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

/** The file name of a Content-Disposition header, reduced to a bare name (no directories). */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let name: string | undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      name = decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
    } catch {
      name = undefined;
    }
  }
  if (name === undefined) {
    const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
    if (plain) name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]?.trim();
  }
  if (name === undefined) return undefined;
  const bare = name.split(/[\\/]/).pop()?.trim() ?? '';
  return bare === '' || bare === '.' || bare === '..' ? undefined : bare;
}
