/**
 * A fleet for end-to-end tests: the three portals of examples/environments/portals/ (the same
 * objects under other ids), each on its own emulator, and a copy of examples/environments/ in a
 * temporary directory as `config/`, with the real CLI run there. The environments' URL and token
 * variables are set as the example names them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type LoggedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { baseEnv, CLI, REPO_ROOT, type CliResult } from './cli.js';

export const ENVIRONMENTS = ['development', 'test', 'production'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];
const PREFIX: Record<EnvironmentName, string> = { development: 'DEV', test: 'TEST', production: 'PROD' };
const TOKEN: Record<EnvironmentName, string> = { development: 'dev-token', test: 'test-token', production: 'prod-token' };
export const EXAMPLE = join(REPO_ROOT, 'examples', 'environments');

export interface FleetPortal {
  emulator: RunningEmulator;
  url: string;
  requests(options?: { writesOnly?: boolean }): Promise<LoggedRequest[]>;
  control(path: string, init?: RequestInit): Promise<unknown>;
  close(): Promise<void>;
}

export interface Fleet {
  dir: string;
  /** The config directory (a copy of examples/environments). */
  config: string;
  portals: Record<EnvironmentName, FleetPortal>;
  /** The variables the example's environments name (URLs and tokens). */
  env: Record<string, string>;
  run(args: readonly string[], options?: { env?: Record<string, string>; drop?: readonly string[] }): Promise<CliResult>;
  /** The CLI started, not awaited: for a signal sent while it runs. */
  start(args: readonly string[], options?: { env?: Record<string, string>; drop?: readonly string[] }): { child: ChildProcess; done: Promise<CliResult>; stderr(): string };
  dispose(): Promise<void>;
}

export async function startFleet(): Promise<Fleet> {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-fleet-'));
  const config = join(dir, 'config');
  await cp(EXAMPLE, config, { recursive: true, filter: (source) => !source.includes(`${join('environments', 'portals')}`) && !source.endsWith('.md') });
  const env: Record<string, string> = {};
  const startPortal = async (name: EnvironmentName): Promise<FleetPortal> => {
    const emulator = await startEmulator({ port: 0, data: join(EXAMPLE, 'portals', `${name}.yaml`) });
    env[`${PREFIX[name]}_PORTAL_URL`] = emulator.url;
    env[`${PREFIX[name]}_PORTAL_TOKEN`] = TOKEN[name];
    let closed = false;
    const control = async (path: string, init?: RequestInit): Promise<unknown> => {
      const response = await fetch(`${emulator.controlUrl}${path}`, init);
      const text = await response.text();
      if (!response.ok) throw new Error(`control ${path}: HTTP ${response.status} ${text}`);
      return text ? (JSON.parse(text) as unknown) : undefined;
    };
    return {
      emulator,
      url: emulator.url,
      control,
      async requests(options = {}) {
        const { requests } = (await control('/requests')) as { requests: LoggedRequest[] };
        return options.writesOnly ? requests.filter((entry) => entry.access === 'write') : requests;
      },
      async close() {
        if (closed) return;
        closed = true;
        await emulator.close();
      },
    };
  };
  const portals: Record<EnvironmentName, FleetPortal> = { development: await startPortal('development'), test: await startPortal('test'), production: await startPortal('production') };
  const start: Fleet['start'] = (args, options = {}) => {
    const childEnv: Record<string, string> = { ...baseEnv(), ...env, ...options.env };
    for (const name of options.drop ?? []) delete childEnv[name];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const done = new Promise<CliResult>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    return { child, done, stderr: () => stderr };
  };
  return {
    dir,
    config,
    portals,
    env,
    start,
    run: (args, options = {}) => start(args, options).done,
    async dispose() {
      await Promise.all(Object.values(portals).map((portal) => portal.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The state files in the fleet's directory (one per environment that recorded anything). */
export async function stateFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /^portalctl\..*\.json$/.test(name) && !name.endsWith('.backup')).sort();
}
