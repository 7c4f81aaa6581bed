/**
 * The control API under `/_emulator/` (JSON in and out, no authentication, never logged), the
 * request log it exposes and the faults it injects.
 *
 *   GET    /_emulator/state      the whole state
 *   PUT    /_emulator/state      replace the whole state (validated like a data file)
 *   POST   /_emulator/reset      state back to the loaded data; clears log, faults, latency, clock
 *   GET    /_emulator/requests   the request log;  DELETE clears it
 *   POST   /_emulator/faults     add a fault (FaultSpec);  GET lists;  DELETE clears
 *   POST   /_emulator/faults/release   let requests held by `hold` faults go on (`{id}`: that
 *                                fault's only); answers `{released: n}`
 *   GET|POST /_emulator/latency  `{ms}`: every portal request is answered after ms
 *   GET|POST /_emulator/clock    `{now}` freezes the clock (epoch ms or ISO date), `{offsetMs}`
 *                                shifts it, `{}` returns to real time
 */
import { EmulatorDataError, parseEmulatorState } from './state/data-file.js';
import { isList, isRecord } from './state/json.js';
import type { EmulatorState } from './state/model.js';
import type { EmulatorClock, EmulatorStore } from './state/store.js';

export interface FaultSpec {
  /**
   * Substring of the request path, or a glob with `*` matched against the whole path (relative to
   * the REST root, such as `/portals/self`; the leading `/` may be left out); case is ignored, as
   * the portal's routes ignore it.
   */
  path: string;
  method?: 'GET' | 'POST';
  /** Only requests whose query or form parameters include these values (e.g. `{"start": "101"}`). */
  params?: Record<string, string>;
  /** How many matching requests the fault applies to; 0 = every one. Default 1. */
  count?: number;
  /** Answer with this HTTP status (and `body`, `retryAfter`). */
  status?: number;
  /** Body of a status fault: JSON when it parses as JSON, HTML otherwise. */
  body?: string;
  /** Retry-After header, in seconds. */
  retryAfter?: number;
  /**
   * Answer with the portal's error envelope (HTTP 200 unless `status` is given), exactly as given:
   * `messageCode` only when given; `details` an array, a string or null as given, `[]` when absent.
   */
  error?: { code: number; messageCode?: string; message: string; details?: string[] | string | null };
  /** Wait this long first; alone, the request then proceeds normally. */
  delayMs?: number;
  /** Hold the request until POST /_emulator/faults/release; alone, it then proceeds normally. */
  hold?: boolean;
  /** Destroy the connection without answering. */
  drop?: boolean;
  /**
   * Perform the request first (a write changes the state), then answer with the fault instead
   * (`drop`, `status` or `error`): the write was performed but its answer was lost.
   */
  afterRoute?: boolean;
  /**
   * Perform the request, then replace these top-level fields of its JSON answer (null removes
   * one): a list page without `nextStart`, with `nextStart: -1` early, with another `total`.
   */
  rewrite?: Record<string, unknown>;
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

/** Node's longest timer (about 24.8 days): a longer wait fires at once, with only a warning on stderr. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;
/** The times a JavaScript Date holds (±100,000,000 days from 1970). */
const LATEST_TIME_MS = 8.64e15;

export function parseFaultSpec(input: unknown): FaultSpec {
  if (!isRecord(input)) throw new ControlError(400, 'A fault is a JSON object.');
  const raw = input;
  const allowed = ['path', 'method', 'params', 'count', 'status', 'body', 'retryAfter', 'error', 'delayMs', 'hold', 'drop', 'afterRoute', 'rewrite'];
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
  const flag = (field: string): boolean => {
    if (raw[field] === undefined) return false;
    return raw[field] === true ? true : bad(field, 'true');
  };
  const path = raw['path'];
  const spec: FaultSpec = { path: typeof path === 'string' && path !== '' ? path : bad('path', 'a non-empty string') };
  const method = raw['method'];
  if (method !== undefined) spec.method = method === 'GET' || method === 'POST' ? method : bad('method', '"GET" or "POST"');
  if (raw['params'] !== undefined) spec.params = stringRecord(raw['params']) ?? bad('params', 'an object of strings');
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
  if (delayMs !== undefined) spec.delayMs = delayMs <= LONGEST_WAIT_MS ? delayMs : bad('delayMs', `at most ${LONGEST_WAIT_MS} (about 24 days)`);
  if (flag('hold')) spec.hold = true;
  if (flag('drop')) spec.drop = true;
  if (flag('afterRoute')) spec.afterRoute = true;
  if (raw['error'] !== undefined) spec.error = parseFaultError(raw['error'], bad);
  if (raw['rewrite'] !== undefined) spec.rewrite = isRecord(raw['rewrite']) ? raw['rewrite'] : bad('rewrite', 'an object of answer fields');
  const answers = spec.status !== undefined || spec.error !== undefined || spec.drop === true;
  if (!answers && spec.delayMs === undefined && !spec.hold && spec.rewrite === undefined) {
    throw new ControlError(400, 'A fault needs at least one of status, error, drop, delayMs, hold or rewrite.');
  }
  if (spec.afterRoute && !answers) throw new ControlError(400, 'An afterRoute fault needs status, error or drop: what answers in place of the lost answer.');
  if (spec.rewrite !== undefined && answers) throw new ControlError(400, 'A rewrite fault changes the route\'s own answer; it cannot also answer with status, error or drop.');
  return spec;
}

function stringRecord(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') return undefined;
    out[key] = entry;
  }
  return out;
}

function parseFaultError(value: unknown, bad: (field: string, expected: string) => never): NonNullable<FaultSpec['error']> {
  if (!isRecord(value)) return bad('error', 'an object {code, messageCode?, message, details?}');
  const error = value;
  const code = error['code'];
  const message = error['message'];
  const messageCode = error['messageCode'];
  const details = error['details'];
  if (typeof code !== 'number' || !Number.isInteger(code)) return bad('error.code', 'an integer');
  if (typeof message !== 'string') return bad('error.message', 'a string');
  if (messageCode !== undefined && typeof messageCode !== 'string') return bad('error.messageCode', 'a string');
  const parsedDetails = details === undefined || details === null || typeof details === 'string' ? details : stringArray(details);
  if (parsedDetails === false) return bad('error.details', 'an array of strings, a string or null');
  return {
    code,
    message,
    ...(typeof messageCode === 'string' ? { messageCode } : {}),
    ...(parsedDetails !== undefined ? { details: parsedDetails } : {}),
  };
}

function stringArray(value: unknown): string[] | false {
  if (!isList(value)) return false;
  const out: string[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string') return false;
    out.push(entry);
  }
  return out;
}

/** A fault's glob: `portals/*` as `/portals/*` (a glob that never matched was taken without a word). */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${/^[/*]/.test(glob) ? '' : '/'}${escaped.join('.*')}$`, 'i');
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
  take(method: string, paths: readonly string[], params: Readonly<Record<string, string>> = {}): Fault | undefined {
    const fault = this.faults.find(
      (candidate) =>
        (candidate.remaining === null || candidate.remaining > 0) &&
        (candidate.method === undefined || candidate.method === method) &&
        Object.entries(candidate.params ?? {}).every(([name, value]) => params[name] === value) &&
        paths.some((path) => (candidate.path.includes('*') ? globToRegExp(candidate.path).test(path) : path.toLowerCase().includes(candidate.path.toLowerCase()))),
    );
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.remaining !== null) fault.remaining -= 1;
    return { ...fault };
  }
}

/** Requests held by `hold` faults, each waiting for a release (or the server's close). */
export class HeldRequests {
  private readonly waiting: { faultId: number; release: () => void }[] = [];

  wait(faultId: number): Promise<void> {
    return new Promise((resolve) => this.waiting.push({ faultId, release: resolve }));
  }

  /** Lets the requests of one fault (or all) go on; how many were released. */
  release(faultId?: number): number {
    const released = this.waiting.filter((entry) => faultId === undefined || entry.faultId === faultId);
    for (const entry of released) {
      this.waiting.splice(this.waiting.indexOf(entry), 1);
      entry.release();
    }
    return released.length;
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

/** Request fields that carry a secret; the request log shows them as "***". */
const SECRET_FIELDS = ['token', 'access_token', 'refresh_token', 'password', 'client_secret', 'code'] as const;
const SECRET_JSON_FIELD = new RegExp(`("(?:${SECRET_FIELDS.join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
/** A multipart part of that name: its headers kept, its value (up to the next boundary line) hidden. */
const SECRET_MULTIPART_FIELD = new RegExp(`(content-disposition:[^\\r\\n]*;\\s*name="(?:${SECRET_FIELDS.join('|')})"[^\\r\\n]*\\r\\n(?:[^\\r\\n]+\\r\\n)*\\r\\n)[\\s\\S]*?(?=\\r\\n--|$)`, 'gi');

/** Hides secret values in a form body (`token=...`), a multipart body and JSON text (`"token": "..."`). */
export function redactTokens(body: string): string {
  const cut = body.length > LOGGED_BODY_LIMIT ? `${body.slice(0, LOGGED_BODY_LIMIT)}...[cut]` : body;
  return redactFormFields(cut).replace(SECRET_MULTIPART_FIELD, '$1***').replace(SECRET_JSON_FIELD, '$1"***"');
}

/**
 * Each `name=value` pair whose name, decoded as the form is read (`%74oken` is `token`), is a
 * secret field, with its value as `***`: the name as written would let an encoded one through.
 */
function redactFormFields(body: string): string {
  return body
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      const written = pair.slice(0, equals);
      // Decoded only when there is something to decode: every logged request comes this way.
      const [name = ''] = /[%+]/.test(written) ? new URLSearchParams(`${written}=`).keys() : [written];
      return (SECRET_FIELDS as readonly string[]).includes(name) ? `${written}=***` : pair;
    })
    .join('&');
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
  held: HeldRequests;
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
      context.held.release();
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
    case 'POST /faults/release': {
      const id = objectBody(bodyText)['id'];
      if (id !== undefined && (typeof id !== 'number' || !Number.isInteger(id))) throw new ControlError(400, 'Release is {} or {"id": <fault id>}.');
      return ok({ released: context.held.release(id) });
    }
    case 'GET /latency':
      return ok({ ms: context.getLatency() });
    case 'POST /latency': {
      const body = objectBody(bodyText);
      const ms = body['ms'];
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > LONGEST_WAIT_MS) throw new ControlError(400, `Latency is {"ms": <integer from 0 to ${LONGEST_WAIT_MS}>}.`);
      context.setLatency(ms);
      return ok({ ms });
    }
    case 'GET /clock':
      return ok(context.clock.describe());
    case 'POST /clock':
      setClock(context.clock, objectBody(bodyText));
      return ok(context.clock.describe());
    default: {
      const known = ['/state', '/reset', '/requests', '/faults', '/faults/release', '/latency', '/clock'];
      if (known.includes(subpath.replace(/\/+$/, ''))) throw new ControlError(405, `Method ${method} is not supported on /_emulator${subpath}.`);
      // The package ships no sources: the answer names the endpoints itself.
      throw new ControlError(404, `No control endpoint /_emulator${subpath}; the endpoints are ${known.map((path) => `/_emulator${path}`).join(', ')} (README, "The emulator").`);
    }
  }
}

function setClock(clock: EmulatorClock, body: Record<string, unknown>): void {
  const now = body['now'];
  const offsetMs = body['offsetMs'];
  if (now !== undefined && offsetMs !== undefined) throw new ControlError(400, 'Give either now or offsetMs, not both.');
  if (now !== undefined) {
    const at = typeof now === 'number' ? now : typeof now === 'string' ? Date.parse(now) : Number.NaN;
    if (!(Math.abs(at) <= LATEST_TIME_MS)) throw new ControlError(400, `Clock "now" must be epoch milliseconds (within ±${LATEST_TIME_MS}) or an ISO date.`);
    clock.freeze(at);
  } else if (offsetMs !== undefined) {
    if (typeof offsetMs !== 'number' || !(Math.abs(Date.now() + offsetMs) <= LATEST_TIME_MS)) {
      throw new ControlError(400, `Clock "offsetMs" must be a number that keeps the time within ±${LATEST_TIME_MS} ms of 1970.`);
    }
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
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    throw new ControlError(400, `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function objectBody(text: string): Record<string, unknown> {
  const value = text.trim() === '' ? {} : parseJson(text);
  if (!isRecord(value)) throw new ControlError(400, 'The body must be a JSON object.');
  return value;
}
