/**
 * End-to-end harness for the real CLI binary: the bundled emulator in-process on a free
 * loopback port, and `node dist/bin/portalctl.js ...` spawned against it in a temp directory.
 * dist/ is built by test/global-setup.ts before every vitest run, so it is never stale.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { startEmulator, type EmulatorState, type FaultSpec, type GeneratedTls, type LoggedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { FileStateStore, parseState, type StateDocument } from '../../src/state/index.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(REPO_ROOT, 'dist/bin/portalctl.js');
export const SAMPLE_ORG = join(REPO_ROOT, 'examples/emulator/portal.yaml');

/** The config header used by test configs: the URL comes from --portal, which the harness always passes. */
export const CONFIG_HEADER = 'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\n  version: "11.3"\n';

/** A password rule and a role's description that differ from the sample organization (E8, E10). */
export const POLICY_AND_ROLE = `version: 1
portal:
  url: http://127.0.0.1:1/unused
organization:
  securityPolicy:
    minLength: 12
    historySize: 5
roles:
  - id: r7HkQ2
    name: Field Analyst
    description: Edits field data
`;

/** Three independent changes against the sample organization (E8, E3, E7). */
export const THREE_CHANGES = `${CONFIG_HEADER}
organization:
  securityPolicy:
    minLength: 12
items:
  - { id: 1105a1562c9c4dd98e557595bf8a2617, status: deprecated }
users:
  - username: jsmith
    tasks:
      - { id: a1b2c3, enabled: true }
`;

/** The `expected` line of a `portal/not-found` diagnostic, as the CLI prints it. */
export const NOT_FOUND_EXPECTED = 'expected: the id of an existing object: portalctl changes these, the API has no operation that creates one (portalctl import lists them)';

/** What `--format json` prints for a command that ended with diagnostics. */
export interface CliErrorDocument {
  exitCode: number;
  diagnostics: { code: string; message: string; address?: string; location?: { file: string; line: number; column: number } }[];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Which credentials the child gets in its environment; `none` gives it no PORTALCTL_* variable. */
export type CliCredentials =
  | { token: string }
  | { username: string; password: string }
  | { clientId: string; clientSecret: string }
  | 'none';

export interface RunOptions {
  credentials?: CliCredentials;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Replaces `--portal <emulator url>` (e.g. a dead port); `null` passes no --portal. */
  portal?: string | null;
  /** Replaces `--state <dir>/state.json`; `null` passes no --state (the default file, or PORTALCTL_STATE). */
  state?: string | null;
}

export interface CliPortal {
  emulator: RunningEmulator;
  url: string;
  /** The child's working directory. */
  dir: string;
  statePath: string;
  store: FileStateStore;
  /** Writes config files (name -> YAML) under `dir/<subdir>` and returns that directory. */
  writeConfig(files: Record<string, string> | string, subdir?: string): Promise<string>;
  /** Runs the CLI to completion. */
  run(args: readonly string[], options?: RunOptions): Promise<CliResult>;
  /** Starts the CLI and returns the child plus a promise of its result (for signal tests). */
  start(args: readonly string[], options?: RunOptions): { child: ChildProcess; done: Promise<CliResult>; output: () => CliResult };
  requests(options?: { writesOnly?: boolean }): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  fault(spec: FaultSpec): Promise<void>;
  clearFaults(): Promise<void>;
  latency(ms: number): Promise<void>;
  clock(body: { now?: number | string; offsetMs?: number }): Promise<void>;
  state(): Promise<EmulatorState>;
  replaceState(state: EmulatorState): Promise<void>;
  /** The recorded state file, parsed by the product (throws when it is not valid). */
  recorded(): Promise<StateDocument | undefined>;
  /** Stops the emulator (its port then has nothing listening); the directory stays. */
  close(): Promise<void>;
  /** Stops the emulator and removes the directory. */
  dispose(): Promise<void>;
}

function credentialEnv(credentials: CliCredentials): Record<string, string> {
  if (credentials === 'none') return {};
  if ('token' in credentials) return { PORTALCTL_TOKEN: credentials.token };
  if ('username' in credentials) return { PORTALCTL_USERNAME: credentials.username, PORTALCTL_PASSWORD: credentials.password };
  return { PORTALCTL_CLIENT_ID: credentials.clientId, PORTALCTL_CLIENT_SECRET: credentials.clientSecret };
}

/** The parent's environment without anything that could change the child's behaviour. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('PORTALCTL_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR') continue;
    env[key] = value;
  }
  return env;
}

/**
 * `tls`: the emulator serves HTTPS with that certificate; the harness's own control requests trust
 * its authority, the CLI's do not unless a test gives NODE_EXTRA_CA_CERTS.
 */
export async function startCliPortal(options: { data?: string | EmulatorState; tls?: GeneratedTls } = {}): Promise<CliPortal> {
  const emulator = await startEmulator({ port: 0, data: options.data ?? SAMPLE_ORG, ...(options.tls ? { tls: options.tls } : {}) });
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-cli-'));
  const statePath = join(dir, 'state.json');
  const trusted = options.tls ? new Agent({ connect: { ca: options.tls.authority } }) : undefined;
  let closed = false;
  const closeEmulator = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await emulator.close();
    await trusted?.close();
  };
  const control = async (path: string, init: UndiciRequestInit = {}): Promise<unknown> => {
    const response = await undiciFetch(`${emulator.controlUrl}${path}`, trusted ? { ...init, dispatcher: trusted } : init);
    const text = await response.text();
    if (!response.ok) throw new Error(`control ${path}: HTTP ${response.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  const post = (path: string, body: unknown, method = 'POST') =>
    control(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const argv = (args: readonly string[], runOptions: RunOptions): string[] => {
    // The CLI refuses a shared option its command does not read (show --state, state list --portal): given only where read.
    const command = args[0] ?? '';
    const readsPortal = !['show', 'state', 'schema', 'completion', 'emulator'].includes(command);
    const readsState = !['show', 'validate', 'config', 'import', 'schema', 'completion', 'emulator'].includes(command);
    const portal = runOptions.portal === undefined ? (readsPortal ? emulator.url : null) : runOptions.portal;
    const state = runOptions.state === undefined ? (readsState ? statePath : null) : runOptions.state;
    return [CLI, ...args, ...(portal === null ? [] : ['--portal', portal]), ...(state === null ? [] : ['--state', state])];
  };

  const start: CliPortal['start'] = (args, runOptions = {}) => {
    const child = spawn(process.execPath, argv(args, runOptions), {
      cwd: dir,
      env: { ...baseEnv(), PORTAL_URL: emulator.url, ...credentialEnv(runOptions.credentials ?? { token: 'admin-token' }), ...runOptions.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const done = new Promise<CliResult>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    return { child, done, output: () => ({ code: null, signal: null, stdout, stderr }) };
  };

  return {
    emulator,
    url: emulator.url,
    dir,
    statePath,
    store: new FileStateStore({ path: statePath }),
    async writeConfig(files, subdir = 'config') {
      const configDir = join(dir, subdir);
      await mkdir(configDir, { recursive: true });
      const entries = typeof files === 'string' ? { 'portalctl.yaml': files } : files;
      for (const [name, text] of Object.entries(entries)) {
        await mkdir(dirname(join(configDir, name)), { recursive: true });
        await writeFile(join(configDir, name), text);
      }
      return configDir;
    },
    run: (args, runOptions) => start(args, runOptions).done,
    start,
    async requests(requestOptions = {}) {
      const { requests } = (await control('/requests')) as { requests: LoggedRequest[] };
      return requestOptions.writesOnly ? requests.filter((entry) => entry.access === 'write') : requests;
    },
    clearRequests: async () => void (await control('/requests', { method: 'DELETE' })),
    fault: async (spec) => void (await post('/faults', spec)),
    clearFaults: async () => void (await control('/faults', { method: 'DELETE' })),
    latency: async (ms) => void (await post('/latency', { ms })),
    clock: async (body) => void (await post('/clock', body)),
    state: async () => (await control('/state')) as EmulatorState,
    replaceState: async (state) => void (await post('/state', state, 'PUT')),
    async recorded() {
      let text: string;
      try {
        text = await readFile(statePath, 'utf8');
      } catch {
        return undefined;
      }
      JSON.parse(text);
      return parseState(text, statePath);
    },
    close: closeEmulator,
    async dispose() {
      await closeEmulator();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `arrange` while the child is paused (SIGSTOP), so that what it sets up (a lock held, a
 * database stopped, a state file made unwritable) is in place before the child's next step,
 * however busy the machine; the child resumes (SIGCONT) afterwards, also when `arrange` throws.
 */
export async function whilePaused<T>(child: ChildProcess, arrange: () => Promise<T>): Promise<T> {
  child.kill('SIGSTOP');
  try {
    return await arrange();
  } finally {
    child.kill('SIGCONT');
  }
}

/**
 * Waits until `check` is true, polling: for an event seen from outside (a request in the
 * emulator's log, a lock taken, a file written). No time limit (the suite's hang guard is the
 * only one); when `running` (a child's `done`) settles first, the event can no longer come and
 * the wait fails at once with the child's output.
 */
export async function waitFor(check: () => Promise<boolean> | boolean, what: string, running?: Promise<CliResult>, pollMs = 10): Promise<void> {
  let ended: CliResult | undefined;
  void running?.then((result) => (ended = result));
  for (;;) {
    if (await check()) return;
    if (ended) throw new Error(`The process ended (code ${ended.code}, signal ${ended.signal}) before ${what}:\n${ended.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
