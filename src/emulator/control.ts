/**
 * The control API under `/_emulator/` (JSON in and out, no authentication, never logged), the
 * request log it exposes and the faults it injects.
 *
 *   GET    /_emulator/state      the whole state
 *   PUT    /_emulator/state      replace the whole state (validated like a data file)
 *   POST   /_emulator/reset      state back to the loaded data; clears log, faults, latency, clock
 *   GET    /_emulator/requests   the request log;  DELETE clears it
 *   POST   /_emulator/faults     add a fault (FaultSpec);  GET lists;  DELETE clears
 *   GET|POST /_emulator/latency  `{ms}`: every portal request is answered after ms
 *   GET|POST /_emulator/clock    `{now}` freezes the clock (epoch ms or ISO date), `{offsetMs}`
 *                                shifts it, `{}` returns to real time
 */
import { EmulatorDataError, parseEmulatorState } from './data.js';
import { isRecord } from './json.js';
import type { EmulatorState } from './model.js';
import type { EmulatorClock, EmulatorStore } from './store.js';

export interface FaultSpec {
  /** Substring of the request path, or a glob with `*` matched against the whole path. */
  path: string;
  method?: 'GET' | 'POST';
  /** How many matching requests the fault applies to; 0 = every one. Default 1. */
  count?: number;
  /** Answer with this HTTP status (and `body`, `retryAfter`). */
  status?: number;
  /** Body of a status fault: JSON when it parses as JSON, HTML otherwise. */
  body?: string;
  /** Retry-After header, in seconds. */
  retryAfter?: number;
  /** Answer with the portal's error envelope (HTTP 200 unless `status` is given). */
  error?: { code: number; messageCode?: string; message: string; details?: string[] | string };
  /** Wait this long first; alone, the request then proceeds normally. */
  delayMs?: number;
  /** Destroy the connection without answering. */
  drop?: boolean;
}

export interface Fault extends FaultSpec {
  id: number;
  count: number;
  /** Requests it still applies to; null when it always applies. */
  remaining: number | null;
  /** Requests it has applied to so far. */
  hits: number;
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export function parseFaultSpec(input: unknown): FaultSpec {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ControlError(400, 'A fault is a JSON object.');
  const raw = input as Record<string, unknown>;
  const allowed = ['path', 'method', 'count', 'status', 'body', 'retryAfter', 'error', 'delayMs', 'drop'];
  const unknownKey = Object.keys(raw).find((key) => !allowed.includes(key));
  if (unknownKey !== undefined) throw new ControlError(400, `Unknown fault field "${unknownKey}" (expected: ${allowed.join(', ')}).`);
  const bad = (field: string, expected: string): never => {
    throw new ControlError(400, `Fault field "${field}" must be ${expected}.`);
  };
  const nonNegativeInteger = (field: string): number | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : bad(field, 'a non-negative integer');
  };
  if (typeof raw['path'] !== 'string' || raw['path'] === '') bad('path', 'a non-empty string');
  const spec: FaultSpec = { path: raw['path'] as string };
  if (raw['method'] !== undefined) {
    if (raw['method'] !== 'GET' && raw['method'] !== 'POST') bad('method', '"GET" or "POST"');
    spec.method = raw['method'] as 'GET' | 'POST';
  }
  const count = nonNegativeInteger('count');
  if (count !== undefined) spec.count = count;
  const status = nonNegativeInteger('status');
  if (status !== undefined) {
    if (status < 100 || status > 599) bad('status', 'an HTTP status (100-599)');
    spec.status = status;
  }
  if (raw['body'] !== undefined) spec.body = typeof raw['body'] === 'string' ? raw['body'] : bad('body', 'a string');
  const retryAfter = nonNegativeInteger('retryAfter');
  if (retryAfter !== undefined) spec.retryAfter = retryAfter;
  const delayMs = nonNegativeInteger('delayMs');
  if (delayMs !== undefined) spec.delayMs = delayMs;
  if (raw['drop'] !== undefined) spec.drop = raw['drop'] === true ? true : bad('drop', 'true');
  if (raw['error'] !== undefined) spec.error = parseFaultError(raw['error'], bad);
  if (spec.status === undefined && spec.error === undefined && spec.delayMs === undefined && !spec.drop) {
    throw new ControlError(400, 'A fault needs at least one of status, error, delayMs or drop.');
  }
  return spec;
}

function parseFaultError(value: unknown, bad: (field: string, expected: string) => never): NonNullable<FaultSpec['error']> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('error', 'an object {code, messageCode?, message, details?}');
  const error = value as Record<string, unknown>;
  if (typeof error['code'] !== 'number' || !Number.isInteger(error['code'])) bad('error.code', 'an integer');
  if (typeof error['message'] !== 'string') bad('error.message', 'a string');
  if (error['messageCode'] !== undefined && typeof error['messageCode'] !== 'string') bad('error.messageCode', 'a string');
  const details = error['details'];
  const detailsOk = details === undefined || typeof details === 'string' || (Array.isArray(details) && details.every((d) => typeof d === 'string'));
  if (!detailsOk) bad('error.details', 'a string or an array of strings');
  return {
    code: error['code'] as number,
    message: error['message'] as string,
    ...(typeof error['messageCode'] === 'string' ? { messageCode: error['messageCode'] } : {}),
    ...(details !== undefined ? { details: details as string[] | string } : {}),
  };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** Faults in the order they were added; the first one that matches and has uses left applies. */
export class FaultList {
  private faults: Fault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): Fault {
    const count = spec.count ?? 1;
    const fault: Fault = { ...spec, id: this.nextId++, count, remaining: count === 0 ? null : count, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.faults = [];
  }

  /**
   * The fault for a request, used up by one. `paths` are the path relative to the REST root and
   * the full request path: a substring matches either, a glob must match one of them whole.
   */
  take(method: string, paths: readonly string[]): Fault | undefined {
    const fault = this.faults.find(
      (candidate) =>
        (candidate.remaining === null || candidate.remaining > 0) &&
        (candidate.method === undefined || candidate.method === method) &&
        paths.some((path) => (candidate.path.includes('*') ? globToRegExp(candidate.path).test(path) : path.includes(candidate.path))),
    );
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.remaining !== null) fault.remaining -= 1;
    return { ...fault };
  }
}

export interface LoggedRequest {
  seq: number;
  /** Epoch milliseconds, from the emulator's clock. */
  time: number;
  method: string;
  /** Path relative to the REST root (the full path when outside it). */
  path: string;
  /** Form and query parameters with `token` shown as "***". */
  params: Record<string, string>;
  /** The body as received with token values shown as "***" (cut at 64 KiB). */
  rawBody: string;
  bodyBytes: number;
  contentType?: string;
  referer?: string;
  /** True when an Authorization (or X-Esri-Authorization) header was sent; its value is never logged. */
  authorizationHeader: boolean;
  /** What the path resolved to: a read or write route, a token endpoint, or nothing. */
  access: 'read' | 'write' | 'token' | 'unknown';
  response?: { status: number; code?: number; faultId?: number; dropped?: boolean };
}

const LOGGED_BODY_LIMIT = 64 * 1024;
/** Oldest entries are dropped beyond this, so long benchmarks do not grow without bound. */
const LOG_LIMIT = 100_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];
  private nextSeq = 1;

  add(entry: Omit<LoggedRequest, 'seq'>): LoggedRequest {
    const logged: LoggedRequest = { seq: this.nextSeq++, ...entry };
    this.entries.push(logged);
    if (this.entries.length > LOG_LIMIT) this.entries.shift();
    return logged;
  }

  list(): LoggedRequest[] {
    return structuredClone(this.entries);
  }

  clear(): void {
    this.entries = [];
  }
}

/** Hides token values in a form body (`token=...`) and in JSON text (`"token": "..."`). */
/** Request fields that carry a secret; the request log shows them as "***". */
const SECRET_FIELDS = ['token', 'access_token', 'refresh_token', 'password', 'client_secret', 'code'] as const;
const SECRET_FORM_FIELD = new RegExp(`(^|&)(${SECRET_FIELDS.join('|')})=[^&]*`, 'g');
const SECRET_JSON_FIELD = new RegExp(`("(?:${SECRET_FIELDS.join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');

export function redactTokens(body: string): string {
  const cut = body.length > LOGGED_BODY_LIMIT ? `${body.slice(0, LOGGED_BODY_LIMIT)}...[cut]` : body;
  return cut.replace(SECRET_FORM_FIELD, '$1$2=***').replace(SECRET_JSON_FIELD, '$1"***"');
}

export function redactParams(params: Readonly<Record<string, string>>): Record<string, string> {
  const redacted: Record<string, string> = { ...params };
  for (const secret of SECRET_FIELDS) {
    if (secret in redacted) redacted[secret] = '***';
  }
  return redacted;
}

export interface ControlContext {
  store: EmulatorStore;
  clock: EmulatorClock;
  faults: FaultList;
  log: RequestLog;
  getLatency(): number;
  setLatency(ms: number): void;
  /** Changes the portal makes by itself when state is replaced (e.g. item status transitions). */
  onStateReplaced?: (previous: EmulatorState, next: EmulatorState) => void;
}

export interface ControlAnswer {
  status: number;
  body: unknown;
}

/** Handles `/_emulator/<subpath>`; throws ControlError for bad requests. */
export function handleControl(context: ControlContext, method: string, subpath: string, bodyText: string): ControlAnswer {
  const route = `${method} ${subpath.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /state':
      return ok(context.store.snapshot());
    case 'PUT /state': {
      try {
        const next = parseEmulatorState(parseJson(bodyText), 'PUT /_emulator/state');
        context.onStateReplaced?.(context.store.snapshot(), next);
        context.store.replace(next);
      } catch (error) {
        if (error instanceof EmulatorDataError) throw new ControlError(400, error.message);
        throw error;
      }
      return ok({ success: true });
    }
    case 'POST /reset':
      context.store.reset();
      context.log.clear();
      context.faults.clear();
      context.setLatency(0);
      context.clock.reset();
      return ok({ success: true });
    case 'GET /requests':
      return ok({ requests: context.log.list() });
    case 'DELETE /requests':
      context.log.clear();
      return ok({ success: true });
    case 'GET /faults':
      return ok({ faults: context.faults.list() });
    case 'POST /faults':
      return ok(context.faults.add(parseFaultSpec(parseJson(bodyText))));
    case 'DELETE /faults':
      context.faults.clear();
      return ok({ success: true });
    case 'GET /latency':
      return ok({ ms: context.getLatency() });
    case 'POST /latency': {
      const body = objectBody(bodyText);
      const ms = body['ms'];
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw new ControlError(400, 'Latency is {"ms": <non-negative integer>}.');
      context.setLatency(ms);
      return ok({ ms });
    }
    case 'GET /clock':
      return ok(context.clock.describe());
    case 'POST /clock':
      setClock(context.clock, objectBody(bodyText));
      return ok(context.clock.describe());
    default: {
      const known = ['/state', '/reset', '/requests', '/faults', '/latency', '/clock'];
      if (known.includes(subpath.replace(/\/+$/, ''))) throw new ControlError(405, `Method ${method} is not supported on /_emulator${subpath}.`);
      throw new ControlError(404, `No control endpoint /_emulator${subpath}; see src/emulator/control.ts.`);
    }
  }
}

function setClock(clock: EmulatorClock, body: Record<string, unknown>): void {
  const now = body['now'];
  const offsetMs = body['offsetMs'];
  if (now !== undefined && offsetMs !== undefined) throw new ControlError(400, 'Give either now or offsetMs, not both.');
  if (now !== undefined) {
    const at = typeof now === 'number' ? now : typeof now === 'string' ? Date.parse(now) : Number.NaN;
    if (!Number.isFinite(at)) throw new ControlError(400, 'Clock "now" must be epoch milliseconds or an ISO date.');
    clock.freeze(at);
  } else if (offsetMs !== undefined) {
    if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs)) throw new ControlError(400, 'Clock "offsetMs" must be a number.');
    clock.shift(offsetMs);
  } else {
    clock.reset();
  }
}

function ok(body: unknown): ControlAnswer {
  return { status: 200, body };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ControlError(400, `The body is not valid JSON: ${(error as Error).message}`);
  }
}

function objectBody(text: string): Record<string, unknown> {
  const value = text.trim() === '' ? {} : parseJson(text);
  if (!isRecord(value)) throw new ControlError(400, 'The body must be a JSON object.');
  return value;
}
