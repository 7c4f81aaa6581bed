/**
 * End-to-end harness: the bundled emulator on a free loopback port, and the real engine
 * (config loading, API client, file state store) driven against it over HTTP.
 */
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator, type LoggedRequest, type FaultSpec, type EmulatorState } from '../../src/emulator/index.js';
import { applyAutomaticTransitions, routes as portalRoutes } from '../../src/emulator/route-table.js';
import type { Route } from '../../src/emulator/shared/types.js';
import { loadConfig, type LoadedConfig } from '../../src/engine/config/index.js';
import { applyConfig, type ApplyResult } from '../../src/engine/apply/apply.js';
import { planSession, type PreparedPlan } from '../../src/engine/plan/prepare.js';
import { saveInvitationFile } from '../../src/cli/invites.js';
import type { KindSet } from '../../src/engine/kind-set.js';
import { registry } from '../../src/registry.js';
import { afterEach, beforeEach } from 'vitest';
import { forwardingHandle } from './handle.js';
import { FileStateStore } from '../../src/state/index.js';

export const SAMPLE_ORG = 'examples/emulator/portal.yaml';

export interface TestPortal {
  emulator: RunningEmulator;
  url: string;
  dir: string;
  store: FileStateStore;
  client: ApiClient;
  /** Writes the files of a config (name -> YAML text; `portal.url` is filled in when absent) and loads it. */
  config(files: Record<string, string> | string): Promise<LoadedConfig>;
  plan(config: LoadedConfig, options?: { refresh?: boolean; targets?: string[] }): Promise<PreparedPlan>;
  apply(config: LoadedConfig, options?: { allowDestructive?: boolean; parallelism?: number }): Promise<ApplyResult>;
  /** Requests the emulator received (control API), optionally only writes. */
  requests(options?: { writesOnly?: boolean }): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  fault(spec: FaultSpec): Promise<void>;
  state(): Promise<EmulatorState>;
  replaceState(state: EmulatorState): Promise<void>;
  close(): Promise<void>;
}

export interface TestPortalOptions {
  data?: string | EmulatorState;
  token?: string;
  /** The kinds configs are loaded with; default: the registry. */
  kinds?: KindSet;
  /** Routes the emulator serves besides the portal's (a kind's operation not in src/emulator yet). */
  extraRoutes?: readonly Route[];
}

export async function startTestPortal(options: TestPortalOptions = {}): Promise<TestPortal> {
  const emulator = await startEmulator({
    port: 0,
    data: options.data ?? SAMPLE_ORG,
    ...(options.extraRoutes ? { routes: [...portalRoutes, ...options.extraRoutes], onStateReplaced: applyAutomaticTransitions } : {}),
  });
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-e2e-'));
  const store = new FileStateStore({ path: join(dir, 'portalctl.state.json') });
  const client = createApiClient({ url: emulator.url, credentials: { type: 'token', token: options.token ?? 'admin-token' }, baseDelayMs: 1, maxRetries: 3 });
  const control = async (path: string, init?: RequestInit): Promise<unknown> => {
    const response = await fetch(`${emulator.controlUrl}${path}`, init);
    const text = await response.text();
    return text ? JSON.parse(text) : undefined;
  };
  let configCount = 0;

  const portal: TestPortal = {
    emulator,
    url: emulator.url,
    dir,
    store,
    client,
    async config(files) {
      const configDir = join(dir, `config-${++configCount}`);
      await mkdir(configDir, { recursive: true });
      const entries = typeof files === 'string' ? { 'portalctl.yaml': files } : files;
      for (const [name, text] of Object.entries(entries)) {
        await mkdir(dirname(join(configDir, name)), { recursive: true });
        await writeFile(join(configDir, name), text);
      }
      return loadConfig([configDir], { cwd: configDir, env: { ...process.env, PORTAL_URL: emulator.url }, kinds: options.kinds ?? registry });
    },
    async plan(config, planOptions = {}) {
      return planSession({ config, url: emulator.url, store, ...(planOptions.refresh === false ? {} : { client }) }, planOptions.targets ?? []);
    },
    async apply(config, applyOptions = {}) {
      // The engine's apply use case, approved beforehand (as --auto-approve).
      return applyConfig({
        config,
        url: emulator.url,
        client,
        store,
        lockTimeoutMs: 0,
        targets: [],
        parallelism: applyOptions.parallelism ?? 4,
        allowDestructive: applyOptions.allowDestructive ?? false,
        saveInvitation: (filename, content) => saveInvitationFile(join(dir, 'invites'), filename, content),
      });
    },
    async requests(requestOptions = {}) {
      const log = (await control('/requests')) as { requests: LoggedRequest[] } | LoggedRequest[];
      const list = Array.isArray(log) ? log : log.requests;
      return requestOptions.writesOnly ? list.filter((entry) => entry.access === 'write') : list;
    },
    async clearRequests() {
      await control('/requests', { method: 'DELETE' });
    },
    async fault(spec) {
      await control('/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(spec) });
    },
    async state() {
      return (await control('/state')) as EmulatorState;
    },
    async replaceState(state) {
      await control('/state', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) });
    },
    async close() {
      await client.close();
      await emulator.close();
    },
  };
  return portal;
}

/** The header every test config starts with: the emulator's REST root comes from ${env:PORTAL_URL}. */
export const HEADER = 'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\n  version: "11.3"\n';

/** A test portal started afresh for every test of the enclosing suite; `restart` swaps it for one with other data. */
export interface PortalPerTest extends TestPortal {
  restart(options: TestPortalOptions): Promise<void>;
}

/**
 * Starts a test portal before each test of the enclosing suite (or file) and closes it after.
 * The returned handle forwards to the current test's portal, so tests use it like one portal.
 */
export function portalPerTest(options: TestPortalOptions = {}): PortalPerTest {
  let current: TestPortal | undefined;
  beforeEach(async () => {
    current = await startTestPortal(options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const active = (): TestPortal => {
    if (!current) throw new Error('the test portal runs only while a test runs');
    return current;
  };
  return forwardingHandle(active, {
    async restart(restartOptions: TestPortalOptions): Promise<void> {
      await active().close();
      current = undefined;
      current = await startTestPortal(restartOptions);
    },
  });
}
