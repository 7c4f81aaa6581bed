/** Stage 1 of loading: which files the paths name, and each file read and parsed. */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Diagnostic } from '../../core/diagnostics.js';
import { readConfigSource, sourceProblem, type ParsedSource } from './source.js';

/**
 * A directory contributes its own YAML files only (DESIGN.md): the state file, saved plans and
 * other JSON beside the config must never be read as config. JSON configs (fast to parse for
 * very large organizations) are loaded when named as files.
 */
const directoryConfigFiles = /\.ya?ml$/i;

/** A file name as diagnostics show it: relative to cwd when inside it. */
export function displayName(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path !== '' && !path.startsWith('..') ? path : file;
}

async function filesOf(absolute: string, shown: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const info = await stat(absolute);
  if (!info.isDirectory()) return { files: [absolute], diagnostics: [] };
  const entries = await readdir(absolute, { withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && directoryConfigFiles.test(entry.name))
    .map((entry) => join(absolute, entry.name))
    .sort();
  const diagnostics =
    files.length === 0 ? [sourceProblem(shown, 'source/no-config-files', 'The directory holds no *.yaml or *.yml files.', undefined, 'a directory with config files, or a file')] : [];
  return { files, diagnostics };
}

/** The files named by `paths`: files as given, directories' own config files (not subdirectories), sorted. */
export async function listConfigFiles(paths: readonly string[], cwd: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const path of paths.length > 0 ? paths : ['.']) {
    const absolute = resolve(cwd, path);
    try {
      const found = await filesOf(absolute, displayName(absolute, cwd));
      files.push(...found.files);
      diagnostics.push(...found.diagnostics);
    } catch {
      diagnostics.push(sourceProblem(displayName(absolute, cwd), 'source/not-found', `${path} does not exist.`, undefined, 'an existing file or directory'));
    }
  }
  return { files: [...new Set(files)], diagnostics };
}

/** One file read and parsed, its locations naming the file as diagnostics show it. */
export async function readSource(file: string, cwd: string): Promise<ParsedSource> {
  const source = await readConfigSource(file);
  const shown = displayName(file, cwd);
  const locate = source.locate;
  return {
    file: shown,
    data: source.data,
    diagnostics: source.diagnostics.map((diagnostic) => (diagnostic.location ? { ...diagnostic, location: { ...diagnostic.location, file: shown } } : diagnostic)),
    locate: (path, options) => ({ ...locate(path, options), file: shown }),
  };
}
