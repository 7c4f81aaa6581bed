/**
 * The HTTP client for the portal's REST API, composed of one module per concern: transport
 * (transport.ts), tokens (auth.ts), retries (retry.ts), paging (paging.ts), the meaning of an
 * answer (interpret.ts) and scrubbing secrets from errors (secrets.ts). `f=json` goes on every
 * request, writes are form-encoded, and a fixed `Referer` is sent.
 */
import { STATUS_CODES } from 'node:http';
import type { ApiRequest } from '../core/request.js';
import type { JsonObject } from '../core/json.js';
import { TokenProvider, credentialVariablesFor, refusedTokenAdvice, tokenHeaders, type Credentials } from './auth.js';
import { encodeForm, type Params } from './encoding.js';
import { ApiError, ApiNetworkError, CredentialsError, ReadingStoppedError, PortalUrlError, UntrustedCertificateError, durationText, isMissingPrivilege, tokenProblem, type ApiErrorFields, type NetworkFailure, type Tries } from './errors.js';
import { interpretAnswer, type SendResult } from './interpret.js';
import { readAllPages } from './paging.js';
import { RetryPolicy, isTransient, type RetryWait } from './retry.js';
import { Secrets } from './secrets.js';
import type { ConcealedValue } from '../core/secret-text.js';
import { AttemptStopped, Transport, certificateProblem, classifyNetworkFailure, closedWithoutAnswer, describeCause, speaksTls, nameDoesNotResolve, plainHttpAnswered, proxyRefusal, proxyShown, type CertificateProblem, type ProxyRefusal, type RawAnswer } from './transport.js';
import { normalizeBaseUrl } from './url.js';
import { stopwatch } from '../core/stopwatch.js';

export type { SendResult } from './interpret.js';

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
  /** The URL of the HTTP(S) proxy to reach the portal through (proxyFromEnv); default: none. */
  proxy?: string;
  /**
   * What the client's errors must not show besides the credentials and tokens: the config's
   * referenced values, replaced by their references (the portal may quote what it was sent).
   */
  conceal?: readonly ConcealedValue[];
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
  /** Told before each wait for a retry (Retry-After or backoff). */
  onRetryWait?: (wait: RetryWait) => void;
  /**
   * Once aborted, reads (GET) stop: one in flight is abandoned, a wait to retry one is cut short,
   * and none starts; each ends in ReadingStoppedError. Writes are never cut off (their outcome
   * would be unknown), nor is getting a token they need. For a run stopped part-way (Ctrl-C).
   */
  stopReading?: AbortSignal;
  /** For tests: how to wait between retries, and the jitter source. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface ApiClient {
  /** The normalised REST root. */
  readonly url: string;
  /** GET a JSON object. */
  get(path: string, params?: Params): Promise<JsonObject>;
  /**
   * GET a JSON object of the Portal Administration API, `<portal>/portaladmin` beside the REST
   * root `<portal>/sharing/rest` (self-managed edition, administrators): `''` is its root.
   */
  getAdministration(path: string): Promise<JsonObject>;
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

interface CallSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: URLSearchParams;
  form?: URLSearchParams;
  idempotent: boolean;
  expect: 'json' | 'file';
  authenticated: boolean;
  /** A planned operation: its JSON answer must say `success: true`. */
  write?: boolean;
  /** The Portal Administration API instead of the REST root (`path` then starts with /portaladmin). */
  administration?: { base: URL; path: string };
}

/** The REST root's last two segments; the Portal Administration root is their sibling. */
const REST_ROOT_SUFFIX = /\/sharing\/rest$/i;

class HttpApiClient implements ApiClient {
  readonly url: string;
  private readonly base: URL;
  private readonly transport: Transport;
  private readonly tokens: TokenProvider;
  private readonly retry: RetryPolicy;
  private readonly referer: string;
  private readonly pageSize: number;
  private readonly onRequest: ((event: RequestEvent) => void) | undefined;
  private readonly onRetryWait: ((wait: RetryWait) => void) | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly stopReading: AbortSignal | undefined;
  /** Where messages say the credentials came from (Credentials.from). */
  private readonly credentials: Credentials;
  /** What must never appear in an error: credentials, every token seen, and what `conceal` hides. */
  private readonly secrets: Secrets;

  constructor(options: ApiClientOptions) {
    this.base = normalizeBaseUrl(options.url, options.insecure ?? false);
    this.url = this.base.href.replace(/\/+$/, '');
    this.referer = options.referer ?? 'portalctl';
    this.transport = new Transport(options.timeoutMs ?? 30_000, options.proxy);
    this.retry = new RetryPolicy({
      maxRetries: options.maxRetries ?? 4,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      random: options.random ?? Math.random,
    });
    this.pageSize = Math.min(100, Math.max(1, options.pageSize ?? 100));
    this.onRequest = options.onRequest;
    this.onRetryWait = options.onRetryWait;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.credentials = options.credentials;
    this.stopReading = options.stopReading;
    this.secrets = new Secrets(options.conceal);
    this.tokens = new TokenProvider(options.credentials, (path, form) => this.tokenEndpoint(path, form), {
      referer: this.referer,
      expirationMinutes: options.tokenExpirationMinutes ?? 60,
      now: Date.now,
    });
    for (const secret of this.tokens.secrets()) this.secrets.add(secret);
  }

  async get(path: string, params: Params = {}): Promise<JsonObject> {
    const { path: cleanPath, query } = splitPath(path, params);
    return jsonBody(await this.call({ method: 'GET', path: cleanPath, query, idempotent: true, expect: 'json', authenticated: true }));
  }

  async getAdministration(path: string): Promise<JsonObject> {
    if (!REST_ROOT_SUFFIX.test(this.base.pathname)) {
      throw new PortalUrlError(`The Portal Administration API cannot be found from ${this.url}: the REST root does not end in /sharing/rest.`);
    }
    const base = new URL(this.base.href);
    base.pathname = this.base.pathname.replace(REST_ROOT_SUFFIX, '/portaladmin');
    const shown = `/portaladmin${path}`;
    return jsonBody(await this.call({ method: 'GET', path: shown, idempotent: true, expect: 'json', authenticated: true, administration: { base, path } }));
  }

  list(path: string, itemsField: string, params: Params = {}): Promise<JsonObject[]> {
    return readAllPages(
      {
        get: (pageParams) => this.get(path, pageParams),
        fail: (message) => new ApiError({ method: 'GET', path: splitPath(path, {}).path, apiMessage: message }),
      },
      itemsField,
      params,
      this.pageSize,
    );
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
      write: true,
    });
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async tokenEndpoint(path: string, form: Record<string, string>): Promise<JsonObject> {
    try {
      const body = jsonBody(await this.call({ method: 'POST', path, form: encodeForm(form), idempotent: true, expect: 'json', authenticated: false }));
      const token = body['token'] ?? body['access_token'];
      if (typeof token === 'string') this.secrets.add(token);
      return body;
    } catch (error) {
      if (error instanceof ApiError && !(error instanceof ApiNetworkError)) {
        // A secret copied with its line break is the usual cause of a refusal that looks right.
        const padded = Object.entries(form)
          .filter(([name, value]) => SIGN_IN_FIELDS.has(name) && value !== value.trim())
          .map(([name]) => name.replace('_', ' '));
        const note = padded.length > 0 ? `\n  The ${padded.join(' and ')} given ${padded.length > 1 ? 'begin or end' : 'begins or ends'} with a space or a line break, as a secret copied with one does.` : '';
        throw new CredentialsError(`Could not get a token: ${error.message}\n  Check ${credentialVariablesFor(path, this.credentials)}.${note}`, { cause: error });
      }
      throw error;
    }
  }

  private async call(spec: CallSpec): Promise<SendResult> {
    let attempt = 0;
    let retries = 0;
    let renewed = false;
    const sinceFirstAttempt = stopwatch();
    // Only reads stop: a write sent is let finish, so that its outcome is known.
    const stop = spec.method === 'GET' ? this.stopReading : undefined;
    for (;;) {
      attempt += 1;
      if (stop?.aborted) throw readingStopped(spec);
      const token = spec.authenticated ? await this.tokens.current() : undefined;
      this.secrets.add(token);
      if (stop?.aborted) throw readingStopped(spec);
      const elapsed = stopwatch();
      const target = this.target(spec);
      let answer: RawAnswer;
      try {
        answer = await this.transport.send({ method: spec.method, target, headers: this.headers(spec, token), body: this.body(spec), ...(stop ? { stop } : {}) });
      } catch (cause) {
        if (cause instanceof AttemptStopped) throw readingStopped(spec);
        const failure = classifyNetworkFailure(cause);
        this.emit({ method: spec.method, path: spec.path, attempt, failure, ms: elapsed() });
        // A certificate that is not accepted now will not be on the next try: say what to do.
        const certificate = certificateProblem(cause);
        if (certificate) throw this.certificateError(spec, certificate, cause);
        // Nor will a port that speaks plain HTTP start speaking TLS, nor a proxy that refused change its mind.
        const tries = { attempts: attempt, ms: sinceFirstAttempt() };
        if (plainHttpAnswered(cause)) throw this.networkError(spec, failure, cause, tries);
        const refusal = proxyRefusal(cause);
        if (refusal !== undefined) throw this.proxyRefusedError(spec, refusal, cause);
        if (this.retry.mayRetryNetworkFailure(failure, spec.idempotent, nameDoesNotResolve(cause), retries)) {
          retries += 1;
          await this.waitToRetry(spec, retries, this.retry.delay(retries), false);
          continue;
        }
        throw this.networkError(spec, failure, cause, tries, await this.answersTlsOnly(spec, failure, cause));
      }
      this.emit({ method: spec.method, path: spec.path, attempt, status: answer.status, ms: elapsed() });

      const meaning = interpretAnswer({ ...spec, url: target }, answer, Date.now());
      if (meaning.ok) return meaning.result;
      // Every failure of a call says how many attempts it took, whichever answer ended it.
      const error = this.makeError({ ...meaning.error, tries: { attempts: attempt, ms: sinceFirstAttempt() } });

      const problem = spec.authenticated ? tokenProblem(error) : undefined;
      if (problem === 'required') {
        // 499 "token required" although one was sent: it never reached the portal, and a new one would not either.
        throw withHint(
          error,
          'The portal says a token is required (499), yet this request carried one in the X-Esri-Authorization header: something between portalctl and the portal (a proxy, a web server in front of it) dropped that header. Let X-Esri-Authorization through; the token itself was not judged.',
        );
      }
      if (problem === 'invalid') {
        if (token !== undefined && this.tokens.renewable && !renewed) {
          renewed = true;
          this.secrets.add(await this.tokens.renew(token));
          continue;
        }
        throw withHint(
          error,
          this.tokens.renewable
            ? 'The portal rejected a freshly issued token as well (498, invalid or expired); check that the account may use the REST API and that the Referer is accepted.'
            : refusedTokenAdvice(this.credentials),
        );
      }

      const transient = isTransient(error);
      if (transient && spec.idempotent && retries < this.retry.maxRetries) {
        retries += 1;
        await this.waitToRetry(spec, retries, this.retry.delay(retries, error.retryAfterMs), error.retryAfterMs !== undefined);
        continue;
      }
      if (transient && !spec.idempotent) {
        // Too many requests: the portal refused it, so it was not performed; the outcome of a server failure is not known.
        if (error.httpStatus === 429 || error.code === 429) {
          throw withHint(
            error,
            'The portal turned it away (too many requests): it was not performed. It is not repeated automatically (a request that could act twice never is); run apply again later.',
          );
        }
        throw withHint(error, 'This request is not repeated automatically because repeating it could act twice; check the portal, then run apply again.');
      }
      const restRootHint = notTheRestRoot(error, spec.administration ? undefined : this.base);
      if (restRootHint) throw withHint(error, restRootHint);
      if (isMissingPrivilege(error)) {
        throw withHint(
          error,
          'The account behind the credentials lacks the privilege this operation needs (not retried). Use a default administrator account, or grant the privilege to its role.',
        );
      }
      throw error;
    }
  }

  private target(spec: CallSpec): URL {
    const base = spec.administration?.base ?? this.base;
    const target = new URL(base.href);
    target.pathname = `${base.pathname}${spec.administration?.path ?? spec.path}`;
    if (spec.method === 'GET') {
      const query = new URLSearchParams(spec.query);
      query.delete('f');
      query.append('f', 'json');
      target.search = query.toString();
    }
    return target;
  }

  private headers(spec: CallSpec, token: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json, */*;q=0.5',
      referer: this.referer,
      ...(token !== undefined ? tokenHeaders(token) : {}),
    };
    if (spec.method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded; charset=utf-8';
    return headers;
  }

  private body(spec: CallSpec): string | undefined {
    return spec.method === 'POST' ? (spec.form ?? encodeForm({})).toString() : undefined;
  }

  private makeError(fields: ApiErrorFields): ApiError {
    return new ApiError({
      ...fields,
      apiMessage: this.secrets.scrub(fields.apiMessage),
      details: fields.details?.map((detail) => this.secrets.scrub(detail)),
    });
  }

  /** `tries`: the attempts of this call so far and how long they took, waits included. */
  /** An http:// URL whose port closed every request without answering, and speaks TLS (see speaksTls). */
  private async answersTlsOnly(spec: CallSpec, failure: NetworkFailure, cause: unknown): Promise<boolean> {
    const base = spec.administration?.base ?? this.base;
    if (failure !== 'connection' || base.protocol !== 'http:' || this.transport.proxy !== undefined || !closedWithoutAnswer(cause)) return false;
    return speaksTls(base, Math.min(this.transport.timeoutMs, 5_000));
  }

  private networkError(spec: CallSpec, failure: NetworkFailure, cause: unknown, tries: Tries, tlsPort = false): ApiNetworkError {
    const outcomeUnknown = !spec.idempotent && failure !== 'unreachable';
    // The host: a wrong --portal or portal.url is the usual cause, and the path alone does not show it.
    const host = (spec.administration?.base ?? this.base).host;
    // Through a proxy, the proxy may be what failed.
    const via = this.transport.proxy === undefined ? '' : ` through the proxy ${proxyShown(this.transport.proxy)}`;
    const what =
      failure === 'timeout'
        ? `no answer within ${durationText(this.transport.timeoutMs)} from ${host}${via}`
        : failure === 'unreachable'
          ? `could not reach the portal at ${host}${via} (${describeCause(cause)})`
          : `the connection to ${host}${via} was dropped (${describeCause(cause)})`;
    return new ApiNetworkError({
      method: spec.method,
      path: spec.path,
      apiMessage: this.secrets.scrub(what),
      tries,
      failure,
      outcomeUnknown,
      hint: outcomeUnknown
        ? 'The outcome is unknown: the portal may or may not have performed this request. It is not repeated automatically because it is not idempotent; check the portal before running apply again.'
        : plainHttpAnswered(cause)
          ? `${host} answers plain HTTP where the portal URL asks for https://: check the URL's scheme and port.`
          : tlsPort
            ? `${host} speaks https:// on that port, and closed the http:// request's connection without answering: check the URL's scheme.`
            : undefined,
    });
  }

  /** The proxy would not open the way to the portal: nothing was sent to it. */
  private proxyRefusedError(spec: CallSpec, refusal: ProxyRefusal, cause: unknown): ApiNetworkError {
    const proxyUrl = this.transport.proxy ?? '';
    const proxy = proxyShown(proxyUrl);
    const host = (spec.administration?.base ?? this.base).host;
    const variable = this.base.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
    const signedIn = /^[^:]+:\/\/[^/@]+@/.test(proxyUrl);
    const advice = {
      'sign-in': signedIn
        ? "The proxy did not accept the user name and password in the proxy's URL: check them (characters such as @ : / % written percent-encoded)."
        : `The proxy asks for a sign-in: give its user name and password in the proxy's URL (${variable}=${proxyUrl.startsWith('socks5:') ? 'socks5' : 'http'}://user:password@${proxy}).`,
      'not-allowed': `The proxy does not let this machine reach ${host}: ask for it to be allowed, or, if the portal is reached directly, name its host in no_proxy.`,
      other: undefined,
    }[refusal.reason];
    const said = 'status' in refusal ? `HTTP ${refusal.status}${STATUS_CODES[refusal.status] ? ` ${STATUS_CODES[refusal.status]}` : ''}` : `SOCKS5: ${refusal.socks}`;
    return new ApiNetworkError(
      {
        method: spec.method,
        path: spec.path,
        apiMessage: `the proxy ${proxy} refused the connection to ${host} (${said})`,
        failure: 'unreachable',
        outcomeUnknown: false,
        ...(advice ? { hint: advice } : {}),
      },
      { cause },
    );
  }

  private certificateError(spec: CallSpec, problem: CertificateProblem, cause: unknown): UntrustedCertificateError {
    const host = this.base.host;
    const advice: Record<CertificateProblem['kind'], string> = {
      'untrusted-issuer':
        `The certificate of ${host} is signed by an authority this machine does not trust. If the portal uses a certificate from your ` +
        "organization's own authority, give Node that authority's certificate (PEM) and run portalctl again: " +
        'export NODE_EXTRA_CA_CERTS=/path/to/authority.pem. portalctl never turns certificate verification off.',
      'wrong-name': `The certificate of ${host} is not issued for that name: use the host name the certificate names in the portal URL (--portal or portal.url).`,
      'out-of-date': `The certificate of ${host} has expired or is not valid yet: renew it on the portal (or check this machine's clock).`,
      revoked: `The certificate of ${host} has been revoked: the portal needs a new certificate.`,
    };
    const reason = cause instanceof Error && cause.message ? `${problem.code}: ${cause.message}` : problem.code;
    return new UntrustedCertificateError(
      {
        method: spec.method,
        path: spec.path,
        apiMessage: this.secrets.scrub(`the portal's TLS certificate was not accepted (${reason}); nothing was sent`),
        hint: advice[problem.kind],
        certificateCode: problem.code,
      },
      { cause },
    );
  }

  private async waitToRetry(spec: CallSpec, retry: number, ms: number, retryAfter: boolean): Promise<void> {
    try {
      this.onRetryWait?.({ method: spec.method, path: spec.path, ms, retryAfter, retry });
    } catch {
      // An observer must not break a request.
    }
    const stop = spec.method === 'GET' ? this.stopReading : undefined;
    if (!stop) return this.sleep(ms);
    if (stop.aborted) return;
    // A read stopped meanwhile does not wait out its retry: the next attempt ends it.
    let cut: (() => void) | undefined;
    const stopped = new Promise<void>((resolve) => {
      cut = resolve;
      stop.addEventListener('abort', cut, { once: true });
    });
    try {
      await Promise.race([this.sleep(ms), stopped]);
    } finally {
      if (cut) stop.removeEventListener('abort', cut);
    }
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

function readingStopped(spec: CallSpec): ReadingStoppedError {
  return new ReadingStoppedError(`Reading ${spec.method} ${spec.path} was stopped.`);
}

function jsonBody(result: SendResult): JsonObject {
  if (result.type !== 'json') throw new Error('unreachable: a json call returned a file');
  return result.body;
}

/**
 * For a failed read of `/portals/self`, which every portal has and every session reads first, when
 * the portal URL does not end in /sharing/rest and the answer says no such path (400 "Invalid URL"
 * over HTTP 200, as the portal answers a path it does not know; 404; or a web page instead of
 * JSON): most likely the portal's web address was given instead of its REST root (https://host/portal
 * rather than https://host/portal/sharing/rest; the vendor's JavaScript client met the same
 * mistake: github.com/Esri/arcgis-rest-js/issues/397). By code, never by the localised message.
 * Other paths may be missing for their own reasons, behind a proxy that maps another path to the
 * REST root too.
 */
function notTheRestRoot(error: ApiError, base: URL | undefined): string | undefined {
  if (!base || error.path !== '/portals/self' || /\/sharing\/rest$/i.test(base.pathname)) return undefined;
  if (error.code !== undefined && error.code !== 400 && error.code !== 404) return undefined;
  return `The portal URL should be the portal's REST root, ending in /sharing/rest (e.g. ${base.origin}${restRootOf(base.pathname)}); ${base.href} does not. Give it with --portal or portal.url.`;
}

/** Pages of a portal's own under its web address: a URL copied from one of them ends its web address there. */
const PORTAL_PAGES = new Set(['sharing', 'home', 'apps', 'portaladmin']);

/**
 * The REST root a URL that is not one most likely meant: a resource's URL (`…/sharing/rest/portals/self`)
 * cut after `/sharing/rest`, a page's (`…/portal/home/index.html`) cut before the page, else the
 * web address with `/sharing/rest` added.
 */
function restRootOf(pathname: string): string {
  const steps = pathname.split('/');
  const page = steps.findIndex((step, index) => index > 0 && PORTAL_PAGES.has(step.toLowerCase()));
  return `${page === -1 ? pathname.replace(/\/+$/, '') : steps.slice(0, page).join('/')}/sharing/rest`;
}

/** The same error with advice on what to do. */
function withHint(error: ApiError, hint: string): ApiError {
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
      enveloped: error.enveloped,
      tries: error.tries,
      hint,
    },
    { cause: error },
  );
}

function splitPath(path: string, params: Params): { path: string; query: URLSearchParams } {
  const [rawPath = '', rawQuery] = path.split('?', 2);
  const cleanPath = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  const query = new URLSearchParams(rawQuery ?? '');
  for (const [name, value] of encodeForm(params)) query.set(name, value);
  // `f=json` is added to every request in one place (target).
  query.delete('f');
  return { path: cleanPath, query };
}

/** The form fields of a sign-in that come from the user's variables. */
const SIGN_IN_FIELDS = new Set(['username', 'password', 'client_id', 'client_secret']);

