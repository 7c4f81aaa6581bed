/**
 * Environments (README "Environments"): the portals one repository's config is applied to,
 * declared once in the base files under `environments:`, each with its portal, state name,
 * credential variable names, values and overlay files. This module finds the declaration in the
 * parsed base documents and reads one environment from it; the schema check reports every shape
 * problem later with the rest of the document, so here anything malformed is simply left out.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isOutside } from '../../core/paths.js';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import { duplicateBlock } from './errors.js';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { ParsedSource } from './source.js';

/** Which variables hold an environment's credentials (their names, never their values). */
export interface CredentialVariableNames {
  token?: string;
  username?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
}

const CREDENTIAL_FIELDS = ['token', 'username', 'password', 'clientId', 'clientSecret'] as const;

/** One declared environment, as the CLI and the loader use it. */
export interface Environment {
  name: string;
  /** Its state: the name in a PostgreSQL database, the part added to a state file's name (default: the environment's name). */
  state: string;
  credentials?: CredentialVariableNames;
  /** Overlay files or directories, absolute, in merge order. */
  overlays: string[];
  /** Where each of them is named, in the same order (a missing one is said there, not inside itself). */
  overlaysNamedAt: SourceLocation[];
  /** Its values for `${var:name}` (unresolved: references inside are resolved by the loader). */
  values: JsonObject;
  /** Where it is declared. */
  source: SourceLocation;
}

/** The `environments:` block of the base, found in one of its documents. */
export interface EnvironmentsDeclaration {
  /** The document that declares them (overlay paths are relative to its directory). */
  document: ParsedSource;
  /** Its absolute path. */
  file: string;
  names: string[];
}

/** Finds the `environments:` block; declared in two files, the second is an error. */
export function findEnvironments(documents: readonly { source: ParsedSource; file: string }[]): {
  declaration?: EnvironmentsDeclaration;
  diagnostics: Diagnostic[];
  /** Those of `diagnostics` that concern several environments together (two keeping one state), not one of them. */
  betweenEnvironments: Diagnostic[];
} {
  const diagnostics: Diagnostic[] = [];
  const betweenEnvironments: Diagnostic[] = [];
  let declaration: EnvironmentsDeclaration | undefined;
  for (const { source, file } of documents) {
    const block = isObject(source.data) ? source.data['environments'] : undefined;
    if (!isObject(block)) continue;
    if (declaration) {
      diagnostics.push(
        duplicateBlock('environments', declaration.document.locate(['environments'], { key: true }), source.locate(['environments'], { key: true }), 'one environments block across the base files'),
      );
      continue;
    }
    declaration = { document: source, file, names: Object.keys(block) };
    betweenEnvironments.push(...sharedStates(source, block));
    diagnostics.push(...betweenEnvironments, ...escapingOverlays(source, file, block));
  }
  return declaration ? { declaration, diagnostics, betweenEnvironments } : { diagnostics, betweenEnvironments };
}

/**
 * Where an overlay path leads outside the directory of the file that declares it (absolute,
 * `..`, or through a symbolic link): undefined when it stays inside. As for `${file:}`: a config
 * from a pull request may not read other files of the machine, whose first lines a diagnostic
 * would show.
 */
function overlayEscape(path: string, declaringFile: string): string | undefined {
  const directory = dirname(resolve(declaringFile));
  if (isAbsolute(path)) return 'is absolute';
  const target = resolve(directory, path);
  if (isOutside(target, directory)) return "points outside the declaring file's directory";
  try {
    if (isOutside(realpathSync(target), realpathSync(directory))) return "links to a place outside the declaring file's directory";
  } catch {
    // Missing: said where it is read (source/not-found).
  }
  return undefined;
}

function escapingOverlays(source: ParsedSource, file: string, block: JsonObject): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [name, entry] of Object.entries(block)) {
    const overlays = isObject(entry) && Array.isArray(entry['overlays']) ? entry['overlays'] : [];
    overlays.forEach((path, index) => {
      const escape = typeof path === 'string' && path !== '' ? overlayEscape(path, file) : undefined;
      if (escape === undefined) return;
      diagnostics.push({
        severity: 'error',
        code: 'environment/overlay-escape',
        message: `Overlay "${String(path)}" of environment ${name} ${escape}; it was not read.`,
        location: source.locate(['environments', name, 'overlays', index]),
        value: String(path),
        expected: "an overlay file or directory inside the declaring file's directory, e.g. overlays/production.yaml",
      });
    });
  }
  return diagnostics;
}

/**
 * Two environments that keep the same state (`state: shared`, or one's state named as another
 * environment): each finds the other's records there, refused as another portal's or, for the
 * same portal, taken for its own; their locks keep each other waiting. Said at the second.
 */
function sharedStates(source: ParsedSource, block: JsonObject): Diagnostic[] {
  const owners = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const [name, entry] of Object.entries(block)) {
    const declared = isObject(entry) ? textOf(entry['state']) : undefined;
    const state = declared ?? name;
    const owner = owners.get(state);
    if (owner === undefined) {
      owners.set(state, name);
      continue;
    }
    diagnostics.push({
      severity: 'error',
      code: 'environment/shared-state',
      message: `Environments ${owner} and ${name} keep the same state, ${state}: each would find the other's records there (refused as another portal's, or taken for its own).`,
      location: source.locate(declared === undefined ? ['environments', name] : ['environments', name, 'state'], { key: declared === undefined }),
      value: state,
      expected: 'a state name of its own for each environment (environments.<name>.state, default the environment\'s name)',
    });
  }
  return diagnostics;
}

const textOf = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The environment `name` of a declaration (its data as parsed: overlay paths are plain texts). */
export function environmentOf(declaration: EnvironmentsDeclaration, name: string): Environment | undefined {
  const block = isObject(declaration.document.data) ? declaration.document.data['environments'] : undefined;
  const entry = isObject(block) && Object.prototype.hasOwnProperty.call(block, name) ? block[name] : undefined;
  if (entry === undefined) return undefined;
  const declared = isObject(entry) ? entry : {};
  const credentials: CredentialVariableNames = {};
  const credentialBlock = isObject(declared['credentials']) ? declared['credentials'] : {};
  for (const field of CREDENTIAL_FIELDS) {
    const variable = textOf(credentialBlock[field]);
    if (variable !== undefined) credentials[field] = variable;
  }
  // One that leads outside is never read (escapingOverlays says so).
  const named = (Array.isArray(declared['overlays']) ? declared['overlays'] : []).flatMap((path, index) =>
    typeof path === 'string' && path !== '' && overlayEscape(path, declaration.file) === undefined
      ? [{ path: resolve(dirname(declaration.file), path), at: declaration.document.locate(['environments', name, 'overlays', index]) }]
      : [],
  );
  return {
    name,
    state: textOf(declared['state']) ?? name,
    ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
    overlays: named.map((overlay) => overlay.path),
    overlaysNamedAt: named.map((overlay) => overlay.at),
    values: isObject(declared['values']) ? declared['values'] : {},
    source: declaration.document.locate(['environments', name], { key: true }),
  };
}

/** Every variable an environment names for its credentials: none of them may be referenced from the config. */
export function credentialVariablesOf(declaration: EnvironmentsDeclaration | undefined): Set<string> {
  const names = new Set<string>();
  if (!declaration) return names;
  for (const name of declaration.names) {
    const environment = environmentOf(declaration, name);
    for (const variable of Object.values(environment?.credentials ?? {})) names.add(variable);
  }
  return names;
}
