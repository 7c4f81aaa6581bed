/**
 * The emulator's HTTP server (node:http, no framework): parsing, routing, authentication,
 * formats, faults, latency, the request log and the control API. Routes are an input, so tests
 * can serve their own.
 *
 * Wire choices (the real portal's where known):
 * - REST root `/portal/sharing/rest`; control API at `/_emulator/`.
 * - Errors are HTTP 200 with the envelope `{"error":{code,messageCode?,message,details}}`, except
 *   an oversized body (HTTP 413, code 413) and an unexpected handler exception (HTTP 500, code 500).
 * - An unknown path, and a `:portalId` that is neither `self` nor the organization's id, answer
 *   HTTP 200 with `{code: 400, message: "Invalid URL"}` (no messageCode), as the real portal does.
 * - A write route (and generateToken / oauth2/token) called with a method other than POST, or a
 *   read route called with neither GET nor POST: HTTP 200, code 405, "Method not allowed; use POST."
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, generateToken, oauthToken, requestToken } from './auth.js';
import { ControlError, FaultList, RequestLog, handleControl, redactParams, redactTokens, type ControlContext, type Fault, type LoggedRequest } from './control.js';
import { loadDataFile, minimalState, parseEmulatorState } from './data.js';
import { PortalApiError } from './errors.js';
import { renderFile, renderJson, responseFormat, type HttpAnswer, type ResponseFormat } from './formats.js';
import type { EmulatorState } from './model.js';
import type { Route, RouteResult } from './routes/types.js';
import { portalSelfRoute } from './self.js';
import { EmulatorClock, EmulatorStore } from './store.js';

export const REST_ROOT = '/portal/sharing/rest';
export const CONTROL_ROOT = '/_emulator';
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface EmulatorServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A data file path (YAML or JSON) or a state; omitted: the minimal organization of data.ts. */
  data?: string | EmulatorState;
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
  /** The REST root, e.g. `http://127.0.0.1:40123/portal/sharing/rest`. */
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

interface CompiledRoute {
  route: Route;
  segments: string[];
}

interface ParsedRequest {
  method: string;
  /** Path relative to the REST root; undefined when the request is outside it. */
  restPath: string | undefined;
  fullPath: string;
  params: Record<string, string>;
  rawBody?: string;
  format: ResponseFormat;
  token: string | undefined;
  /** True when the token came as a form or query field (logged as "***"), not as a header. */
  tokenInParams: boolean;
  referer: string | undefined;
}

export async function startEmulatorServer(options: EmulatorServerOptions): Promise<RunningEmulator> {
  const initial =
    options.data === undefined
      ? minimalState()
      : typeof options.data === 'string'
        ? loadDataFile(options.data)
        : parseEmulatorState(options.data, 'the state given to startEmulator');
  const store = new EmulatorStore(initial);
  const clock = new EmulatorClock();
  const faults = new FaultList();
  const log = new RequestLog();
  let latencyMs = options.latencyMs ?? 0;
  // Pending latency and fault delays; close() cancels them so a held request never outlives the server.
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  const control: ControlContext = {
    store,
    clock,
    faults,
    log,
    getLatency: () => latencyMs,
    setLatency: (ms) => {
      latencyMs = ms;
    },
    ...(options.onStateReplaced ? { onStateReplaced: options.onStateReplaced } : {}),
  };
  const routes: CompiledRoute[] = [portalSelfRoute, ...options.routes].map((route) => ({ route, segments: splitPath(route.pattern) }));

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      // Last resort: a failure outside any handler (e.g. the socket went away mid-answer).
      if (!response.headersSent && !response.destroyed) {
        send(response, renderJson('json', internalError(error).toBody(), 500));
      } else {
        response.destroy();
      }
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawUrl = request.url ?? '/';
    const queryStart = rawUrl.indexOf('?');
    const fullPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart);
    const query = queryStart === -1 ? '' : rawUrl.slice(queryStart + 1);
    const method = request.method ?? 'GET';
    const body = await readBody(request, MAX_BODY_BYTES);

    if (fullPath === CONTROL_ROOT || fullPath.startsWith(`${CONTROL_ROOT}/`)) {
      serveControl(response, method, fullPath.slice(CONTROL_ROOT.length), body.text);
      return;
    }

    const parsed = parseRequest(request, method, fullPath, query, body.text);
    const entry = log.add({
      time: clock.now(),
      method,
      path: parsed.restPath ?? fullPath,
      params: redactParams({ ...parsed.params, ...(parsed.tokenInParams ? { token: '***' } : {}) }),
      rawBody: redactTokens(body.text),
      bodyBytes: body.bytes,
      ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
      ...(parsed.referer !== undefined ? { referer: parsed.referer } : {}),
      authorizationHeader: hasAuthorization(request),
      access: classify(parsed.restPath),
    });

    if (latencyMs > 0) await sleep(latencyMs);

    const fault = faults.take(method, parsed.restPath !== undefined ? [parsed.restPath, fullPath] : [fullPath]);
    if (fault) {
      if (fault.delayMs) await sleep(fault.delayMs);
      if (fault.drop) {
        entry.response = { status: 0, faultId: fault.id, dropped: true };
        request.socket.destroy();
        return;
      }
      const faultAnswer = answerForFault(fault, parsed.format);
      if (faultAnswer) {
        finish(response, entry, faultAnswer, fault.id);
        return;
      }
    }

    if (body.tooLarge) {
      const error = new PortalApiError(413, `Request body is larger than the emulator's limit of ${MAX_BODY_BYTES} bytes.`, undefined, [], 413);
      finish(response, entry, renderJson(parsed.format, error.toBody(), error.httpStatus));
      return;
    }
    finish(response, entry, dispatch(parsed));
  }

  function serveControl(response: ServerResponse, method: string, subpath: string, bodyText: string): void {
    let answer: { status: number; body: unknown };
    try {
      answer = handleControl(control, method, subpath, bodyText);
    } catch (error) {
      answer =
        error instanceof ControlError
          ? { status: error.status, body: { error: { message: error.message } } }
          : { status: 500, body: { error: { message: `Control API failure: ${String(error)}` } } };
    }
    send(response, { status: answer.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(answer.body) });
  }

  function classify(restPath: string | undefined): LoggedRequest['access'] {
    if (restPath === undefined) return 'unknown';
    if (restPath === '/generateToken' || restPath === '/oauth2/token') return 'token';
    return matchRoute(routes, restPath)?.route.access ?? 'unknown';
  }

  /** Runs the request against the state; every failure becomes an error envelope. */
  function dispatch(request: ParsedRequest): HttpAnswer {
    try {
      return renderResult(request.format, route(request));
    } catch (error) {
      if (error instanceof PortalApiError) return renderJson(request.format, error.toBody(), error.httpStatus);
      const failure = internalError(error);
      return renderJson(request.format, failure.toBody(), failure.httpStatus);
    }
  }

  function route(request: ParsedRequest): RouteResult {
    const { restPath, method, params } = request;
    if (restPath === undefined) throw invalidUrl();
    if (restPath === '') {
      // The REST root answers its version without a token, like the real one.
      return { type: 'json', body: { currentVersion: store.read((state) => state.organization.version) } };
    }
    if (restPath === '/generateToken' || restPath === '/oauth2/token') {
      if (method !== 'POST') throw methodNotAllowed();
      const now = clock.now();
      const body = store.write((draft) => (restPath === '/generateToken' ? generateToken(draft, params, now) : oauthToken(draft, params, now)));
      return { type: 'json', body };
    }
    const match = matchRoute(routes, restPath);
    if (!match) throw invalidUrl();
    const allowed = match.route.access === 'write' ? ['POST'] : ['GET', 'POST'];
    if (!allowed.includes(method)) throw methodNotAllowed();
    const now = clock.now();
    // Who calls is decided on the committed state, so a write copies only what its handler touches.
    const caller = store.peek((state) => {
      const portalId = match.pathParams['portalId'];
      if (portalId !== undefined && portalId !== 'self' && portalId !== state.organization.id) throw invalidUrl();
      return authenticate(state, request.token, request.referer, now);
    });
    const run = (state: EmulatorState): RouteResult =>
      match.route.handle({
        params,
        ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
        pathParams: match.pathParams,
        caller,
        state,
        now,
      });
    return match.route.access === 'write' ? store.write(run) : store.read(run);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.address;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;

  return {
    url: `${origin}${REST_ROOT}`,
    controlUrl: `${origin}${CONTROL_ROOT}`,
    host,
    port: address.port,
    store,
    clock,
    state: () => store.snapshot(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function parseRequest(request: IncomingMessage, method: string, fullPath: string, query: string, bodyText: string): ParsedRequest {
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) params[key] = value;
  let rawBody: string | undefined;
  if (bodyText !== '') {
    if (isFormBody(request.headers['content-type'], bodyText)) {
      for (const [key, value] of new URLSearchParams(bodyText)) params[key] = value;
    } else {
      rawBody = bodyText;
    }
  }
  const token = requestToken(params, request.headers);
  const tokenInParams = params['token'] !== undefined && params['token'] !== '';
  const format = responseFormat(params['f']);
  delete params['f'];
  delete params['token'];
  const refererHeader = request.headers['referer'];
  return {
    method,
    restPath: restPathOf(fullPath),
    fullPath,
    params,
    ...(rawBody !== undefined ? { rawBody } : {}),
    format,
    token,
    tokenInParams,
    referer: Array.isArray(refererHeader) ? refererHeader[0] : refererHeader,
  };
}

/**
 * A body is a form when declared so (or undeclared) and it does not look like JSON: clients such
 * as curl -d label a bare JSON object as a form, and E2's sample sends exactly that.
 */
function isFormBody(contentType: string | undefined, bodyText: string): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== '' && type !== 'application/x-www-form-urlencoded') return false;
  const start = bodyText.trimStart()[0];
  return start !== '{' && start !== '[';
}

function restPathOf(fullPath: string): string | undefined {
  if (fullPath !== REST_ROOT && !fullPath.startsWith(`${REST_ROOT}/`)) return undefined;
  return fullPath.slice(REST_ROOT.length).replace(/\/+$/, '');
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchRoute(routes: readonly CompiledRoute[], restPath: string): { route: Route; pathParams: Record<string, string> } | undefined {
  let segments: string[];
  try {
    segments = splitPath(restPath).map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined; // malformed percent-encoding: no route can match
  }
  for (const { route, segments: pattern } of routes) {
    if (pattern.length !== segments.length) continue;
    const pathParams: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const actual = segments[index] ?? '';
      if (part.startsWith(':')) {
        pathParams[part.slice(1)] = actual;
        return actual !== '';
      }
      return part === actual;
    });
    if (matches) return { route, pathParams };
  }
  return undefined;
}

function renderResult(format: ResponseFormat, result: RouteResult): HttpAnswer {
  return result.type === 'file' ? renderFile(result) : renderJson(format, result.body);
}

function answerForFault(fault: Fault, format: ResponseFormat): HttpAnswer | undefined {
  const retryAfter: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
  if (fault.error) {
    const answer = renderJson(format, { error: { ...fault.error, details: fault.error.details ?? [] } }, fault.status ?? 200);
    return { ...answer, headers: { ...answer.headers, ...retryAfter } };
  }
  if (fault.status !== undefined) {
    const body = fault.body ?? '';
    return { status: fault.status, headers: { 'content-type': looksLikeJson(body) ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8', ...retryAfter }, body };
  }
  return undefined;
}

function looksLikeJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function finish(response: ServerResponse, entry: LoggedRequest, answer: HttpAnswer, faultId?: number): void {
  entry.response = { status: answer.status, ...(answer.errorCode !== undefined ? { code: answer.errorCode } : {}), ...(faultId !== undefined ? { faultId } : {}) };
  send(response, answer);
}

function send(response: ServerResponse, answer: HttpAnswer): void {
  const body = Buffer.from(answer.body, 'utf8');
  response.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
  response.end(body);
}

function hasAuthorization(request: IncomingMessage): boolean {
  return request.headers['authorization'] !== undefined || request.headers['x-esri-authorization'] !== undefined;
}

const invalidUrl = (): PortalApiError => new PortalApiError(400, 'Invalid URL', undefined, []);
const methodNotAllowed = (): PortalApiError => new PortalApiError(405, 'Method not allowed; use POST.', undefined, []);

function internalError(error: unknown): PortalApiError {
  const reason = error instanceof Error ? error.message : String(error);
  return new PortalApiError(500, 'Unexpected error in the emulator; the request changed nothing.', undefined, [reason], 500);
}

/**
 * Reads the whole body, keeping at most `limit` bytes: a larger body is drained (so the client
 * can read the 413 answer) and flagged.
 */
function readBody(request: IncomingMessage, limit: number): Promise<{ text: string; bytes: number; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolve({ text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), bytes, tooLarge }));
    request.on('error', reject);
  });
}


