/**
 * Transport: one HTTP attempt over a keep-alive undici Agent, with a per-attempt timeout
 * covering the answer's headers and body, and the classification of attempts that got no answer.
 */
import type { Dispatcher } from 'undici';
import { ProxyUrlError, type NetworkFailure } from './errors.js';
import { isLoopbackHost, shownUrl } from './url.js';
import { isIP } from 'node:net';

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/**
 * undici is loaded when a transport is made (only commands that reach the network make one), not
 * with this module, so commands that never do (`plan --refresh=false`) do not load it. Made
 * early, its loading overlaps the lock and state reads before the first request.
 */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Attempt {
  method: 'GET' | 'POST';
  target: URL;
  headers: Record<string, string>;
  body?: string;
  /** Aborted: the attempt is abandoned (AttemptStopped), its answer no longer wanted. */
  stop?: AbortSignal;
}

/**
 * The proxy between portalctl and the portal, read from the environment as curl reads it:
 * `https_proxy`/`HTTPS_PROXY` for an https portal, `http_proxy`/`HTTP_PROXY` for an http one
 * (the lower-case name first); none when `no_proxy`/`NO_PROXY` names the portal's host (`*`, a
 * host and its subdomains, `.domain`, `*.domain`, each with an optional `:port`), and none for a
 * loopback portal (the emulator, a tunnel). undici's EnvHttpProxyAgent applies the same rules,
 * but does not say which it chose, and messages name the proxy a failed request went through.
 * The URL is taken as curl takes it (proxyUrl); `variable` is the name that set it, as written.
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv, url: URL): { url: string; variable: string } | undefined {
  if (isLoopbackHost(url.hostname)) return undefined;
  const named = (name: string): string => (env[name] !== undefined ? name : name.toUpperCase());
  const read = (name: string): string => env[named(name)] ?? '';
  const variable = named(url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  const proxy = read(variable);
  if (proxy === '') return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const excluded = read('no_proxy')
    .split(/[,\s]/)
    .filter((entry) => entry !== '')
    .some((entry) => {
      if (entry === '*') return true;
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      const domain = name.replace(/^\*?\./, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
      return (entryPort === undefined || Number(entryPort) === port) && (host === domain || host.endsWith(`.${domain}`));
    });
  return excluded ? undefined : { url: proxyUrl(proxy, variable), variable };
}

/** Schemes of the proxies portalctl goes through: an HTTP proxy (CONNECT tunnels) or SOCKS5. */
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:']);

/**
 * A proxy URL as curl reads one: without a scheme, http:// (`proxy.example.com:3128` is usual in
 * these variables); `socks5h://` and `socks://` as `socks5://`, which undici's SOCKS5 client is
 * (it lets the proxy resolve host names, as socks5h asks). Anything else is said at once, naming
 * the variable: undici's own error ("Invalid URL protocol") came only after five retries.
 */
function proxyUrl(raw: string, variable: string): string {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    throw new ProxyUrlError(`${variable} is not a proxy URL ("${shownUrl(text)}"); expected one such as http://proxy.example.com:3128.`);
  }
  if (parsed.protocol === 'socks5h:' || parsed.protocol === 'socks:') return `socks5:${withScheme.slice(parsed.protocol.length)}`;
  if (!PROXY_SCHEMES.has(parsed.protocol)) {
    throw new ProxyUrlError(`${variable} names a ${parsed.protocol}// proxy (${parsed.host}); portalctl goes through an http://, https:// or socks5:// proxy.`);
  }
  return withScheme;
}

/** The proxy as messages name it: its host and port, never a user name or password in its URL. */
export function proxyShown(proxy: string): string {
  try {
    return new URL(proxy).host;
  } catch {
    return 'the proxy set in the environment';
  }
}

/** The attempt was abandoned: its `stop` signal was aborted before the answer came. */
export class AttemptStopped extends Error {
  constructor(options?: { cause?: unknown }) {
    super('attempt abandoned', options);
    this.name = 'AttemptStopped';
  }
}

/** The attempt took longer than the per-attempt timeout. */
export class AttemptTimeout extends Error {
  constructor(options?: { cause?: unknown }) {
    super('attempt timed out', options);
    this.name = 'AttemptTimeout';
  }
}

export class Transport {
  /** Created with the first request (see loadUndici). */
  private agent: Promise<Dispatcher> | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    readonly timeoutMs: number,
    /** The proxy's URL (proxyFromEnv), when the portal is reached through one. */
    readonly proxy?: string,
  ) {
    // A failure to load is reported by the first send, which awaits the same promise.
    loadUndici().catch(() => undefined);
  }

  async send(attempt: Attempt): Promise<RawAnswer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), this.timeoutMs);
    const { stop } = attempt;
    const abandon = (): void => controller.abort(new AttemptStopped());
    if (stop?.aborted) abandon();
    else stop?.addEventListener('abort', abandon, { once: true });
    try {
      // The Agent's own request (undici's Dispatcher.request): the bundle carries only the Agent
      // and the ProxyAgent and what they use, not the rest of undici (scripts/bundle.mjs).
      const dispatcher = await this.dispatcher();
      const response = await dispatcher.request({
        origin: attempt.target.origin,
        path: `${attempt.target.pathname}${attempt.target.search}`,
        method: attempt.method,
        headers: attempt.headers,
        body: attempt.body,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const content = Buffer.from(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: response.headers, body: content };
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason instanceof AttemptStopped ? new AttemptStopped({ cause: error }) : new AttemptTimeout({ cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', abandon);
    }
  }

  /** Closes the connections, once: undici's Agent throws when closed again (a send after close still fails, as undici's does). */
  async close(): Promise<void> {
    this.closing ??= this.agent?.then((agent) => agent.close());
    await this.closing;
  }

  private dispatcher(): Promise<Dispatcher> {
    const options = { keepAliveTimeout: 10_000, connect: { timeout: this.timeoutMs } };
    return (this.agent ??= loadUndici().then(({ Agent, ProxyAgent, Socks5ProxyAgent }) => {
      const proxy = this.proxy;
      if (proxy === undefined) return new Agent(options);
      // undici's SOCKS5 agent itself (a ProxyAgent makes one per origin, later, on dispatch).
      if (proxy.startsWith('socks5:')) return withoutExperimentalSocksWarning(() => new Socks5ProxyAgent(proxy));
      return new ProxyAgent({ ...options, uri: proxy });
    }));
  }
}

/**
 * undici says once per process, on stderr, that its SOCKS5 support is experimental: a line in
 * every run's output that its user can do nothing about. portalctl tests the part it relies on
 * (test/api/proxy.test.ts, test/e2e/proxy.test.ts) and the README says whose support it is; that
 * one warning is not passed on, any other is.
 */
function withoutExperimentalSocksWarning<T>(make: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).startsWith('SOCKS5 proxy support is experimental')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = emit;
  }
}

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function classifyNetworkFailure(error: unknown): NetworkFailure {
  if (error instanceof AttemptTimeout) return 'timeout';
  const codes = errorCodes(error);
  if (codes.some((code) => UNREACHABLE_CODES.has(code))) return 'unreachable';
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout';
  return 'connection';
}

/** Certificate verification failures (OpenSSL's codes, as Node reports them), by what the user can do about them. */
const UNTRUSTED_ISSUER_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'CERT_REJECTED',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
]);
const WRONG_NAME_CODES = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
const OUT_OF_DATE_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

export type CertificateProblem = { code: string; kind: 'untrusted-issuer' | 'wrong-name' | 'out-of-date' | 'revoked' };

/** The certificate verification failure behind a failed attempt, if that is what it was. */
export function certificateProblem(error: unknown): CertificateProblem | undefined {
  for (const code of errorCodes(error)) {
    if (UNTRUSTED_ISSUER_CODES.has(code)) return { code, kind: 'untrusted-issuer' };
    if (WRONG_NAME_CODES.has(code)) return { code, kind: 'wrong-name' };
    if (OUT_OF_DATE_CODES.has(code)) return { code, kind: 'out-of-date' };
    if (code === 'CERT_REVOKED') return { code, kind: 'revoked' };
  }
  return undefined;
}

/** A name that does not resolve will not resolve on the next try either. */
export function nameDoesNotResolve(error: unknown): boolean {
  return errorCodes(error).includes('ENOTFOUND');
}

/** TLS spoken to a server that answers plain HTTP on that port (an https:// URL for an http:// port). */
export function plainHttpAnswered(error: unknown): boolean {
  return errorCodes(error).includes('ERR_SSL_WRONG_VERSION_NUMBER');
}

/**
 * The server closed the connection without a byte of answer (undici's SocketError tells what it
 * read): what a TLS port does with a plain http:// request, and a server that drops it for any other reason.
 */
export function closedWithoutAnswer(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
    const socket = (current as { socket?: unknown }).socket;
    if (typeof socket === 'object' && socket !== null && (socket as { bytesRead?: unknown }).bytesRead === 0) return true;
  }
  return false;
}

/**
 * Whether `url`'s host and port speak TLS: a handshake only (nothing is sent over it), verified as
 * every connection is; a certificate refused still means TLS. Asked once, after an http:// URL's
 * requests were all closed without an answer, to tell that port from one that drops connections.
 */
export async function speaksTls(url: URL, timeoutMs: number): Promise<boolean> {
  const { connect } = await import('node:tls');
  const port = Number(url.port || 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port, ...(isIP(host) ? {} : { servername: host }) });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', (error) => done(certificateProblem(error) !== undefined));
  });
}

/** How a proxy refused to open the way to the portal, and what it wants: a sign-in, or not this host. */
export type ProxyRefusal = { reason: 'sign-in' | 'not-allowed' | 'other' } & ({ status: number } | { socks: string });

/**
 * A proxy's refusal to open the way to the portal. undici's ProxyAgent says the HTTP status only
 * in its error's message ("Proxy response (407) !== 200 when HTTP Tunneling", in
 * lib/dispatcher/proxy-agent.js); its SOCKS5 client (lib/core/socks5-client.js) in error codes: a
 * refused sign-in, and RFC 1928's reply 2, "connection not allowed by ruleset". Nothing reached
 * the portal, and a retry meets the same answer.
 */
export function proxyRefusal(error: unknown): ProxyRefusal | undefined {
  for (let current: unknown = error, depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
    const status = /Proxy response \((\d{3})\) !== 200|Proxy Authentication Required \((407)\)/.exec(current.message);
    if (status) {
      const code = Number(status[1] ?? status[2]);
      return { status: code, reason: code === 407 ? 'sign-in' : code === 403 ? 'not-allowed' : 'other' };
    }
    const code = (current as NodeJS.ErrnoException).code;
    if (code === 'UND_ERR_SOCKS5_AUTH_FAILED' || code === 'UND_ERR_SOCKS5_AUTH_REJECTED') return { socks: current.message, reason: 'sign-in' };
    if (code === 'UND_ERR_SOCKS5_REPLY_2') return { socks: current.message, reason: 'not-allowed' };
  }
  return undefined;
}

export function describeCause(error: unknown): string {
  const codes = errorCodes(error);
  if (codes.length > 0) return codes.join(' / ');
  return error instanceof Error ? error.message : String(error);
}
