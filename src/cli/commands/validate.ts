/**
 * `portalctl validate [PATH...]`: schema and rule checks, no network. A config that declares
 * environments is validated in each of them (or in those --env names): each environment's
 * effective config, its overlays merged over the base with its values.
 */
import { validateConfig, type LoadedConfig } from '../../engine/config/index.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { UsageError } from '../../core/errors.js';
import { counted } from '../../core/words.js';
import { renderDiagnostics } from '../diagnostics.js';
import { fleetNames, isFleet, refuseOneStateOrPortal, requestedEnvironments, type EnvironmentOptions } from '../environments.js';
import type { CommandIO } from '../io.js';
import { readConfig } from '../read-config.js';

export interface ValidateOptions extends EnvironmentOptions {
  format?: string;
  /** `--portal`: checked in place of portal.url, as plan would use it (one environment, or a config without any). */
  portal?: string;
  allowUnsetEnv?: boolean;
}

interface Validated {
  environment?: string;
  loaded: LoadedConfig;
  diagnostics: Diagnostic[];
  errors: number;
  warnings: number;
}

function validated(loaded: LoadedConfig, environment?: string): Validated {
  const diagnostics = validateConfig(loaded);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  return { ...(environment === undefined ? {} : { environment }), loaded, diagnostics, errors, warnings: diagnostics.length - errors };
}

function summaryText({ loaded, errors, warnings }: Validated): string {
  const files = loaded.sources.length;
  const overlays = loaded.sources.length - loaded.baseSources.length;
  const where = `${counted(files, 'file')}${overlays > 0 ? `, ${counted(overlays, 'overlay')} among them` : ''}`;
  const verdict = errors === 0 ? `Valid: ${counted(loaded.objects.length, 'managed object')} in ${where}. ` : '';
  return `${verdict}${counted(errors, 'error')}, ${counted(warnings, 'warning')}`;
}

const asJson = (result: Validated) => ({
  valid: result.errors === 0,
  errors: result.errors,
  warnings: result.warnings,
  files: result.loaded.sources,
  objects: result.loaded.objects.length,
  diagnostics: result.diagnostics,
});

/** When unset variables (and absent referenced files) are all that is wrong, in every environment, the way to check the rest without them (text output only). */
function unsetEnvHint(results: readonly Validated[], options: ValidateOptions): string {
  const errors = results.flatMap((result) => result.diagnostics.filter((diagnostic) => diagnostic.severity === 'error'));
  const codes = new Set(errors.map((diagnostic) => diagnostic.code));
  if (options.allowUnsetEnv || codes.size === 0 || [...codes].some((code) => code !== 'reference/unset-env' && code !== 'reference/missing-file')) return '';
  const what = [codes.has('reference/unset-env') ? 'unset environment variables' : '', codes.has('reference/missing-file') ? 'absent referenced files' : ''].filter(Boolean).join(' and ');
  return `Only ${what} are in the way: \`portalctl validate --allow-unset-env\` checks the rest without them.\n`;
}

/** Exit code 0 when there are no errors (warnings allowed), 1 otherwise. */
export async function validateCommand(paths: readonly string[], options: ValidateOptions, io: CommandIO): Promise<number> {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not "${format}".`);
  const load = (environment?: string) => readConfig(paths, io, { environment, portal: options.portal, allowUnsetEnv: options.allowUnsetEnv });
  const request = requestedEnvironments(options, io.env);
  // Each environment has its own portal: one --portal for several would check none of theirs.
  const refusePortalOverSeveral = () => refuseOneStateOrPortal(options.portal === undefined ? {} : { portal: options.portal });
  if (isFleet(request)) refusePortalOverSeveral();
  let names: string[];
  if (request.kind === 'names') {
    // Several: each checked before any is validated, as a fleet checks them (one alone is said in its own result).
    names = isFleet(request) ? await fleetNames(request, paths, io, options.portal === undefined ? {} : { portal: options.portal }) : request.names;
  } else {
    // No choice, or --all-envs: every declared environment; none: the config alone, as always,
    // read once (a large organization's files are not read twice to learn it has none).
    const base = await load();
    names = base.environments;
    if (request.kind === 'all' && names.length === 0) throw new UsageError('--all-envs: the config declares no environments (an environments: block in the base files).');
    if (names.length > 0) refusePortalOverSeveral();
    if (names.length === 0) {
      const result = validated(base);
      io.stdout(format === 'json' ? `${JSON.stringify(asJson(result), null, 2)}\n` : `${renderDiagnostics(result.diagnostics, io)}${summaryText(result)}\n${unsetEnvHint([result], options)}`);
      return result.errors === 0 ? 0 : 1;
    }
  }
  const results: Validated[] = [];
  for (const name of names) results.push(validated(await load(name), name));
  const valid = results.every((result) => result.errors === 0);
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ valid, environments: results.map((result) => ({ environment: result.environment, ...asJson(result) })) }, null, 2)}\n`);
  } else {
    for (const result of results) io.stdout(`Environment ${result.environment}:\n${renderDiagnostics(result.diagnostics, io)}${summaryText(result)}\n`);
    io.stdout(unsetEnvHint(results, options));
  }
  return valid ? 0 : 1;
}
