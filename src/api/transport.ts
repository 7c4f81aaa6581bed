/**
 * Transport: one HTTP attempt over a keep-alive undici Agent, with a per-attempt timeout
 * covering the answer's headers and body, and the classification of attempts that got no answer.
 */
import type { Dispatcher } from 'undici';
import type { NetworkFailure } from './errors.js';
import { isLoopbackHost } from './url.js';

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
}

/**
 * The HTTP(S) proxy between portalctl and the portal, read from the environment as curl reads
 * it: `https_proxy`/`HTTPS_PROXY` for an https portal, `http_proxy`/`HTTP_PROXY` for an http one
 * (the lower-case name first); none when `no_proxy`/`NO_PROXY` names the portal's host (`*`, a
 * host and its subdomains, `.domain`, `*.domain`, each with an optional `:port`), and none for a
 * loopback portal (the emulator, a tunnel). undici's EnvHttpProxyAgent applies the same rules,
 * but does not say which it chose, and messages name the proxy a failed request went through.
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv, url: URL): string | undefined {
  if (isLoopbackHost(url.hostname)) return undefined;
  const read = (name: string): string => env[name] ?? env[name.toUpperCase()] ?? '';
  const proxy = read(url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
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
  return excluded ? undefined : proxy;
}

/** The proxy as messages name it: its host and port, never a user name or password in its URL. */
export function proxyShown(proxy: string): string {
  try {
    return new URL(proxy).host;
  } catch {
    return 'the proxy set in the environment';
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
      if (controller.signal.aborted) throw new AttemptTimeout({ cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connections, once: undici's Agent throws when closed again (a send after close still fails, as undici's does). */
  async close(): Promise<void> {
    this.closing ??= this.agent?.then((agent) => agent.close());
    await this.closing;
  }

  private dispatcher(): Promise<Dispatcher> {
    const options = { keepAliveTimeout: 10_000, connect: { timeout: this.timeoutMs } };
    return (this.agent ??= loadUndici().then(({ Agent, ProxyAgent }) => (this.proxy ? new ProxyAgent({ ...options, uri: this.proxy }) : new Agent(options))));
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
 * The HTTP status with which a proxy refused to open the tunnel to the portal: undici's ProxyAgent
 * says it only in its error's message ("Proxy response (407) !== 200 when HTTP Tunneling", in
 * lib/dispatcher/proxy-agent.js). Nothing reached the portal, and a retry meets the same answer.
 */
export function proxyRefusal(error: unknown): number | undefined {
  for (let current: unknown = error, depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
    const status = /Proxy response \((\d{3})\) !== 200|Proxy Authentication Required \((407)\)/.exec(current.message);
    if (status) return Number(status[1] ?? status[2]);
  }
  return undefined;
}

export function describeCause(error: unknown): string {
  const codes = errorCodes(error);
  if (codes.length > 0) return codes.join(' / ');
  return error instanceof Error ? error.message : String(error);
}
