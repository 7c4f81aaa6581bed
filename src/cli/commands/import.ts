import { access, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isStandardOutput, refuseDirectoryAsOut, unwritableReason, writeKeptFile } from '../files.js';
import { importPortal } from '../../engine/import/import-portal.js';
import { declaredTwice, isJsonFile, listConfigFiles } from '../../engine/config/index.js';
import { fileErrorReason, PortalctlError, UsageError } from '../../core/errors.js';
import { counted, listed } from '../../core/words.js';
import { registry } from '../../registry.js';
import type { CommandIO } from '../io.js';
import { showProgress } from '../progress.js';
import { version } from '../version.js';
import { isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';
import { connect, loadDesired, portalUrl, withClient, type SharedOptions } from './common.js';

export interface ImportOptions extends SharedOptions {
  out?: string;
  force?: boolean;
  /** yaml: the config itself; json: a report of what was imported (with the config when there is no --out). */
  format?: 'yaml' | 'json';
  /** Roles, groups, items, ... written by name instead of id. */
  byName?: boolean;
}

/** `--out` names a file that exists and `--force` was not given. */
export class OutputExistsError extends PortalctlError {}

const alreadyExists = (out: string): OutputExistsError => new OutputExistsError(`${out} already exists; nothing was written. Pass --force to overwrite it.`);

const SCHEMA_FILE = join('schemas', 'portalctl.schema.json');

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Where an editor finds the schema, from the directory the config is written to: the schema of
 * the portalctl installed in the project (or of a portalctl clone), as a relative path, when one
 * is found above that directory; else this version's schema as published on npm (through unpkg).
 */
async function schemaLocation(directory: string): Promise<string> {
  for (let dir = directory; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'node_modules', 'portalctl', SCHEMA_FILE), join(dir, SCHEMA_FILE)]) {
      if (!(await exists(candidate))) continue;
      const manifest = join(dirname(dirname(candidate)), 'package.json');
      const name = await readFile(manifest, 'utf8').then((text) => /"name"\s*:\s*"portalctl"/.test(text), () => false);
      if (!name) continue;
      const path = relative(directory, candidate).split(sep).join('/');
      return path.startsWith('.') ? path : `./${path}`;
    }
    if (dirname(dir) === dir) return `https://unpkg.com/portalctl@${version}/schemas/portalctl.schema.json`;
  }
}

/** What the config files beside the imported one already declare of it (`declaredBeside` in the JSON report). */
interface DeclaredBeside {
  /** The directory written to, as given relative to the working directory. */
  directory: string;
  /** The other files there that declare any of it. */
  files: string[];
  /** The imported objects they declare, by address. */
  addresses: string[];
  /** The blocks declared once across all files that they declare too (the portal block). */
  blocks: string[];
}

/**
 * A plan of a directory reads every YAML file in it: an object the imported file declares and
 * another file there declares too is declared twice, an error at each declaration. What they
 * share is asked of the declarations themselves, so other YAML beside it (a CI file, a config
 * of other objects) is no false alarm.
 */
async function declaredBeside(file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<DeclaredBeside | undefined> {
  if (!/\.ya?ml$/i.test(file)) return undefined;
  const directory = dirname(file);
  const { files } = await listConfigFiles([directory], cwd);
  if (files.length < 2) return undefined;
  const twice = await declaredTwice([directory], file, { cwd, env, kinds: registry });
  if (twice.files.length === 0) return undefined;
  return { directory: relative(cwd, directory) || '.', ...twice };
}

/** `warning: portal/ already declares 6 of the 13 imported objects and the portal block, in …: …`. */
function declaredBesideWarning(beside: DeclaredBeside, imported: number, out: string): string {
  const blocks = beside.blocks.map((block) => (block.startsWith('prune ') ? block : `the ${block} block`));
  const objects = beside.addresses.length === imported ? (imported === 1 ? 'the imported object' : `all ${imported} imported objects`) : `${beside.addresses.length} of the ${counted(imported, 'imported object')}`;
  const what = [...(beside.addresses.length > 0 ? [objects] : []), ...blocks];
  // Files of that directory, named there.
  const files = beside.files.map((other) => basename(other));
  const directory = `${beside.directory}/`;
  return (
    `warning: ${directory} already declares ${listed(what)}, in ${listed(files, 5)}: a plan of ${directory} reads every YAML file in it and refuses each of them as declared twice. ` +
    `Move ${out} to a directory of its own (named alone, it plans with no changes), or delete from it what ${files.length === 1 ? 'that file declares' : 'those files declare'}.\n`
  );
}

/**
 * `portalctl import`: the live organization as a config, on stdout or in `--out` (never
 * overwritten without --force; missing directories are created). With `--format json`, a report
 * on stdout: the portal, the counts, what was skipped, and the config (or where it was written).
 * The portal is `--portal`'s, else the config's (`portal.url`) when PATH or `--env` names one.
 * Import keeps no state, so an environment means only its portal and its credentials: with
 * `--portal` an `--env` on the command line still picks the credentials (a copy of production,
 * reached with production's), while PORTALCTL_ENV, a job-wide choice for commands that run the
 * config, does not: it would read a config `import --portal URL` never asked for (failing where
 * there is none) and send an environment's credentials to a portal that is not its own.
 */
/** Why import takes one environment, in its refusals. */
const ONE_ENVIRONMENT = 'import reads one portal';

export async function importCommand(paths: readonly string[], options: ImportOptions, io: CommandIO): Promise<number> {
  // In an environment, its portal and credentials (from the config at `paths`); else --portal, or
  // the portal.url of the config PATH names, and PORTALCTL_*.
  // A --force that replaces nothing was meant for a file: said before anything is read, not ignored.
  if (options.force && options.out === undefined) throw new UsageError('--force replaces the --out file, and there is none: the config goes to standard output. Name the file with --out FILE, or leave --force out; nothing was read.');
  const { PORTALCTL_ENV: _jobWide, ...withoutJobEnvironment } = io.env;
  const request = requestedEnvironments(options, options.portal === undefined ? io.env : withoutJobEnvironment);
  if (isFleet(request)) throw new UsageError(`${ONE_ENVIRONMENT}: name one environment with --env NAME.`);
  const environment = singleEnvironment(request);
  const readsConfig = environment !== undefined || (paths.length > 0 && options.portal === undefined);
  const config = readsConfig ? await loadDesired(paths, io, { environment, portal: options.portal, oneEnvironment: ONE_ENVIRONMENT }) : undefined;
  const url = portalUrl(config, options);
  // `--out /dev/stdout` is standard output, written as without --out (opened by name, a socket fails).
  const toStandardOutput = options.out !== undefined && isStandardOutput(await stat(resolve(io.cwd, options.out)).catch(() => undefined));
  if (toStandardOutput && options.format === 'json') {
    throw new UsageError(`--out ${options.out} is this command's standard output, where the JSON report goes too: write the config to a file, or leave --out out (the report then holds the config); nothing was read.`);
  }
  if (options.out !== undefined && !toStandardOutput) await refuseDirectoryAsOut(options.out, io.cwd, { example: 'portalctl.yaml', nothing: 'nothing was read' });
  const file = options.out === undefined || toStandardOutput ? undefined : resolve(io.cwd, options.out);
  // The config is YAML, and every command reads a file named .json as JSON: it would fail at its first line.
  if (file && isJsonFile(file)) {
    throw new UsageError(`--out ${options.out} names a JSON file, and import writes the config as YAML (with its comments), which portalctl would read there as JSON: name it .yaml or .yml; nothing was read.`);
  }
  // Said before the portal is read (minutes for a large organization); the write refuses it again atomically.
  if (file && !options.force && (await exists(file))) throw alreadyExists(options.out ?? file);
  const unwritable = file ? await unwritableReason(file, { replace: options.force === true }) : undefined;
  if (unwritable) throw new UsageError(`Could not write the config to ${options.out}: ${unwritable}; nothing was read.`);
  const schema = await schemaLocation(file ? dirname(file) : io.cwd);
  const client = connect(url, options, io, config);
  const progress = showProgress(io);
  const result = await withClient(client, () =>
    importPortal({ client, url, kinds: registry.kinds, containers: registry.containers, schema, progress: progress.observer, byName: Boolean(options.byName) }),
  ).finally(() => progress.stop());
  const report = async (extra: Record<string, unknown>): Promise<void> =>
    io.stdout(`${JSON.stringify({ portal: result.portalBlock, objects: result.objects, skipped: result.skipped, ...extra }, null, 2)}\n`);

  if (!file || !options.out) {
    if (options.format === 'json') {
      const config: unknown = (await import('yaml')).parse(result.text);
      await report({ out: null, config, declaredBeside: null });
    } else io.stdout(result.text);
    return 0;
  }
  try {
    // Nothing is overwritten by accident, and a --force that fails half-way leaves the old config whole.
    await writeKeptFile(file, result.text, { replace: options.force === true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyExists(options.out);
    throw new UsageError(`Could not write the config to ${options.out}: ${fileErrorReason(error)}.`, { cause: error });
  }
  // Written as asked, then said: before the portal is read nothing tells whether the files beside
  // declare any of what it holds, and refusing after reading it would throw the reading away.
  const beside = await declaredBeside(file, io.cwd, io.env);
  if (options.format === 'json') await report({ out: options.out, declaredBeside: beside ?? null });
  else {
    const skipped = result.skipped.length > 0 ? `; skipped (not readable with this token): ${result.skipped.map((entry) => entry.kind).join(', ')}` : '';
    io.stderr(`Imported ${counted(result.objects, 'object')} from ${url} to ${options.out}${skipped}.\n`);
  }
  if (beside) io.stderr(declaredBesideWarning(beside, result.objects, options.out));
  return 0;
}
