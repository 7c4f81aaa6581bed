/**
 * `portalctl emulator`: runs the bundled portal emulator in the foreground until SIGINT/SIGTERM.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { errorMessage, fileErrorReason, PortalctlError, UsageError } from '../../core/errors.js';
import { EmulatorDataError, generateTls, isWildcardHost, startEmulator, type RunningEmulator, type TlsMaterial } from '../../emulator/index.js';
import type { CommandIO } from '../io.js';

export interface EmulatorCommandOptions {
  port: string;
  host: string;
  data?: string;
  /** Serve HTTPS with a certificate signed by a test authority made for this run. */
  tls?: boolean;
  /** Serve HTTPS with this certificate and key instead (PEM files). */
  tlsCert?: string;
  tlsKey?: string;
  /** Where the generated authority's certificate is written (for NODE_EXTRA_CA_CERTS). */
  tlsCaOut?: string;
}

/** How the emulator serves HTTPS, when it does: the pair it serves and, when it made them, where the authority went. */
interface ServedTls {
  material: TlsMaterial;
  /** The authority's certificate file, when the emulator generated the pair. */
  authorityFile?: string;
}

/**
 * Starts the emulator, prints its URLs and accepted tokens, and waits for SIGINT/SIGTERM (or
 * `stop`, which lets tests end it) before closing. Returns 0.
 */
export async function emulatorCommand(opts: EmulatorCommandOptions, io: CommandIO, stop?: AbortSignal): Promise<number> {
  const port = parsePort(opts.port);
  const dataPath = opts.data !== undefined ? resolve(io.cwd, opts.data) : undefined;
  const tls = await servedTls(opts, io.cwd);
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator({ port, host: opts.host, ...(dataPath !== undefined ? { data: dataPath } : {}), ...(tls ? { tls: tls.material } : {}) });
  } catch (error) {
    throw describeStartFailure(error, opts);
  }
  if (!isLoopback(opts.host)) {
    io.stderr(
      `Warning: the emulator listens on ${opts.host}, reachable from other machines. Its control API ` +
        `${emulator.controlUrl}/ (state, faults, reset, clock) has no authentication: anyone who can reach ` +
        'this port can read and replace the whole organization, including its tokens.\n',
    );
  }
  // Output piped to a reader that went away (`| head`): stop quietly instead of dying on EPIPE.
  const stdoutClosed = new AbortController();
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') stdoutClosed.abort();
  };
  process.stdout.on('error', onStdoutError);
  // The listener stays: an EPIPE of the last write may arrive after this command returns.
  // Listen for the stop signals before saying "Press Ctrl+C", so an early Ctrl+C still stops cleanly.
  const stopped = waitForStop(stop, stdoutClosed.signal);
  io.stdout(describeRunning(emulator, dataPath, tls, isWildcardHost(opts.host) ? emulator.url.replace(/^(https?:\/\/)[^/]+:/, `$1${hostname()}:`) : undefined));
  await stopped;
  await emulator.close();
  if (!stdoutClosed.signal.aborted) io.stdout('Emulator stopped.\n');
  return 0;
}

/**
 * The certificate and key to serve: the given files (`--tls-cert` with `--tls-key`), or, with
 * `--tls` alone, a pair signed by a new test authority whose certificate is written to
 * `--tls-ca-out` for clients to trust. Undefined: plain HTTP.
 */
async function servedTls(opts: EmulatorCommandOptions, cwd: string): Promise<ServedTls | undefined> {
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together: the certificate (PEM) and its private key (PEM).');
  }
  // Each of these was ignored without a word: a CA file expected and never written.
  if (opts.tls && opts.tlsCert !== undefined) throw new UsageError('--tls makes a certificate and --tls-cert serves yours: give one or the other.');
  if (!opts.tls && opts.tlsCaOut !== undefined) {
    throw new UsageError(`--tls-ca-out is where --tls writes the certificate of the authority it makes${opts.tlsCert === undefined ? '; add --tls to serve HTTPS' : ': with --tls-cert, clients trust the authority that signed yours'}.`);
  }
  if (opts.tlsCert !== undefined && opts.tlsKey !== undefined) {
    const [cert, key] = await Promise.all([readPem(opts.tlsCert, cwd, '--tls-cert'), readPem(opts.tlsKey, cwd, '--tls-key')]);
    return { material: { cert, key } };
  }
  if (!opts.tls) return undefined;
  const generated = await generateTls({ hosts: servedNames(opts.host) });
  const authorityFile = resolve(cwd, opts.tlsCaOut ?? 'portalctl-emulator-ca.pem');
  // Each start writes a new authority over the last one's, never over another file named by mistake (a config).
  const existing = (await stat(authorityFile).catch(() => undefined))?.isFile() ? await readFile(authorityFile, 'utf8') : undefined;
  if (existing !== undefined && existing.trim() !== '' && !existing.trimStart().startsWith('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${authorityFile} exists and is not a certificate: --tls-ca-out replaces only the certificate an earlier start wrote. Choose another place.`);
  }
  try {
    await writeFile(authorityFile, generated.authority);
  } catch (error) {
    throw new UsageError(`Could not write the test authority's certificate to ${authorityFile}: ${fileErrorReason(error)}. Choose another place with --tls-ca-out.`, { cause: error });
  }
  return { material: { cert: generated.cert, key: generated.key }, authorityFile };
}

/** A wildcard address (0.0.0.0, ::) is every address of this machine: the certificate names them and the host name. */
function servedNames(host: string): string[] {
  if (!isWildcardHost(host)) return [host];
  return [hostname(), ...Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((address) => address.address))];
}

async function readPem(file: string, cwd: string, flag: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${file}: ${fileErrorReason(error)}.`, { cause: error });
  }
  if (!text.includes('-----BEGIN ')) throw new UsageError(`${flag} ${file} is not a PEM file (no "-----BEGIN" line).`);
  return text;
}

/** Loopback hosts keep the unauthenticated control API on this machine. */
export function isLoopback(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) || name === '::ffff:127.0.0.1';
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535 (0 picks a free port), not "${text}".`);
  }
  return port;
}

function describeStartFailure(error: unknown, opts: EmulatorCommandOptions): Error {
  if (error instanceof EmulatorDataError) {
    return new PortalctlError(`invalid emulator data file ${error.message}`, { cause: error });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new PortalctlError(`port ${opts.port} on ${opts.host} is already in use; choose another with --port (0 picks a free one).`, { cause: error });
  }
  if (typeof code === 'string' && code.startsWith('ERR_OSSL')) {
    return new PortalctlError(`cannot serve HTTPS with --tls-cert ${opts.tlsCert ?? ''} and --tls-key ${opts.tlsKey ?? ''}: ${errorMessage(error)} (is the key the certificate's own?)`, { cause: error });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new PortalctlError(`cannot listen on --host ${opts.host}: ${errorMessage(error)}`, { cause: error });
  }
  return error instanceof Error ? error : new PortalctlError(String(error));
}

/** The banner: what runs, where (`elsewhere`: the URL for other machines, when bound to all addresses), and its tokens. */
function describeRunning(emulator: RunningEmulator, dataPath: string | undefined, tls: ServedTls | undefined, elsewhere: string | undefined): string {
  const state = emulator.state();
  const now = emulator.clock.now();
  const width = Math.max(0, ...state.tokens.map((t) => t.token.length));
  const tokens = state.tokens.map((token) => {
    const notes = [
      token.expires !== undefined && token.expires <= now ? 'expired' : undefined,
      token.expires !== undefined && token.expires > now ? `expires ${new Date(token.expires).toISOString()}` : undefined,
      token.referer !== undefined ? `only with Referer ${token.referer}` : undefined,
    ].filter((note) => note !== undefined);
    return `    ${token.token.padEnd(width)}  ${token.username}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}\n`;
  });
  const { edition, version, apiVersion } = state.organization;
  const trust = tls?.authorityFile
    ? [`  TLS:          a certificate from a test authority made for this run; trust it with\n`, `                export NODE_EXTRA_CA_CERTS=${tls.authorityFile}\n`]
    : tls
      ? ['  TLS:          the certificate of --tls-cert\n']
      : [];
  return [
    `Portal emulator for "${state.organization.name}" (${state.organization.id}), ${dataPath ?? 'minimal organization (no --data)'}\n`,
    `  Plays:        ${edition} ${version} (REST API version ${apiVersion})\n`,
    `  REST URL:     ${emulator.url}\n`,
    ...(elsewhere ? [`  From others:  ${elsewhere}\n`] : []),
    ...trust,
    `  Control API:  ${emulator.controlUrl} (state, requests, faults, reset, latency, clock)\n`,
    `  Tokens (token, username):\n`,
    ...(tokens.length > 0 ? tokens : ['    none; POST /generateToken or /oauth2/token to get one\n']),
    'Press Ctrl+C to stop.\n',
  ].join('');
}

function waitForStop(...signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolvePromise) => {
    const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    const finish = (): void => {
      process.off('SIGINT', finish);
      process.off('SIGTERM', finish);
      for (const signal of present) signal.removeEventListener('abort', finish);
      resolvePromise();
    };
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
    if (present.some((signal) => signal.aborted)) finish();
    else for (const signal of present) signal.addEventListener('abort', finish);
  });
}
