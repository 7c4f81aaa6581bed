/** What plan, apply, drift and state share: the config, the portal URL, credentials, the state store. */
import { createApiClient, credentialsFromVariables, describeRetryWait, normalizeBaseUrl, proxyFromEnv, proxyShown, type ApiClient } from '../../api/index.js';
import { ConfigError, redactDiagnostics, throwIfInvalid, validateConfig, type Environment, type LoadedConfig } from '../../engine/config/index.js';
import type { PortalSession } from '../../engine/plan/prepare.js';
import { formatLocation, type Diagnostic } from '../../core/diagnostics.js';
import { UsageError } from '../../core/errors.js';
import { terminalText } from '../../engine/render/escape.js';
import { environmentFile, isPostgresUrl, openStateStore, redactPostgresUrlsIn, redactPostgresWord, stateSpec, type StateStore } from '../../state/index.js';
import { chooseEnvironmentMessage, type EnvironmentOptions } from '../environments.js';
import { requestTimeoutMs } from '../flag-values.js';
import type { CommandIO } from '../io.js';
import { readConfig } from '../read-config.js';
import { version } from '../version.js';

/** Options every command that talks to a portal or the state accepts (DESIGN.md "Shared options"). */
export interface SharedOptions extends EnvironmentOptions {
  portal?: string;
  state?: string;
  stateName?: string;
  lockTimeout?: string;
  requestTimeout?: string;
  insecure?: boolean;
  verbose?: boolean;
}

/**
 * The config (with `environment`'s layers; `--portal` in place of its portal.url), or the errors
 * that make it unreadable (files, YAML, references, schema) before anything else happens. A config
 * that declares environments needs one chosen (`oneEnvironment`: the command runs in one only,
 * as chooseEnvironmentMessage says).
 */
export async function loadDesired(
  paths: readonly string[],
  io: CommandIO,
  { environment, portal, oneEnvironment }: { environment?: string | undefined; portal?: string | undefined; oneEnvironment?: string },
): Promise<LoadedConfig> {
  const config = await readConfig(paths, io, { environment, portal });
  if (environment === undefined && config.environments.length > 0) throw new UsageError(chooseEnvironmentMessage(config.environments, oneEnvironment));
  // On a loading error, report every problem at once, rule checks included, as validate does.
  if (config.diagnostics.some((d) => d.severity === 'error')) throwIfInvalid(validateConfig(config));
  return config;
}

/** `--portal` wins over `portal.url`; plain http is refused off loopback unless --insecure. */
export function portalUrl(config: LoadedConfig | undefined, options: SharedOptions): string {
  const url = options.portal ?? config?.portal.url;
  if (!url) {
    // Without a config (import, unless PATH or --env names one) there is no portal.url to set.
    throw new UsageError(
      config
        ? 'No portal URL: set portal.url in the config or pass --portal URL.'
        : "No portal URL: pass --portal URL, the portal's REST root (e.g. https://host/portal/sharing/rest), or the config whose portal.url to read (portalctl import portal/).",
    );
  }
  return normalizeBaseUrl(url, Boolean(options.insecure)).toString().replace(/\/$/, '');
}

/**
 * Where an environment's state is: in a database, the environment's state name (unless
 * `--state-name`); in a file, the file named for it (README "Environments").
 */
export function environmentStateOptions(options: SharedOptions, io: Pick<CommandIO, 'env'>, environment: Environment | undefined): Pick<SharedOptions, 'state' | 'stateName'> {
  if (!environment) return { ...(options.state === undefined ? {} : { state: options.state }), ...(options.stateName === undefined ? {} : { stateName: options.stateName }) };
  const spec = stateSpec(options.state, io.env);
  if (isPostgresUrl(spec)) return { state: spec, stateName: options.stateName ?? environment.state };
  if (options.stateName !== undefined) throw new UsageError(`--state-name applies to a PostgreSQL state; a file state of environment ${environment.name} is ${environmentFile(spec, environment.state)}.`);
  return { state: environmentFile(spec, environment.state) };
}

/** `--state` (file or postgres:// URL; else PORTALCTL_STATE, else the default file) and `--state-name`, or the environment's state. */
export function stateStore(options: SharedOptions, io: CommandIO, environment?: Environment): StateStore {
  const where = environmentStateOptions(options, io, environment);
  const store = openStateStore(where.state, {
    name: where.stateName ?? 'default',
    cwd: io.cwd,
    env: io.env,
    command: commandLine(),
    // A lock taken over, or history set aside, is always said; waiting for a lock is progress, shown on a terminal or with --verbose.
    onNotice: (message, kind) => {
      if (kind !== 'waiting' || io.isTTY || options.verbose) io.stderr(`${message}\n`);
    },
  });
  // An interrupt that ends the command releases the locks it holds.
  return io.guardLocks ? io.guardLocks(store) : store;
}

/** This run's command line as the state's history and lock record show it, never with a password. */
export function commandLine(): string {
  // Each argument on its own: a password holding a space is one argument, two words once joined.
  return ['portalctl', ...process.argv.slice(2).map((arg) => (isPostgresUrl(arg) ? redactPostgresWord(arg) : redactPostgresUrlsIn(arg)))].join(' ').slice(0, 500);
}

/**
 * The API client; an environment's credentials come from the variables it names (else
 * PORTALCTL_*). Its errors show the config's referenced values as their references, whichever
 * request the portal quoted one in (a read as well as a write); `stopReading` aborted stops its
 * reads (ApiClientOptions).
 */
export function connect(url: string, options: SharedOptions, io: CommandIO, config?: Pick<LoadedConfig, 'environment' | 'redact'>, stopReading?: AbortSignal): ApiClient {
  const environment = config?.environment;
  const proxy = proxyFromEnv(io.env, new URL(url));
  if (proxy && options.verbose) io.stderr(`Reaching ${url} through the proxy ${proxyShown(proxy.url)} (from the environment's ${proxy.variable}).\n`);
  return createApiClient({
    url,
    credentials: credentialsFromVariables(environment?.credentials ?? {}, io.env, `Environment ${environment?.name ?? ''}`),
    ...(proxy ? { proxy: proxy.url } : {}),
    ...(config ? { conceal: config.redact.concealed } : {}),
    timeoutMs: requestTimeoutMs(options.requestTimeout),
    ...(stopReading ? { stopReading } : {}),
    ...(options.insecure ? { insecure: true } : {}),
    // A wait the portal asked for (Retry-After) is said while it lasts; backoff waits only with --verbose.
    ...(io.isTTY || options.verbose
      ? { onRetryWait: (wait) => (wait.retryAfter || options.verbose) && io.stderr(`${describeRetryWait(wait)}\n`) }
      : {}),
    ...(options.verbose
      ? {
          onRequest: (event) =>
            io.stderr(`${event.method} ${event.path} ${event.status ?? event.failure ?? ''} ${event.ms}ms${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}\n`),
        }
      : {}),
  });
}

export function printWarnings(warnings: readonly Diagnostic[], io: CommandIO): void {
  for (const warning of warnings) {
    const where = warning.location ? `${formatLocation(warning.location)}: ` : '';
    io.stderr(`${terminalText(where)}warning: ${terminalText(warning.message)}${warning.address ? ` [${terminalText(warning.address)}]` : ''}\n`);
  }
}

/**
 * Load -> portal URL -> state store -> API client, for plan, apply and drift, in `environment`
 * when one is named; the client and the store are closed when `action` ends, also when it fails.
 * `refresh: false` plans without a client; `stopReading` aborted stops the client's reads.
 */
export async function withSession<T>(
  paths: readonly string[],
  options: SharedOptions,
  io: CommandIO,
  action: (session: PortalSession & { client: ApiClient | undefined }) => Promise<T>,
  { refresh = true, environment, oneEnvironment, stopReading }: { refresh?: boolean; environment?: string; oneEnvironment?: string; stopReading?: AbortSignal } = {},
): Promise<T> {
  const config = await loadDesired(paths, io, { environment, portal: options.portal, ...(oneEnvironment === undefined ? {} : { oneEnvironment }) });
  const url = portalUrl(config, options);
  const store = stateStore(options, io, config.environment);
  try {
    const client = refresh ? connect(url, options, io, config, stopReading) : undefined;
    // What the plans of this session are about, named at the top of their reports.
    const about = { config: paths.length ? [...paths] : ['.'], state: store.describe(), portalctl: version, ...(config.environment ? { environment: config.environment.name } : {}) };
    return await withClient(client, () => action({ config, url, store, client, about })).catch((error: unknown) => {
      // A name or id the plan could not find is quoted in its diagnostic: never a resolved reference's value.
      throw error instanceof ConfigError ? new ConfigError(redactDiagnostics(error.diagnostics, config.redact)) : error;
    });
  } finally {
    // Closes the database's connections, also one that failed half-way (it would keep the process alive).
    await store.close();
  }
}

/** Always closes the client, also when the command fails. */
export async function withClient<T>(client: ApiClient | undefined, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } finally {
    await client?.close();
  }
}
