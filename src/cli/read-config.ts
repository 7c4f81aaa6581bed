/** The config at the paths a command is given, as every command reads it (no HTTP client loaded: validate and config use it). */
import { loadConfig, type LoadedConfig } from '../engine/config/index.js';
import { registry } from '../registry.js';
import type { CommandIO } from './io.js';

export interface ReadConfigOptions {
  /** `--env`: the environment whose layers are merged in. */
  environment?: string | undefined;
  /** `--portal`: in place of portal.url, wherever it is written. */
  portal?: string | undefined;
  /** `--allow-unset-env` (validate and config): an unset `${env:}` is a warning. */
  allowUnsetEnv?: boolean | undefined;
}

export function readConfig(paths: readonly string[], io: Pick<CommandIO, 'cwd' | 'env'>, { environment, portal, allowUnsetEnv }: ReadConfigOptions): Promise<LoadedConfig> {
  return loadConfig(paths, {
    cwd: io.cwd,
    env: io.env,
    kinds: registry,
    ...(allowUnsetEnv ? { allowUnsetEnv: true } : {}),
    ...(environment === undefined ? {} : { environment }),
    ...(portal === undefined ? {} : { portalUrl: portal }),
  });
}
