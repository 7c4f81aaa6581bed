/**
 * Loading the desired state, as stages that each return a value:
 * read sources -> resolve references -> validate schema -> extract objects (extract.ts) ->
 * merge declarations. Each address, each pruned collection and the portal block may be
 * declared once across all files.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { formatLocation, type Diagnostic, type SourceLocation } from '../../core/diagnostics.js';
import { duplicateBlock } from './errors.js';
import type { ConfigPath, DesiredObject, Edition, PortalFacts, PruneDeclaration } from '../../kinds/toolkit/contract.js';
import type { KindSet } from '../kind-set.js';
import { checkSchema, DeclaredObject, extractDeclarations, type DocumentDeclarations, type ResolvedSource } from './extract.js';
import { redactor, type ReferenceRedactor } from './references.js';
import { configSchema } from './config-schema.js';
import { environmentOf, findEnvironments, type Environment } from './environments.js';
import { layerDocuments, unknownEnvironments, type Layered, type ReadFile } from './layers.js';
import { loadSchemaValidator } from './schema-validator.js';
import { refusesNonFinite } from './schema-diagnostics.js';
import { safetySettingsOf, type SafetySettings } from './safety-settings.js';
import { readConfigSourcesOffThread } from './off-thread.js';
import { portalUrlProblem, shownUrl } from '../../api/url.js';
import { errorCode, fileErrorReason, UsageError } from '../../core/errors.js';
import { isOutside } from '../../core/paths.js';
import { configFileLimit, sourceProblem, type ParsedSource } from './source.js';

// Stage 1: the files the paths name, each read and parsed.

/**
 * A directory contributes its own YAML files only (DESIGN.md): the state file, saved plans and
 * other JSON beside the config must never be read as config. JSON configs (fast to parse for
 * very large organizations) are loaded when named as files.
 */
const directoryConfigFiles = /\.ya?ml$/i;

/** A file name as diagnostics show it: relative to cwd when inside it (cwd itself: `.`, so its files are `name.yaml`). */
export function displayName(file: string, cwd: string): string {
  const path = relative(cwd, file);
  if (path === '') return '.';
  return !path.startsWith('..') ? path : file;
}

async function filesOf(absolute: string, shown: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const info = await stat(absolute);
  if (!info.isDirectory()) return { files: [absolute], diagnostics: [] };
  const entries = await readdir(absolute, { withFileTypes: true });
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const entry of entries) {
    if (!directoryConfigFiles.test(entry.name)) continue;
    const file = join(absolute, entry.name);
    // Subdirectories are not read (DESIGN.md), whatever their name.
    if (entry.isDirectory()) continue;
    if (entry.isSymbolicLink()) {
      // A link to a config file of the directory is one (its declarations were dropped without a
      // word); a link to nothing is said, and so is one leading out, never read: a config from a
      // pull request may not read other files of the machine (as for overlays and ${file:}).
      const name = join(shown, entry.name);
      let target: string | undefined;
      let loop = false;
      try {
        target = await realpath(file);
      } catch (error) {
        loop = errorCode(error) === 'ELOOP';
      }
      const inside = target !== undefined && !isOutside(target, await realpath(absolute));
      const info = target === undefined ? undefined : await stat(target);
      if (!target) {
        const what = loop ? 'a symbolic link that leads back to itself (through links, a loop)' : 'a symbolic link to nothing';
        diagnostics.push(sourceProblem(name, 'source/not-found', `${name} is ${what}.`, undefined, 'a link to an existing config file'));
      }
      else if (!inside) diagnostics.push(sourceProblem(name, 'source/link-escape', `${name} links to ${target}, outside ${shown}; it was not read (name that file itself to read it).`, undefined, 'a link to a file inside the directory'));
      else if (info && !info.isDirectory()) files.push(file);
    }
    // A regular file, or a pipe, socket or device named as a config file: the reader says what
    // that is (dropping its declarations without a word hid them).
    else files.push(file);
  }
  files.sort();
  if (files.length === 0 && diagnostics.length === 0) {
    diagnostics.push(sourceProblem(shown, 'source/no-config-files', 'The directory holds no *.yaml or *.yml files.', undefined, 'a directory with config files, or a file'));
  }
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
    } catch (error) {
      // Only a missing path is "does not exist": a directory that may not be read is said as that.
      const code = (error as NodeJS.ErrnoException).code;
      diagnostics.push(
        code === 'ENOENT' || code === 'ENOTDIR'
          ? sourceProblem(displayName(absolute, cwd), 'source/not-found', `${path} does not exist.`, undefined, 'an existing file or directory')
          : sourceProblem(displayName(absolute, cwd), 'source/unreadable', `${path} cannot be read: ${fileErrorReason(error)}.`, undefined, 'a file or directory portalctl may read'),
      );
    }
  }
  return { files: await oncePerFile(files), diagnostics };
}

/** Each file once, also when named twice by different paths (a directory and a link to it: its objects are not declared twice). */
async function oncePerFile(files: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const file of new Set(files)) {
    const real = await realpath(file).catch(() => file);
    if (seen.has(real)) continue;
    seen.add(real);
    kept.push(file);
  }
  return kept;
}

/** Files read and parsed (off-thread.ts), in order, their locations naming each file as diagnostics show it. */
export async function readSources(files: readonly string[], cwd: string, limitBytes?: number): Promise<ReadFile[]> {
  const sources = await readConfigSourcesOffThread(files, limitBytes);
  return files.flatMap((file, index) => {
    const source = sources[index];
    return source ? [{ file, source: shownAs(source, displayName(file, cwd)) }] : [];
  });
}

function shownAs(source: ParsedSource, shown: string): ParsedSource {
  const locate = source.locate;
  return {
    file: shown,
    data: source.data,
    diagnostics: source.diagnostics.map((diagnostic) => (diagnostic.location ? { ...diagnostic, location: { ...diagnostic.location, file: shown } } : diagnostic)),
    locate: (path, options) => ({ ...locate(path, options), file: shown }),
    ...(source.scalarAt ? { scalarAt: source.scalarAt } : {}),
    ...(source.mayHoldReferences === undefined ? {} : { mayHoldReferences: source.mayHoldReferences }),
    ...(source.prepareLocate ? { prepareLocate: source.prepareLocate } : {}),
  };
}

// Stage 5: the documents' declarations merged into one config.

/** The `portal:` block as declared (references resolved). */
export interface DeclaredPortal {
  url?: string;
  edition?: Edition;
  version?: string;
  access?: 'public' | 'private';
  verified?: boolean;
  source?: SourceLocation;
  /** Where a field of the block is written (its value), for a problem with that field. */
  locate?: (field: string) => SourceLocation;
}

export interface MergedDeclarations {
  portal: DeclaredPortal;
  safety: SafetySettings;
  objects: DesiredObject[];
  prunes: PruneDeclaration[];
  diagnostics: Diagnostic[];
}

function mergePortal(documents: readonly DocumentDeclarations[], diagnostics: Diagnostic[]): DeclaredPortal {
  const declared = documents.flatMap((document) => (document.portal ? [document.portal] : []));
  const [first, ...others] = declared;
  if (!first) return {};
  const portal: DeclaredPortal = { ...(first.value as DeclaredPortal) };
  // Located on first use, like objects: locating re-parses a JSON file position-aware, which
  // took seconds for a large config that needed no location at all.
  let location: SourceLocation | undefined;
  Object.defineProperty(portal, 'source', { enumerable: true, configurable: true, get: () => (location ??= first.source.locate(['portal'], { key: true })) });
  Object.defineProperty(portal, 'locate', { enumerable: false, value: (field: string) => first.source.locate(['portal', field]) });
  for (const other of others) {
    diagnostics.push(duplicateBlock('portal', first.source.locate(['portal'], { key: true }), other.source.locate(['portal'], { key: true }), 'one portal block across all files'));
  }
  const urlProblem = typeof portal.url === 'string' ? portalUrlProblem(portal.url) : undefined;
  if (urlProblem) {
    diagnostics.push({
      severity: 'error',
      code: 'portal/invalid-url',
      message: urlProblem,
      location: first.source.locate(['portal', 'url']),
      value: shownUrl(String(portal.url)),
      expected: "the portal's REST root, e.g. https://gis.example.com/portal/sharing/rest",
    });
  }
  return portal;
}

/** The `safety:` block: declared once across all files, like the portal block. */
function mergeSafety(documents: readonly DocumentDeclarations[], diagnostics: Diagnostic[]): SafetySettings {
  const declared = documents.flatMap((document) => (document.safety ? [document.safety] : []));
  const [first, ...others] = declared;
  if (!first) return {};
  for (const other of others) {
    diagnostics.push(duplicateBlock('safety', first.source.locate(['safety'], { key: true }), other.source.locate(['safety'], { key: true }), 'one safety block across all files'));
  }
  return safetySettingsOf(first.value);
}

export function mergeDeclarations(documents: readonly DocumentDeclarations[]): MergedDeclarations {
  const diagnostics: Diagnostic[] = [];
  const portal = mergePortal(documents, diagnostics);
  const safety = mergeSafety(documents, diagnostics);
  // A dictionary object rather than a Map: setting a key internalizes the address string, so the
  // plan's lookups of the same strings among the state's entries (object keys too) are direct;
  // with a Map each of those lookups hashed and searched V8's string table first, a twentieth of
  // a large organization's offline plan. Declaration order is kept by `objects`.
  const byAddress: Record<string, DesiredObject | undefined> = Object.create(null) as Record<string, DesiredObject | undefined>;
  const objects: DesiredObject[] = [];
  const byCollection = new Map<string, PruneDeclaration>();
  // Plain loops: a large organization has tens of thousands of objects, and no copy is needed.
  for (const document of documents) {
    for (const object of document.objects) {
      const first = byAddress[object.address];
      if (first) {
        diagnostics.push({
          severity: 'error',
          code: 'config/duplicate-object',
          message: `${object.address} is declared twice: here and at ${formatLocation(first.source)}.`,
          address: object.address,
          location: object.source,
          expected: 'each object declared once across all files',
        });
        continue;
      }
      byAddress[object.address] = object;
      objects.push(object);
    }
  }
  for (const prune of documents.flatMap((document) => document.prunes)) {
    const first = byCollection.get(prune.collection);
    if (first) {
      diagnostics.push({
        severity: 'error',
        code: 'config/duplicate-prune',
        message: `prune for ${prune.collection} is declared twice: here and at ${formatLocation(first.source)}.`,
        address: prune.collection,
        location: prune.source,
        expected: 'one prune declaration per collection',
      });
      continue;
    }
    byCollection.set(prune.collection, prune);
  }
  return { portal, safety, objects, prunes: [...byCollection.values()], diagnostics };
}

export interface LoadOptions {
  /** Relative paths and file names in diagnostics are relative to it. */
  cwd: string;
  /** For `${env:NAME}` references, and PORTALCTL_MAX_FILE_SIZE (the per-file limit). */
  env: NodeJS.ProcessEnv;
  /** The kinds whose declarations the config holds. */
  kinds: KindSet;
  /** The environment to load (`--env`): its portal block and overlays over the base, its values. */
  environment?: string;
  /** An unset `${env:}` is a warning and what depends on it is not checked (`validate --allow-unset-env` only: nothing is planned from such a config). */
  allowUnsetEnv?: boolean;
  /** `--portal`: the REST root used instead of `portal.url`, which is then not resolved (an unset variable there is no error). */
  portalUrl?: string;
}

export interface LoadedConfig {
  /** The kinds the config was read with; validation and planning use the same ones. */
  kinds: KindSet;
  portal: DeclaredPortal;
  /** Change thresholds per kind name (`safety:`); kinds not named use the defaults. */
  safety: SafetySettings;
  /** The declared facts in the shape the kinds' checks take. */
  facts: Partial<PortalFacts>;
  /** Every managed object, one per address, in declaration order. */
  objects: DesiredObject[];
  /** Collections that opted in to `prune: true`. */
  prunes: PruneDeclaration[];
  /** Files read, as given to diagnostics (relative to cwd when inside it): the base, then the environment's overlays. */
  sources: string[];
  /** The base files alone (what `apply --plan` loads again, with the plan's environment). */
  baseSources: string[];
  /** The environment loaded, when one was selected. */
  environment?: Environment;
  /** The names of every environment the base declares (none: a config without environments). */
  environments: string[];
  /** The documents as checked: each base file with the environment's layers merged in, references resolved. */
  documents: readonly ResolvedSource[];
  /** Problems found while loading: unreadable or malformed files, references, schema, duplicates. */
  diagnostics: Diagnostic[];
  /** Replaces resolved `${...}` values inside any value by the reference text (and says which values it looks for). */
  redact: ReferenceRedactor;
  /** Where a part of an object's declaration sits (`path` relative to the object's declaration). */
  locate(obj: DesiredObject, path: ConfigPath): SourceLocation;
}

function factsOf(portal: DeclaredPortal): Partial<PortalFacts> {
  return {
    ...(portal.edition === undefined ? {} : { edition: portal.edition }),
    ...(portal.version === undefined ? {} : { version: portal.version }),
    ...(portal.access === undefined ? {} : { access: portal.access }),
    ...(portal.verified === undefined ? {} : { isVerified: portal.verified }),
  };
}

/** The environments the base at `paths` declares, read without loading the rest (for --all-envs and `state --env`). */
export interface DeclaredEnvironments {
  names: string[];
  get(name: string): Environment | undefined;
  /** Whether the base was read far enough to know its environments (the file declaring them parsed). */
  known: boolean;
  /** The diagnostic naming those of `names` the config does not declare, or undefined when it declares every one. */
  unknown(names: readonly string[]): Diagnostic | undefined;
  diagnostics: Diagnostic[];
  /** Those of `diagnostics` that concern several environments together (two keeping one state): a run over several says them once, not in each. */
  betweenEnvironments: Diagnostic[];
}

export async function readEnvironments(paths: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<DeclaredEnvironments> {
  const limitBytes = configFileLimit(options.env ?? {});
  const listed = await listConfigFiles(paths, options.cwd);
  const base = await readSources(listed.files, options.cwd, limitBytes);
  const found = findEnvironments(base);
  const declaration = found.declaration;
  const diagnostics = [...listed.diagnostics, ...base.flatMap(({ source }) => source.diagnostics), ...found.diagnostics];
  return {
    names: declaration?.names ?? [],
    get: (name) => (declaration ? environmentOf(declaration, name) : undefined),
    // A file that could not be read or parsed may be the one declaring them.
    known: declaration !== undefined || !diagnostics.some((diagnostic) => diagnostic.severity === 'error'),
    unknown: (names) => unknownEnvironments(names, declaration),
    diagnostics,
    betweenEnvironments: found.betweenEnvironments,
  };
}

/** Stages 1 to 4: the files at `paths` read, layered, schema-checked, and each document's declarations extracted (in `layered.documents` order). */
async function declareDocuments(paths: readonly string[], options: LoadOptions): Promise<{ base: ReadFile[]; layered: Layered; documents: DocumentDeclarations[]; diagnostics: Diagnostic[] }> {
  const { kinds } = options;
  const limitBytes = configFileLimit(options.env);
  const listed = await listConfigFiles(paths, options.cwd);
  const validate = await loadSchemaValidator(configSchema(kinds));
  const diagnostics: Diagnostic[] = [...listed.diagnostics];
  const read = (files: readonly string[]): Promise<ReadFile[]> => readSources(files, options.cwd, limitBytes);
  const base = await read(listed.files);
  for (const { source } of base) diagnostics.push(...source.diagnostics);
  const layered = await layerDocuments(base, {
    env: options.env,
    kinds,
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    allowUnsetEnv: options.allowUnsetEnv === true,
    ...(options.portalUrl === undefined ? {} : { portalUrl: options.portalUrl }),
    readOverlays: async (overlays) => {
      if (overlays.length === 0) return { files: [], diagnostics: [] };
      // Named relative to cwd, as every diagnostic names its files (environments.ts resolved them to absolute paths).
      const found = await listConfigFiles(overlays.map((overlay) => displayName(overlay, options.cwd)), options.cwd);
      return { files: await read(found.files), diagnostics: found.diagnostics };
    },
  });
  diagnostics.push(...layered.diagnostics);
  const documents: DocumentDeclarations[] = [];
  for (const document of layered.documents) {
    const errors = validate(document.data);
    // Its problems are located next: a large file is positioned off the main thread first (not
    // for refusals of numbers that are not finite, which are not said again: a few such numbers
    // in a file of megabytes were located without positioning it, and then it was positioned).
    if (errors.some((error) => !refusesNonFinite(error, document.data))) await document.prepareLocate?.();
    const checked = checkSchema(document, validate, kinds, errors);
    diagnostics.push(...checked.diagnostics);
    documents.push(extractDeclarations(checked, kinds));
  }
  return { base, layered, documents, diagnostics };
}

export async function loadConfig(paths: readonly string[], options: LoadOptions): Promise<LoadedConfig> {
  const { kinds } = options;
  // A flag's mistake is the command line's, not the file's its value replaces.
  const flagProblem = options.portalUrl === undefined ? undefined : portalUrlProblem(options.portalUrl);
  if (flagProblem) throw new UsageError(`--portal: ${flagProblem}`);
  const { base, layered, documents, diagnostics } = await declareDocuments(paths, options);
  const merged = mergeDeclarations(documents);
  const redact = redactor(layered.resolved);
  const shown = withoutSchemaEchoes([...diagnostics, ...merged.diagnostics]);
  const baseSources = base.map(({ source }) => source.file);
  return {
    kinds,
    portal: merged.portal,
    safety: merged.safety,
    facts: factsOf(merged.portal),
    objects: merged.objects,
    prunes: merged.prunes,
    sources: [...baseSources, ...layered.overlays],
    baseSources,
    ...(layered.environment ? { environment: layered.environment } : {}),
    environments: layered.environments,
    documents: layered.documents,
    diagnostics: shown.map((diagnostic) => ('value' in diagnostic ? { ...diagnostic, value: redact(diagnostic.value) } : diagnostic)),
    redact,
    locate(obj, path) {
      return obj instanceof DeclaredObject ? obj.locate(path) : obj.source;
    },
  };
}

/** What one config file declares that other files beside it declare too. */
export interface DeclaredTwice {
  /** The other files declaring any of it, as diagnostics name them. */
  files: string[];
  /** The objects both declare, by address. */
  addresses: string[];
  /** The blocks declared once across all files that both declare: `portal`, `safety`, `prune for <collection>`. */
  blocks: string[];
}

/**
 * What `file`, one of the config files at `paths`, declares that the others declare too: each of
 * it a load of them all refuses as declared twice (`import --out` into a config directory). The
 * base alone, unset variables allowed: the question is what is declared, not whether it is valid.
 */
export async function declaredTwice(paths: readonly string[], file: string, options: Pick<LoadOptions, 'cwd' | 'env' | 'kinds'>): Promise<DeclaredTwice> {
  const { base, layered, documents } = await declareDocuments(paths, { ...options, allowUnsetEnv: true });
  const written = await realpath(file).catch(() => file);
  const shownAs = new Set<string>();
  for (const read of base) if ((await realpath(read.file).catch(() => read.file)) === written) shownAs.add(read.source.file);
  // One extraction per layered document, in its order.
  const declared = documents.map((document, index) => ({ document, file: layered.documents[index]?.file ?? '' }));
  const mine = declared.filter((entry) => shownAs.has(entry.file));
  const addresses = new Set(mine.flatMap(({ document }) => document.objects.map((object) => object.address)));
  const blocks = new Set(mine.flatMap(({ document }) => blocksOf(document)));
  const files: string[] = [];
  const sharedAddresses = new Set<string>();
  const sharedBlocks = new Set<string>();
  for (const { document, file: other } of declared) {
    if (shownAs.has(other)) continue;
    const both = document.objects.map((object) => object.address).filter((address) => addresses.has(address));
    const bothBlocks = blocksOf(document).filter((block) => blocks.has(block));
    if (both.length + bothBlocks.length === 0) continue;
    files.push(other);
    for (const address of both) sharedAddresses.add(address);
    for (const block of bothBlocks) sharedBlocks.add(block);
  }
  // In the order the file declares them.
  return { files, addresses: [...addresses].filter((address) => sharedAddresses.has(address)), blocks: [...blocks].filter((block) => sharedBlocks.has(block)) };
}

function blocksOf(document: DocumentDeclarations): string[] {
  return [...(document.portal ? ['portal'] : []), ...(document.safety ? ['safety'] : []), ...document.prunes.map((prune) => `prune for ${prune.collection}`)];
}

/**
 * A reference that could not be resolved leaves its text, which the schema may then refuse at the
 * same place: that is one problem, said once. (A number that is not finite stays in the data, and
 * the schema's refusal of one is left out where it is made: schema-diagnostics.ts.)
 */
function withoutSchemaEchoes(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const said = new Set(diagnostics.filter((d) => d.code.startsWith('reference/')).map((d) => formatLocation(d.location)));
  if (said.size === 0) return [...diagnostics];
  return diagnostics.filter((d) => !((d.code.startsWith('schema/') || d.code === 'portal/invalid-url') && said.has(formatLocation(d.location))));
}
