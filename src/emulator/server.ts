/**
 * The emulator's HTTP server (node:http, no framework): parsing, routing, authentication,
 * formats, faults, latency, the request log and the control API. Routes are an input, so tests
 * can serve their own.
 *
 * Wire choices (the real portal's where known):
 * - REST root `/portal/sharing/rest`; control API at `/_emulator/`.
 * - Errors are HTTP 200 with the envelope `{"error":{code,messageCode?,message,details}}`, except
 *   an oversized body (HTTP 413, code 413), a multipart/form-data body it cannot read (HTTP 400,
 *   code 400; http/multipart.ts) and an unexpected handler exception (HTTP 500, code 500).
 * - A POST body is read the same way whether urlencoded or multipart/form-data (the vendor's
 *   JavaScript client sends multipart whenever a parameter is a file); either counts against
 *   MAX_BODY_BYTES whole.
 * - An unknown path, and a `:portalId` that is neither `self` nor the organization's id, answer
 *   HTTP 200 with `{code: 400, message: "Invalid URL"}` (no messageCode), as the real portal does.
 * - A write route (and generateToken / oauth2/token) called with a method other than POST, or a
 *   read route called with neither GET nor POST: HTTP 200, code 405, "Method not allowed; use POST."
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { authenticate, generateToken, oauthToken } from './auth.js';
import { ControlError, FaultList, HeldRequests, RequestLog, handleControl, redactParams, redactTokens, type ControlContext, type Fault, type LoggedRequest } from './control.js';
import { loadDataFile, minimalState, parseEmulatorState } from './state/data-file.js';
import { renderJson, type HttpAnswer } from './http/formats.js';
import { answerForFault, bodyTooLarge, finish, internalError, invalidUrl, methodNotAllowed, renderError, renderResult, rewriteAnswer, send } from './http/answers.js';
import { CONTROL_ROOT, REST_ROOT, MAX_BODY_BYTES, hasAuthorization, isControlPath, parseRequest, readBody, splitUrl, type ParsedRequest, type RequestBody } from './http/request.js';
import { compileRoutes, matchRoute, type CompiledRoute, type RouteMatch } from './http/router.js';
import { Timers } from './http/timers.js';
import { isWildcardHost } from './http/hosts.js';
import type { EmulatorState } from './state/model.js';
import type { Caller, Route, RouteResult } from './shared/types.js';
import { PORTAL_ADMIN_ROOT, portalAdministrationRoot, restRoot } from './portal/roots.js';
import { portalSelfRoute } from './portal/self.js';
import { EmulatorClock, EmulatorStore } from './state/store.js';
import type { TlsMaterial } from './http/tls.js';

export { CONTROL_ROOT, MAX_BODY_BYTES, REST_ROOT } from './http/request.js';

export interface EmulatorServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A data file path (YAML or JSON) or a state; omitted: the minimal organization of data.ts. */
  data?: string | EmulatorState;
  /**
   * Serve HTTPS with this certificate and key (PEM) instead of plain HTTP; `generateTls()` (tls.ts)
   * makes a pair signed by a new authority for tests and `portalctl emulator --tls`.
   */
  tls?: TlsMaterial;
  /** The portal's routes; `portals/self`, `generateToken` and `oauth2/token` are built in. */
  routes: readonly Route[];
  /** Every portal request is answered after this many milliseconds (benchmarks). */
  latencyMs?: number;
  /**
   * Changes the portal makes by itself, applied to a state replaced through
   * `PUT /_emulator/state` (tests change sharing that way; E3's status flips follow).
   */
  onStateReplaced?: (previous: EmulatorState, next: EmulatorState) => void;
}

export interface RunningEmulator {
  /** The REST root, e.g. `http://127.0.0.1:40123/portal/sharing/rest` (`https://` with `tls`). */
  url: string;
  /** The control API root, e.g. `http://127.0.0.1:40123/_emulator`. */
  controlUrl: string;
  host: string;
  port: number;
  store: EmulatorStore;
  clock: EmulatorClock;
  /** A copy of the current state. */
  state(): EmulatorState;
  close(): Promise<void>;
}

/** The token endpoints, lower-cased (paths are matched without regard to case, as routes are). */
const TOKEN_PATHS = new Set(['/generatetoken', '/oauth2/token']);

export async function startEmulatorServer(options: EmulatorServerOptions): Promise<RunningEmulator> {
  const portal = new PortalServer(options);
  const address = await listen(portal.server, options.port ?? 0, options.host ?? '127.0.0.1');
  return portal.running(address);
}

function initialState(data: EmulatorServerOptions['data']): EmulatorState {
  if (data === undefined) return minimalState();
  return typeof data === 'string' ? loadDataFile(data) : parseEmulatorState(data, 'the state given to startEmulator');
}

function listen(server: Server | HttpsServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      // A server listening on a port always has an AddressInfo (a string is a pipe's path).
      if (address === null || typeof address === 'string') reject(new Error(`The emulator is not listening on a port (${String(address)}).`));
      else resolve(address);
    });
  });
}

/** One running emulator: the HTTP plumbing around the store, the routes and the control API. */
class PortalServer {
  readonly store: EmulatorStore;
  readonly clock = new EmulatorClock();
  readonly server: Server | HttpsServer;
  private readonly scheme: 'http' | 'https';
  private readonly faults = new FaultList();
  private readonly held = new HeldRequests();
  private readonly log = new RequestLog();
  private readonly timers = new Timers();
  private readonly routes: CompiledRoute[];
  private readonly control: ControlContext;
  private latencyMs: number;

  constructor(options: EmulatorServerOptions) {
    this.store = new EmulatorStore(initialState(options.data));
    this.latencyMs = options.latencyMs ?? 0;
    this.routes = compileRoutes([portalSelfRoute, ...options.routes]);
    this.control = {
      store: this.store,
      clock: this.clock,
      faults: this.faults,
      held: this.held,
      log: this.log,
      getLatency: () => this.latencyMs,
      setLatency: (ms) => {
        this.latencyMs = ms;
      },
      ...(options.onStateReplaced ? { onStateReplaced: options.onStateReplaced } : {}),
    };
    const handle = (request: IncomingMessage, response: ServerResponse): void => {
      this.serve(request, response).catch((error: unknown) => lastResort(response, error));
    };
    this.scheme = options.tls ? 'https' : 'http';
    this.server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createServer(handle);
  }

  running(address: AddressInfo): RunningEmulator {
    const host = address.address;
    // Bound to every address (0.0.0.0, ::): the URL a client on this machine uses.
    const reached = !isWildcardHost(host) ? host : host.includes(':') ? '::1' : '127.0.0.1';
    const origin = `${this.scheme}://${reached.includes(':') ? `[${reached}]` : reached}:${address.port}`;
    return {
      url: `${origin}${REST_ROOT}`,
      controlUrl: `${origin}${CONTROL_ROOT}`,
      host,
      port: address.port,
      store: this.store,
      clock: this.clock,
      state: () => this.store.snapshot(),
      close: () => this.close(),
    };
  }

  private close(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.timers.cancelAll();
      this.held.release();
      this.server.close((error) => (error ? reject(error) : resolve()));
      this.server.closeAllConnections();
    });
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { fullPath, query } = splitUrl(request.url ?? '/');
    const method = request.method ?? 'GET';
    const body = await readBody(request, MAX_BODY_BYTES);
    if (isControlPath(fullPath)) {
      this.serveControl(response, method, fullPath.slice(CONTROL_ROOT.length), body);
      return;
    }
    const parsed = await parseRequest(request, method, fullPath, query, body);
    const entry = this.logRequest(request, parsed, body);
    if (this.latencyMs > 0) await this.timers.sleep(this.latencyMs);
    const fault = await this.faultFor(parsed);
    if (fault && !fault.afterRoute && fault.rewrite === undefined && this.answeredByFault(request, response, parsed.format, entry, fault)) return;
    let answer = body.tooLarge
      ? renderError(parsed.format, bodyTooLarge(MAX_BODY_BYTES))
      : parsed.bodyError
        ? renderError(parsed.format, parsed.bodyError)
        : this.dispatch(parsed);
    if (fault?.afterRoute && this.answeredByFault(request, response, parsed.format, entry, fault)) return;
    if (fault?.rewrite !== undefined) answer = rewriteAnswer(answer, parsed.format, fault.rewrite);
    finish(response, entry, answer, fault?.id);
  }

  private logRequest(request: IncomingMessage, parsed: ParsedRequest, body: RequestBody): LoggedRequest {
    const contentType = request.headers['content-type'];
    return this.log.add({
      time: this.clock.now(),
      method: parsed.method,
      path: parsed.restPath ?? parsed.fullPath,
      params: redactParams({ ...parsed.params, ...(parsed.tokenInParams ? { token: '***' } : {}) }),
      rawBody: redactTokens(body.text),
      bodyBytes: body.bytes,
      ...(contentType ? { contentType } : {}),
      ...(parsed.referer !== undefined ? { referer: parsed.referer } : {}),
      authorizationHeader: hasAuthorization(request),
      access: this.classify(parsed.restPath),
    });
  }

  /** The first matching fault, after its delay and hold (a fault with neither answer nor rewrite then lets the request proceed). */
  private async faultFor(parsed: ParsedRequest): Promise<Fault | undefined> {
    const paths = parsed.restPath !== undefined ? [parsed.restPath, parsed.fullPath] : [parsed.fullPath];
    const fault = this.faults.take(parsed.method, paths, parsed.params);
    if (!fault) return undefined;
    if (fault.delayMs) await this.timers.sleep(fault.delayMs);
    if (fault.hold) await this.held.wait(fault.id);
    return fault;
  }

  /** Answers (or drops) the request as the fault says; false when the fault gives no answer of its own. */
  private answeredByFault(request: IncomingMessage, response: ServerResponse, format: ParsedRequest['format'], entry: LoggedRequest, fault: Fault): boolean {
    if (fault.drop) {
      entry.response = { status: 0, faultId: fault.id, dropped: true };
      request.socket.destroy();
      return true;
    }
    const answer = answerForFault(fault, format);
    if (answer) finish(response, entry, answer, fault.id);
    return answer !== undefined;
  }

  private serveControl(response: ServerResponse, method: string, subpath: string, body: RequestBody): void {
    let answer: { status: number; body: unknown };
    try {
      // A body cut at the limit would be read as empty or broken JSON: said as what it is.
      if (body.tooLarge) throw new ControlError(413, `The body is larger than the emulator's limit of ${MAX_BODY_BYTES} bytes; a larger organization is started with --data FILE.`);
      answer = handleControl(this.control, method, subpath, body.text);
    } catch (error) {
      const message = error instanceof ControlError ? error.message : `Control API failure: ${String(error)}`;
      answer = { status: error instanceof ControlError ? error.status : 500, body: { error: { message } } };
    }
    send(response, { status: answer.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(answer.body) });
  }

  private classify(restPath: string | undefined): LoggedRequest['access'] {
    if (restPath === undefined) return 'unknown';
    if (TOKEN_PATHS.has(restPath.toLowerCase())) return 'token';
    return matchRoute(this.routes, restPath)?.route.access ?? 'unknown';
  }

  /** Runs the request against the state; every failure becomes an error envelope. */
  private dispatch(request: ParsedRequest): HttpAnswer {
    try {
      return renderResult(request.format, this.route(request));
    } catch (error) {
      return renderError(request.format, error);
    }
  }

  private route(request: ParsedRequest): RouteResult {
    const { restPath, method } = request;
    if (restPath === undefined) return this.outsideRestRoot(request);
    // The REST root answers its versions without a token, like the real one.
    if (restPath === '') return { type: 'json', body: this.store.peek((state) => restRoot(state.organization)) };
    if (restPath.toLowerCase() === '/info') return { type: 'json', body: infoResource(request.origin) };
    if (TOKEN_PATHS.has(restPath.toLowerCase())) return this.tokenRoute(request, restPath.toLowerCase());
    const match = matchRoute(this.routes, restPath);
    if (!match) throw invalidUrl();
    const allowed = match.route.access === 'write' ? ['POST'] : ['GET', 'POST'];
    if (!allowed.includes(method)) throw methodNotAllowed();
    return this.runRoute(request, match);
  }

  /** The Portal Administration root (administrators of the self-managed edition); anything else is an invalid URL. */
  private outsideRestRoot(request: ParsedRequest): RouteResult {
    if (request.fullPath.replace(/\/+$/, '') !== PORTAL_ADMIN_ROOT) throw invalidUrl();
    if (request.method !== 'GET' && request.method !== 'POST') throw methodNotAllowed();
    const now = this.clock.now();
    return this.store.peek((state) => {
      if (state.organization.edition !== 'self-managed') throw invalidUrl();
      const body = portalAdministrationRoot(state, authenticate(state, request.token, request.referer, now));
      if (!body) throw invalidUrl();
      return { type: 'json', body };
    });
  }

  private tokenRoute(request: ParsedRequest, restPath: string): RouteResult {
    if (request.method !== 'POST') throw methodNotAllowed();
    const now = this.clock.now();
    const issue = restPath === '/generatetoken' ? generateToken : oauthToken;
    return { type: 'json', body: this.store.write((draft) => issue(draft, request.params, now)) };
  }

  private runRoute(request: ParsedRequest, match: RouteMatch): RouteResult {
    const now = this.clock.now();
    const caller = this.callerOf(request, match, now);
    const run = (state: EmulatorState): RouteResult =>
      match.route.handle({
        params: request.params,
        files: request.files,
        ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
        pathParams: match.pathParams,
        caller,
        state,
        now,
      });
    return match.route.access === 'write' ? this.store.write(run) : this.store.read(run);
  }

  /** Who calls, decided on the committed state (indexed, no copy), so a write copies only what its handler touches. */
  private callerOf(request: ParsedRequest, match: RouteMatch, now: number): Caller {
    return this.store.peek((state) => {
      const portalId = match.pathParams['portalId'];
      if (portalId !== undefined && portalId.toLowerCase() !== 'self' && portalId !== state.organization.id) throw invalidUrl();
      return authenticate(state, request.token, request.referer, now);
    });
  }
}

/**
 * `sharing/rest/info`, answered without a token: where the token service is, which clients ask
 * first (the vendor's Python API; @esri/arcgis-rest-request when it signs in through a `server`).
 * Shape of the vendor's client mock (arcgis-rest-js packages/arcgis-rest-request/test/mocks/
 * sharing-rest-info.ts): `owningSystemUrl` and `authInfo` {isTokenBasedSecurity, tokenServicesUrl}.
 */
function infoResource(origin: string): Record<string, unknown> {
  return {
    owningSystemUrl: `${origin}${REST_ROOT.replace(/\/sharing\/rest$/, '')}`,
    authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${origin}${REST_ROOT}/generateToken` },
  };
}

/** A failure outside any handler (e.g. the socket went away mid-answer). */
function lastResort(response: ServerResponse, error: unknown): void {
  if (!response.headersSent && !response.destroyed) send(response, renderJson('json', internalError(error).toBody(), 500));
  else response.destroy();
}
