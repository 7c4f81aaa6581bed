/**
 * One entry point from a `--state` value to a store: a postgres:// or postgresql:// URL opens
 * the PostgreSQL store (state `name` inside it), anything else is a file path (or file:// URL).
 * With no value, `PORTALCTL_STATE` from the environment is used, then the default file.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../core/errors.js';
import { closestNames } from '../core/suggest.js';
import { DEFAULT_STATE_FILE, FileStateStore } from './file-store.js';
import { PostgresStateStore } from './postgres-store.js';
import { checkStateName, DEFAULT_STATE_NAME, isPostgresUrl } from './postgres-url.js';
import type { StateStore, StoreNoticeKind } from './store.js';

export interface OpenStateOptions {
  /** `--state-name`: the state inside a database. */
  name?: string;
  /** Resolves a relative file path. */
  cwd: string;
  /** PORTALCTL_STATE and PGPASSWORD come from here. */
  env: NodeJS.ProcessEnv;
  /** What to record as the writer in the history and the lock (password-free). */
  command?: string;
  keepHistory?: number;
  /** Told, in a sentence, when a run waits for another's lock or takes over a dead holder's lock. */
  onNotice?: (message: string, kind: StoreNoticeKind) => void;
  /** What gave `spec`, as messages name it (default: --state, or PORTALCTL_STATE when it came from there). */
  given?: string;
  /** What gave `name`, as messages name it (default: --state-name; `state push` has --source-name). */
  nameFlag?: string;
}

/**
 * The `--state` value in force: the flag, else PORTALCTL_STATE, else the default file. A path
 * ending in a slash is a directory, the state file in it under the default name (`--state
 * states/` is `states/portalctl.state.json`; an environment's, `states/portalctl.production.state.json`).
 */
export function stateSpec(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromEnv = env['PORTALCTL_STATE'];
  const spec = flag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_STATE_FILE);
  return !isPostgresUrl(spec) && /[/\\]$/.test(spec) ? `${spec}${DEFAULT_STATE_FILE}` : spec;
}

/**
 * A file of one environment (its state file, its saved plan) (README "Environments"): the environment's state name goes
 * into the file's name, before `.state.json` or else before the last extension:
 * `portalctl.state.json` -> `portalctl.production.state.json`, `states/x.json` ->
 * `states/x.production.json`. Several environments never share a file.
 */
export function environmentFile(path: string, stateName: string): string {
  const name = checkStateName(stateName);
  const match = /^(.*?)(\.state\.json|\.[^./\\]+)?$/i.exec(path);
  return `${match?.[1] ?? path}.${name}${match?.[2] ?? ''}`;
}

export function openStateStore(spec: string | undefined, options: OpenStateOptions): StateStore {
  const chosen = stateSpec(spec, options.env);
  const name = checkStateName(options.name ?? DEFAULT_STATE_NAME);
  const common = {
    ...(options.command !== undefined ? { command: options.command } : {}),
    ...(options.keepHistory !== undefined ? { keepHistory: options.keepHistory } : {}),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  };
  if (isPostgresUrl(chosen)) return new PostgresStateStore({ url: chosen, name, env: options.env, ...common });
  // Without the flag the value came from PORTALCTL_STATE only when that is set; else it is the default file, which --state replaces.
  const fromEnv = spec === undefined && (options.env['PORTALCTL_STATE'] ?? '') !== '';
  const given = options.given ?? (fromEnv ? 'PORTALCTL_STATE' : '--state');
  const path = filePath(chosen, given);
  if (name !== DEFAULT_STATE_NAME) {
    const nameFlag = options.nameFlag ?? '--state-name';
    throw new UsageError(`${nameFlag} applies to a PostgreSQL state (postgres://…); for a file, give ${given} another path instead of ${nameFlag} ${name}.`);
  }
  return new FileStateStore({ path: throughLink(isAbsolute(path) ? path : resolve(options.cwd, path)), ...common });
}

/**
 * A state file that is a symbolic link, as the file it leads to (even one not written yet): each
 * write renames a new file into place, which replaced the link with a file and left its target
 * behind, stale, for the next run that reads it there. Backup, history and lock go beside it.
 */
function throughLink(path: string): string {
  try {
    if (!lstatSync(path).isSymbolicLink()) return path;
  } catch {
    return path;
  }
  try {
    return realpathSync(path);
  } catch {
    return resolve(dirname(path), readlinkSync(path));
  }
}

const POSTGRES_ABBREVIATIONS = new Set(['pg', 'pgsql', 'psql']);

/**
 * A `--state` value that is not a postgres:// URL, as a file's path: a file:// URL is its path;
 * any other URL (`postgress://`, `s3://`) is refused, where it was taken as a relative path and a
 * plan ran as the first one, against an empty state.
 */
function filePath(spec: string, given: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1];
  if (scheme === undefined) return spec;
  if (scheme.toLowerCase() === 'file') {
    try {
      return fileURLToPath(spec);
    } catch (error) {
      throw new UsageError(`${given}: ${(error as Error).message}; give the file's path instead.`);
    }
  }
  // `pg://` and `pgsql://` are too short to be near by spelling: taken for what they stand for.
  const nearest = POSTGRES_ABBREVIATIONS.has(scheme.toLowerCase()) ? 'postgres' : closestNames(scheme, ['postgres', 'postgresql'], 1)[0];
  throw new UsageError(
    `${given} takes a file's path or a postgres:// URL, and ${scheme}:// is neither${nearest ? ` (did you mean ${nearest}://?)` : ''}: portalctl keeps state in a file or in PostgreSQL.`,
  );
}
