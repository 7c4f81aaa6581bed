import { writeFile } from 'node:fs/promises';
import { fileErrorReason } from '../files.js';
import { resolve } from 'node:path';
import { importPortal } from '../../engine/import.js';
import { PortalctlError, UsageError } from '../../core/errors.js';
import { registry } from '../../registry.js';
import type { CommandIO } from '../io.js';
import { isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';
import { connect, loadDesired, portalUrl, withClient, type SharedOptions } from './common.js';

export interface ImportOptions extends SharedOptions {
  out?: string;
  force?: boolean;
  byName?: boolean;
}

/** `--out` names a file that exists and `--force` was not given. */
export class OutputExistsError extends PortalctlError {}

/** `portalctl import`: the live organization as a config, on stdout or in `--out` (never overwritten without --force). */
export async function importCommand(paths: readonly string[], options: ImportOptions, io: CommandIO): Promise<number> {
  // In an environment, its portal and credentials (from the config at `paths`); else --portal and PORTALCTL_*.
  const request = requestedEnvironments(options, io.env);
  if (isFleet(request)) throw new UsageError('import reads one portal: name one environment with --env NAME.');
  const environment = singleEnvironment(request);
  const config = environment === undefined ? undefined : await loadDesired(paths, io, environment);
  const url = portalUrl(config, options);
  const client = connect(url, options, io, config?.environment);
  const result = await withClient(client, () => importPortal({ client, url, kinds: registry.kinds, containers: registry.containers, byName: Boolean(options.byName) }));

  if (!options.out) {
    io.stdout(result.text);
    return 0;
  }
  const file = resolve(io.cwd, options.out);
  try {
    // `wx` refuses an existing file atomically: nothing is overwritten by accident.
    await writeFile(file, result.text, { flag: options.force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new OutputExistsError(`${options.out} already exists; nothing was written. Pass --force to overwrite it.`);
    }
    throw new UsageError(`Could not write the config to ${options.out}: ${fileErrorReason(error)}.`, { cause: error });
  }
  const skipped = result.skipped.length > 0 ? `; skipped (not readable with this token): ${result.skipped.map((entry) => entry.kind).join(', ')}` : '';
  io.stderr(`Imported ${result.objects} object(s) from ${url} to ${options.out}${skipped}.\n`);
  return 0;
}
