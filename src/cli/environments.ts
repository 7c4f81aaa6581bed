/**
 * Which environments a command runs in (README "Environments"): `--env NAME`, `--env a,b`,
 * `--all-envs`, or PORTALCTL_ENV (the flag wins). None: the config alone, which must then
 * declare no environments (a config that declares them must say which portal it means).
 */
import { UsageError } from '../core/errors.js';
import { didYouMean, didYouMeanAside } from '../core/suggest.js';
import { listed } from '../core/words.js';
import { readEnvironments, ConfigError } from '../engine/config/index.js';
import type { FleetPlanFile } from '../engine/plan/saved-plan.js';
import type { CommandIO } from './io.js';

export interface EnvironmentOptions {
  env?: string;
  allEnvs?: boolean;
  envParallelism?: string;
}

export type EnvironmentRequest = { kind: 'none' } | { kind: 'names'; names: string[] } | { kind: 'all' };

export function requestedEnvironments(options: EnvironmentOptions, env: NodeJS.ProcessEnv): EnvironmentRequest {
  if (options.env !== undefined && options.allEnvs) throw new UsageError('--env and --all-envs cannot be combined: name the environments, or take them all.');
  if (options.allEnvs) return { kind: 'all' };
  const text = options.env ?? env['PORTALCTL_ENV'];
  if (text === undefined || text.trim() === '') {
    if (options.env !== undefined) throw new UsageError('--env takes an environment name, or several separated by commas.');
    return { kind: 'none' };
  }
  const names = [...new Set(text.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
  return { kind: 'names', names };
}

/** One environment (or none) runs as a plain command; several (or --all-envs) as a fleet. */
export function isFleet(request: EnvironmentRequest): boolean {
  return request.kind === 'all' || (request.kind === 'names' && request.names.length > 1);
}

/** The single environment a request names, if it names exactly one. */
export function singleEnvironment(request: EnvironmentRequest): string | undefined {
  return request.kind === 'names' && request.names.length === 1 ? request.names[0] : undefined;
}

/**
 * `--state-name` names one state and `--portal` one portal; in a fleet each environment has its
 * own (its `state:`, its `portal.url`). One portal for all would run every environment's config
 * against it.
 */
export function refuseOneStateOrPortal(options: { stateName?: string; portal?: string }): void {
  if (options.stateName !== undefined) throw new UsageError('--state-name names one state, but each environment of a fleet has its own (environments.<name>.state); leave it out.');
  if (options.portal !== undefined) throw new UsageError('--portal names one portal, but each environment of a fleet has its own (environments.<name>.portal.url); leave it out, or run one environment with --env NAME.');
}

/**
 * The names a fleet runs over: those given, each checked against the config's declared ones
 * before any environment is read, locked or written (a typo must not leave the others applied
 * alone), or every declared one for --all-envs.
 */
export async function fleetNames(request: EnvironmentRequest, paths: readonly string[], io: Pick<CommandIO, 'cwd' | 'env'>, options: { stateName?: string; portal?: string } = {}): Promise<string[]> {
  refuseOneStateOrPortal(options);
  const declared = await readEnvironments(paths, { cwd: io.cwd, env: io.env });
  if (request.kind === 'names') {
    // A problem elsewhere in the base (one environment's overlay) is that environment's outcome; one hiding the declaration stops all.
    if (!declared.known) throw new ConfigError(declared.diagnostics);
    const unknown = declared.unknown(request.names);
    if (unknown) throw new ConfigError([unknown]);
    // Two environments keeping one state: a problem of the fleet, said once, not by each environment as its outcome.
    if (declared.betweenEnvironments.some((diagnostic) => diagnostic.severity === 'error')) throw new ConfigError(declared.betweenEnvironments);
    return request.names;
  }
  if (declared.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) throw new ConfigError(declared.diagnostics);
  if (declared.names.length === 0) throw new UsageError('--all-envs: the config declares no environments (an environments: block in the base files).');
  return declared.names;
}

/** The environments of a saved plans file that `request` names (all of them when it names none), in the order named. */
export function plannedEnvironments(file: FleetPlanFile, request: EnvironmentRequest): string[] {
  const planned = file.fleet.map((entry) => entry.environment);
  if (request.kind !== 'names') return planned;
  const missing = request.names.filter((name) => !planned.includes(name));
  if (missing.length === 1) throw new UsageError(`The plan file has no plan for ${missing[0]}; it holds ${planned.join(', ')}.${didYouMean(missing[0] ?? '', planned)}`);
  if (missing.length > 1) {
    const named = missing.map((name) => `${name}${didYouMeanAside(name, planned)}`);
    throw new UsageError(`The plan file has no plan for ${listed(named, Number.POSITIVE_INFINITY, 'or')}; it holds ${planned.join(', ')}.`);
  }
  return request.names;
}

/**
 * What to do when the config declares environments and the command line chose none. A command
 * that runs in one environment (graph, import, config) says so in `oneEnvironment` ("graph draws
 * one environment's plan"), and several or --all-envs, which it refuses, are not offered.
 */
export function chooseEnvironmentMessage(names: readonly string[], oneEnvironment?: string): string {
  const declared = `The config declares environments (${names.join(', ')})`;
  if (oneEnvironment !== undefined) return `${declared}, and ${oneEnvironment}: name one with --env NAME (or PORTALCTL_ENV).`;
  return `${declared}: choose one with --env NAME (or PORTALCTL_ENV), several with --env ${names.slice(0, 2).join(',')} or all with --all-envs.`;
}
