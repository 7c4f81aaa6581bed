/**
 * Stage 2 of loading, with environments (README "Environments"): the base documents' references
 * resolved, and, when an environment is selected, its portal block and overlay files merged over
 * them (overlay.ts). In order:
 *
 * 1. the `environments:` block is found in the base documents and the selected one read;
 * 2. references inside `values:` and `environments:` are resolved on their own (they may use
 *    `${env:}` and `${file:}`, not `${var:}`): the values `${var:name}` stands for are then the
 *    top-level `values:` with the environment's over them;
 * 3. every other reference of the base documents and of the overlay files is resolved, in the
 *    file that holds it (a `${file:}` is relative to that file, an error is located there);
 * 4. the environment's `portal:` block, then its overlays in order, are merged over the base.
 *
 * Without environments this is what loading always did: each document's references resolved.
 */
import { realpathSync } from 'node:fs';
import type { Diagnostic } from '../../core/diagnostics.js';
import { didYouMean, didYouMeanAside } from '../../core/suggest.js';
import { listed } from '../../core/words.js';
import { duplicateBlock } from './errors.js';
import { isObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import type { KindSet } from '../kind-set.js';
import { credentialVariablesOf, environmentOf, findEnvironments, type Environment, type EnvironmentsDeclaration } from './environments.js';
import { layeredSource, Origin, OverlayMerge, PATCH_KEY, type BaseDocument } from './overlay.js';
import { resolveReferences, unsetEnvIn, type ResolvedReference } from './references.js';
import { schemaTypesAt } from './schema-types.js';
import { configSchema } from './config-schema.js';
import type { ParsedSource } from './source.js';

/** A document whose references are resolved (`data` defined). */
export type ResolvedDocument = ParsedSource & { data: JsonValue };

/** One file read: its source and its absolute path. */
export interface ReadFile {
  source: ParsedSource;
  file: string;
}

export interface LayerOptions {
  env: NodeJS.ProcessEnv;
  kinds: KindSet;
  /** The environment to load (`--env`); absent: the base alone. */
  environment?: string;
  /** An unset `${env:}` is a warning (references.ts). */
  allowUnsetEnv?: boolean;
  /** `--portal`: replaces `portal.url` wherever it is written (withPortalUrl). */
  portalUrl?: string;
  /** Reads the overlay files an environment names (files as given, directories' own YAML files). */
  readOverlays(paths: readonly string[]): Promise<{ files: ReadFile[]; diagnostics: Diagnostic[] }>;
}

export interface Layered {
  /** The documents to check and extract: the base documents, merged with the environment's layers. */
  documents: ResolvedDocument[];
  resolved: ResolvedReference[];
  diagnostics: Diagnostic[];
  /** Overlay files read, as diagnostics show them. */
  overlays: string[];
  /** The environment loaded. */
  environment?: Environment;
  /** Every declared environment's name. */
  environments: string[];
  /** Variables environments name for their credentials (none may be referenced). */
  credentialVariables: ReadonlySet<string>;
}

/** Blocks resolved before the rest (they declare what `${var:}` stands for). */
const DECLARING_BLOCKS = new Set(['values', 'environments']);
/** Top-level blocks an overlay may not hold: they are declared once, in the base. */
const BASE_ONLY = ['environments', 'values'];

export async function layerDocuments(base: readonly ReadFile[], options: LayerOptions): Promise<Layered> {
  const diagnostics: Diagnostic[] = [];
  const resolved: ResolvedReference[] = [];
  const found = findEnvironments(base);
  diagnostics.push(...found.diagnostics);
  const declaration = found.declaration;
  const credentialVariables = credentialVariablesOf(declaration);
  const schema = configSchema(options.kinds);
  const typesAt = (path: ConfigPath) => schemaTypesAt(schema, path);
  const context = (source: ParsedSource, file: string, prefix: ConfigPath = []) => ({
    file,
    env: options.env,
    credentialVariables,
    allowUnsetEnv: options.allowUnsetEnv === true,
    locate: (path: ConfigPath) => source.locate([...prefix, ...path]),
    typesAt: (path: ConfigPath) => typesAt([...prefix, ...path]),
  });

  if (options.portalUrl !== undefined) for (const { source } of base) withPortalUrl(source, options.portalUrl, options.environment);

  // 2. `values:` and the selected environment's block first, without `${var:}`. Other
  // environments' references are theirs: an unset variable of production is no error in test.
  for (const { source, file } of base) {
    if (!isObject(source.data) || source.mayHoldReferences === false) continue;
    const blocks: [ConfigPath, JsonValue | undefined][] = [[['values'], source.data['values']]];
    const environments = source.data['environments'];
    if (options.environment !== undefined && isObject(environments) && Object.prototype.hasOwnProperty.call(environments, options.environment)) {
      blocks.push([['environments', options.environment], environments[options.environment]]);
    }
    for (const [prefix, value] of blocks) {
      if (typeof value !== 'object' || value === null) continue;
      const result = resolveReferences(value, context(source, file, prefix));
      resolved.push(...result.resolved);
      diagnostics.push(...result.diagnostics);
    }
  }

  let environment: Environment | undefined;
  if (options.environment !== undefined) {
    environment = declaration ? environmentOf(declaration, options.environment) : undefined;
    const unknown = environment ? undefined : unknownEnvironments([options.environment], declaration);
    if (unknown) diagnostics.push(unknown);
  }
  const values = valuesOf(base, environment, diagnostics);
  // A value holding an unset variable is reported where it is used as that (not as the wrong type
  // its reference text is), and with --allow-unset-env not checked there either.
  const withValues = { values, valuesWithUnsetEnv: valuesWithUnsetEnv(values, options.env) };

  // 3. Everything else, with the values.
  const documents: ResolvedDocument[] = [];
  for (const { source, file } of base) {
    if (source.data === undefined) continue;
    if (source.mayHoldReferences === false) {
      documents.push({ ...source, data: source.data });
      continue;
    }
    const result = resolveReferences(source.data, { ...context(source, file), ...withValues, skip: DECLARING_BLOCKS });
    resolved.push(...result.resolved);
    diagnostics.push(...result.diagnostics);
    documents.push({ ...source, data: result.data });
  }
  const layered: Layered = { documents, resolved, diagnostics, overlays: [], environments: declaration?.names ?? [], credentialVariables, ...(environment ? { environment } : {}) };
  if (!environment || !declaration) return layered;

  // 4. The environment's portal block and overlays over the base.
  // Each overlay on its own, so that one that does not exist is said where it is named.
  const read: { files: ReadFile[] } = { files: [] };
  for (const [index, overlay] of environment.overlays.entries()) {
    const one = await options.readOverlays([overlay]);
    read.files.push(...one.files);
    const namedAt = environment.overlaysNamedAt[index];
    diagnostics.push(...one.diagnostics.map((diagnostic) => (diagnostic.code === 'source/not-found' && namedAt ? { ...diagnostic, location: namedAt } : diagnostic)));
  }
  const layers: { data: JsonObject; origin: Origin }[] = [];
  const entry = environmentEntry(declaration, environment.name);
  if (isObject(entry?.['portal'])) layers.push({ data: { portal: entry['portal'] }, origin: new Origin(declaration.document, ['environments', environment.name]) });
  const baseFiles = new Set(base.map(({ file }) => realPath(file)));
  for (const { source, file } of read.files) {
    layered.overlays.push(source.file);
    diagnostics.push(...source.diagnostics);
    if (baseFiles.has(realPath(file))) {
      diagnostics.push({ severity: 'error', code: 'overlay/is-base', message: `${source.file} is a base file and an overlay of ${environment.name}; an overlay lives outside the base directories (e.g. in a subdirectory).`, location: { file: source.file, line: 1, column: 1 }, expected: 'overlay files outside the base' });
      continue;
    }
    if (source.data === undefined) continue;
    if (!isObject(source.data)) {
      diagnostics.push({ severity: 'error', code: 'overlay/not-a-mapping', message: 'An overlay is a mapping of the config\'s sections, like a base file.', location: source.locate([]), expected: 'a YAML mapping' });
      continue;
    }
    if (options.portalUrl !== undefined) withPortalUrl(source, options.portalUrl);
    const result = source.mayHoldReferences === false ? { data: source.data, resolved: [], diagnostics: [] } : resolveReferences(source.data, { ...context(source, file), ...withValues });
    resolved.push(...result.resolved);
    diagnostics.push(...result.diagnostics);
    if (!isObject(result.data)) continue;
    const data: JsonObject = { ...result.data };
    for (const block of BASE_ONLY) {
      if (data[block] === undefined) continue;
      diagnostics.push({
        severity: 'error',
        code: `overlay/${block}`,
        message: `An overlay may not declare ${block}: it is declared once, in the base${block === 'values' ? " (an environment's own values go under environments." + environment.name + '.values)' : ''}.`,
        location: source.locate([block], { key: true }),
        expected: `no ${block} block in an overlay`,
      });
      delete data[block];
    }
    layers.push({ data, origin: new Origin(source, []) });
  }
  const merge = new OverlayMerge(options.kinds.containers);
  const bases: BaseDocument[] = [];
  const merged: ResolvedDocument[] = [];
  for (const document of documents) {
    if (!isObject(document.data)) {
      merged.push(document);
      continue;
    }
    const origin = new Origin(document, []);
    bases.push({ data: document.data, origin });
    merged.push(layeredSource(document, origin));
  }
  diagnostics.push(...patchMarkersIn(base));
  for (const layer of layers) merge.apply(bases, layer);
  diagnostics.push(...merge.diagnostics);
  layered.documents = merged;
  return layered;
}

/**
 * `--portal` replaces `portal.url` where a document writes it (and in the block of `environment`,
 * in a base document), before references are resolved: a variable the written URL refers to need
 * not be set, since that URL is not used (`plan --env production --portal <a copy>` without
 * PROD_PORTAL_URL). Where references are resolved, a `${` in the URL is escaped.
 */
function withPortalUrl(source: ParsedSource, url: string, environment?: string): void {
  if (!isObject(source.data)) return;
  // A function, not a string: in a replacement string `$$` is one `$`, and the escape was lost.
  const written = source.mayHoldReferences === false ? url : url.replaceAll('${', () => '$${');
  const environments = source.data['environments'];
  const holders = [source.data, environment !== undefined && isObject(environments) && Object.prototype.hasOwnProperty.call(environments, environment) ? environments[environment] : undefined];
  for (const holder of holders) {
    const portal = isObject(holder) ? holder['portal'] : undefined;
    if (isObject(portal) && Object.prototype.hasOwnProperty.call(portal, 'url')) portal['url'] = written;
  }
}

function environmentEntry(declaration: EnvironmentsDeclaration, name: string): JsonObject | undefined {
  const block = isObject(declaration.document.data) ? declaration.document.data['environments'] : undefined;
  const entry = isObject(block) ? block[name] : undefined;
  return isObject(entry) ? entry : undefined;
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The values holding unset `${env:}` references, each with the variables' names. */
function valuesWithUnsetEnv(values: ReadonlyMap<string, JsonValue>, env: NodeJS.ProcessEnv): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [name, value] of values) {
    const unset = unsetEnvIn(value, env);
    if (unset.size > 0) found.set(name, [...unset]);
  }
  return found;
}

/** The top-level `values:` (declared once across the base), with the environment's over them. */
function valuesOf(base: readonly ReadFile[], environment: Environment | undefined, diagnostics: Diagnostic[]): Map<string, JsonValue> {
  const values = new Map<string, JsonValue>();
  let first: ParsedSource | undefined;
  for (const { source } of base) {
    const declared = isObject(source.data) ? source.data['values'] : undefined;
    if (!isObject(declared)) continue;
    if (first) {
      diagnostics.push(
        duplicateBlock('values', first.locate(['values'], { key: true }), source.locate(['values'], { key: true }), "one values block across the base files (an environment's own go under environments.<name>.values)"),
      );
      continue;
    }
    first = source;
    for (const [name, value] of Object.entries(declared)) values.set(name, value);
  }
  for (const [name, value] of Object.entries(environment?.values ?? {})) values.set(name, value);
  return values;
}

/**
 * Environments asked for (by --env, or PORTALCTL_ENV) that the config does not declare, in one
 * diagnostic naming each (with the nearest declared name) and the declared ones: undefined when
 * every one is declared.
 */
export function unknownEnvironments(names: readonly string[], declaration: EnvironmentsDeclaration | undefined): Diagnostic | undefined {
  const unknown = names.filter((name) => !declaration?.names.includes(name));
  if (unknown.length === 0) return undefined;
  const several = unknown.length > 1;
  if (!declaration) {
    // Asked for by --env or by PORTALCTL_ENV (a job-wide variable, the usual surprise): both are named.
    return {
      severity: 'error',
      code: 'environment/none-declared',
      message: `The environment${several ? 's' : ''} ${listed(unknown)} ${several ? 'are' : 'is'} asked for (--env, or PORTALCTL_ENV when no --env is given), but the config declares no environments.`,
      value: unknown.join(','),
      expected: 'an environments: block in the base config, or neither --env nor PORTALCTL_ENV',
    };
  }
  const declared = declaration.names.join(', ') || 'none';
  // One name keeps its suggestion at the end; several each carry their own.
  const message = several
    ? `No environments named ${listed(unknown.map((name) => `${name}${didYouMeanAside(name, declaration.names)}`), Number.POSITIVE_INFINITY, 'or')}; declared: ${declared}.`
    : `No environment named ${unknown[0]}; declared: ${declared}.${didYouMean(unknown[0] ?? '', declaration.names)}`;
  return {
    severity: 'error',
    code: 'environment/unknown',
    message,
    location: declaration.document.locate(['environments'], { key: true }),
    value: unknown.join(','),
    expected: `one of ${declaration.names.join(', ')}`,
  };
}

/** `$patch` belongs in overlays; in a base file it would silently mean nothing. */
function patchMarkersIn(base: readonly ReadFile[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const { source } of base) {
    const path: (string | number)[] = [];
    const walk = (value: JsonValue | undefined): void => {
      if (Array.isArray(value)) {
        value.forEach((child, index) => {
          path.push(index);
          walk(child);
          path.pop();
        });
      } else if (isObject(value)) {
        for (const [key, child] of Object.entries(value)) {
          path.push(key);
          if (key === PATCH_KEY) {
            found.push({ severity: 'error', code: 'overlay/patch-in-base', message: '$patch is an overlay marker; a base file declares values as they are.', location: source.locate([...path], { key: true }), expected: 'no $patch in a base file' });
          } else {
            walk(child);
          }
          path.pop();
        }
      }
    };
    walk(source.data);
  }
  return found;
}
