/**
 * `portalctl config [PATH...] [--env NAME]`: prints the effective config, the base with the
 * environment's portal block and overlays merged in and its values substituted, each value
 * followed by the file and line it was written at. An invalid config is printed too (its
 * problems go to stderr, exit 1): seeing the merge is how an overlay's mistake is found. An
 * environment the config does not declare is said alone: there is no merge of it to show.
 */
import { ConfigError, validateConfig } from '../../engine/config/index.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { effectiveYamlMaxBytes, renderEffectiveJson, renderEffectiveYaml } from '../../engine/config/effective.js';
import { UsageError } from '../../core/errors.js';
import { renderDiagnostics } from '../diagnostics.js';
import { chooseEnvironmentMessage, isFleet, requestedEnvironments, singleEnvironment, type EnvironmentOptions } from '../environments.js';
import type { CommandIO } from '../io.js';
import { readConfig } from '../read-config.js';

export interface ConfigOptions extends EnvironmentOptions {
  format: 'yaml' | 'json';
  allowUnsetEnv?: boolean;
  /** `--portal`: shown (and checked) in place of portal.url, as plan would use it. */
  portal?: string;
}

/** Why config takes one environment, in its refusals. */
const ONE_ENVIRONMENT = 'config prints one environment';

export async function configCommand(paths: readonly string[], options: ConfigOptions, io: CommandIO): Promise<number> {
  const request = requestedEnvironments(options, io.env);
  if (isFleet(request)) throw new UsageError(`${ONE_ENVIRONMENT}: name it with --env NAME.`);
  const environment = singleEnvironment(request);
  const loaded = await readConfig(paths, io, { environment, portal: options.portal, allowUnsetEnv: options.allowUnsetEnv });
  if (environment === undefined && loaded.environments.length > 0) throw new UsageError(chooseEnvironmentMessage(loaded.environments, ONE_ENVIRONMENT));
  // A name the config does not declare (a typo, a job-wide PORTALCTL_ENV): the base alone, printed, would read as that environment's config.
  if (environment !== undefined && loaded.environment === undefined) throw new ConfigError(validateConfig(loaded));
  if (options.format !== 'json') {
    const bytes = loaded.sources.reduce((total, file) => total + (statSync(resolve(io.cwd, file), { throwIfNoEntry: false })?.size ?? 0), 0);
    if (bytes > effectiveYamlMaxBytes) {
      throw new UsageError(
        `The config is ${(bytes / (1 << 20)).toFixed(1)} MiB of files: the YAML view, with the file and line of every value, is shown for configs up to ${effectiveYamlMaxBytes >> 20} MiB (it holds the whole config positioned, about twenty times its size in memory). Use --format json, which shows the effective config without positions.`,
      );
    }
  }
  io.stdout(options.format === 'json' ? renderEffectiveJson(loaded) : renderEffectiveYaml(loaded, { portalFromFlag: options.portal !== undefined }));
  const diagnostics = validateConfig(loaded);
  if (diagnostics.length > 0) io.stderr(renderDiagnostics(diagnostics, io));
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error') ? 1 : 0;
}
