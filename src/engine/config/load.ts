/**
 * Loading the desired state: files and directories -> parsed documents -> references resolved
 * -> schema-checked -> managed objects, one per address, with where each is declared.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { ConfigPath, DesiredObject, Edition, PortalFacts, PruneDeclaration } from '../../kinds/contract.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { configSchema } from './config-schema.js';
import { redactor, resolveReferences, type ResolvedReference } from './references.js';
import { schemaDiagnostics } from './schema-diagnostics.js';
import { loadSchemaValidator } from './schema-validator.js';
import { readConfigSource, sourceProblem, type ParsedSource } from './source.js';
import { containerEntries, contributionsOf } from './walk.js';

export interface LoadOptions {
  /** Relative paths and file names in diagnostics are relative to it. */
  cwd: string;
  /** For `${env:NAME}` references. */
  env: NodeJS.ProcessEnv;
}

/** The `portal:` block as declared (references resolved). */
export interface DeclaredPortal {
  url?: string;
  edition?: Edition;
  version?: string;
  access?: 'public' | 'private';
  verified?: boolean;
  source?: SourceLocation;
}

export interface LoadedConfig {
  portal: DeclaredPortal;
  /** The declared facts in the shape the kinds' checks take. */
  facts: Partial<PortalFacts>;
  /** Every managed object, one per address, in declaration order. */
  objects: DesiredObject[];
  /** Collections that opted in to `prune: true`. */
  prunes: PruneDeclaration[];
  /** Files read, as given to diagnostics (relative to cwd when inside it). */
  sources: string[];
  /** Problems found while loading: unreadable or malformed files, references, schema, duplicates. */
  diagnostics: Diagnostic[];
  /** Replaces resolved `${...}` values inside any value by the reference text. */
  redact<T>(value: T): T;
  /** Where a part of an object's declaration sits (`path` relative to the object's declaration). */
  locate(obj: DesiredObject, path: ConfigPath): SourceLocation;
}

/**
 * A directory contributes its own YAML files only (DESIGN.md): the state file, saved plans and
 * other JSON beside the config must never be read as config. JSON configs (fast to parse for
 * very large organizations) are loaded when named as files.
 */
const directoryConfigFiles = /\.ya?ml$/i;

/** The files named by `paths`: files as given, directories' own config files (not subdirectories), sorted. */
async function configFiles(paths: readonly string[], cwd: string, diagnostics: Diagnostic[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths.length > 0 ? paths : ['.']) {
    const absolute = resolve(cwd, path);
    try {
      const info = await stat(absolute);
      if (info.isDirectory()) {
        const entries = await readdir(absolute, { withFileTypes: true });
        const found = entries
          .filter((entry) => entry.isFile() && directoryConfigFiles.test(entry.name))
          .map((entry) => join(absolute, entry.name))
          .sort();
        if (found.length === 0) {
          diagnostics.push(sourceProblem(display(absolute, cwd), 'source/no-config-files', 'The directory holds no *.yaml or *.yml files.', undefined, 'a directory with config files, or a file'));
        }
        files.push(...found);
      } else {
        files.push(absolute);
      }
    } catch {
      diagnostics.push(sourceProblem(display(absolute, cwd), 'source/not-found', `${path} does not exist.`, undefined, 'an existing file or directory'));
    }
  }
  return [...new Set(files)];
}

function display(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path !== '' && !path.startsWith('..') ? path : file;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointer(path: readonly (string | number)[]): string {
  return path.map((step) => `/${String(step).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

interface Origin {
  source: ParsedSource;
  path: (string | number)[];
}

export async function loadConfig(paths: readonly string[], options: LoadOptions): Promise<LoadedConfig> {
  const diagnostics: Diagnostic[] = [];
  const files = await configFiles(paths, options.cwd, diagnostics);
  const schema = configSchema();
  const validate = await loadSchemaValidator(schema);
  const origins = new WeakMap<DesiredObject, Origin>();
  const objects: DesiredObject[] = [];
  const byAddress = new Map<string, DesiredObject>();
  const prunes: PruneDeclaration[] = [];
  const pruneByCollection = new Map<string, PruneDeclaration>();
  const resolved: ResolvedReference[] = [];
  const portal: DeclaredPortal = {};
  const sources: string[] = [];

  for (const file of files) {
    const source = await readConfigSource(file);
    const shownFile = display(file, options.cwd);
    source.file = shownFile;
    const locate = source.locate;
    source.locate = (path, locateOptions) => ({ ...locate(path, locateOptions), file: shownFile });
    for (const diagnostic of source.diagnostics) if (diagnostic.location) diagnostic.location.file = shownFile;
    sources.push(shownFile);
    diagnostics.push(...source.diagnostics);
    if (source.data === undefined) continue;

    const references = resolveReferences(source.data, { file, env: options.env, locate: (path) => source.locate(path) });
    source.data = references.data;
    resolved.push(...references.resolved);
    diagnostics.push(...references.diagnostics);

    const schemaErrors = validate(source.data);
    diagnostics.push(...schemaDiagnostics(schemaErrors, source, schema));
    // Entries whose properties failed the schema are not extracted; the rest still are, so one run reports everything.
    const tainted = new Set<string>();
    for (const error of schemaErrors) {
      // Unknown properties do not hurt extraction: kinds read only the properties they own.
      if (error.keyword === 'additionalProperties' || error.keyword === 'propertyNames' || error.keyword === 'if' || error.schemaPath.includes('/propertyNames/')) continue;
      const steps = error.instancePath.split('/');
      for (let length = 1; length <= steps.length; length += 1) tainted.add(steps.slice(0, length).join('/'));
    }

    if (isObject(source.data) && isObject(source.data['portal']) && !tainted.has('/portal')) {
      const declared = source.data['portal'] as DeclaredPortal & JsonObject;
      if (portal.source) {
        diagnostics.push({
          severity: 'error',
          code: 'config/duplicate-portal',
          message: `The portal block is declared twice: first at ${portal.source.file}:${portal.source.line}:${portal.source.column}.`,
          location: source.locate(['portal'], { key: true }),
          expected: 'one portal block across all files',
        });
      } else {
        Object.assign(portal, declared);
        // Located on first use, like objects: locating re-parses a JSON file position-aware, which
        // took seconds for a large config that needed no location at all.
        let portalLocation: SourceLocation | undefined;
        Object.defineProperty(portal, 'source', {
          enumerable: true,
          configurable: true,
          get: () => (portalLocation ??= source.locate(['portal'], { key: true })),
        });
      }
    }

    for (const { container, entry, scope, path } of containerEntries(source.data)) {
      const entryPointer = pointer(path);
      for (const { kind, contribution } of contributionsOf(container.name)) {
        if (contribution.variantKey !== undefined) {
          if (entry[contribution.variantKey] === undefined || tainted.has(entryPointer)) continue;
        } else if (Object.keys(contribution.properties).some((name) => tainted.has(`${entryPointer}${pointer([name])}`))) {
          continue;
        }
        contribution.extract(entry, scope, {
          object(declared) {
            const objectPath = [...path, ...declared.path];
            let location: SourceLocation | undefined;
            const obj: DesiredObject = {
              kind,
              address: declared.address,
              ids: declared.ids,
              value: declared.value,
              absent: declared.absent,
              destructive: false,
              // Located on first use: a JSON file is re-parsed for positions only when one is needed.
              get source(): SourceLocation {
                return (location ??= source.locate(objectPath));
              },
            };
            origins.set(obj, { source, path: objectPath });
            const first = byAddress.get(obj.address);
            if (first) {
              const at = first.source;
              diagnostics.push({
                severity: 'error',
                code: 'config/duplicate-object',
                message: `${obj.address} is declared twice: here and at ${at.file}:${at.line}:${at.column}.`,
                address: obj.address,
                location: obj.source,
                expected: 'each object declared once across all files',
              });
              return;
            }
            byAddress.set(obj.address, obj);
            objects.push(obj);
          },
          prune(declared) {
            const { path: prunePath, ...rest } = declared;
            const prune: PruneDeclaration = { ...rest, source: source.locate([...path, ...prunePath], { key: true }) };
            const first = pruneByCollection.get(prune.collection);
            if (first) {
              diagnostics.push({
                severity: 'error',
                code: 'config/duplicate-prune',
                message: `prune for ${prune.collection} is declared twice: here and at ${first.source.file}:${first.source.line}:${first.source.column}.`,
                address: prune.collection,
                location: prune.source,
                expected: 'one prune declaration per collection',
              });
              return;
            }
            pruneByCollection.set(prune.collection, prune);
            prunes.push(prune);
          },
        });
      }
    }
  }

  const redact = redactor(resolved);
  return {
    portal,
    facts: factsOf(portal),
    objects,
    prunes,
    sources,
    diagnostics: diagnostics.map((diagnostic) => ('value' in diagnostic ? { ...diagnostic, value: redact(diagnostic.value) } : diagnostic)),
    redact,
    locate(obj, path) {
      const origin = origins.get(obj);
      return origin ? origin.source.locate([...origin.path, ...path]) : obj.source;
    },
  };
}

function factsOf(portal: DeclaredPortal): Partial<PortalFacts> {
  return {
    ...(portal.edition === undefined ? {} : { edition: portal.edition }),
    ...(portal.version === undefined ? {} : { version: portal.version }),
    ...(portal.access === undefined ? {} : { access: portal.access }),
    ...(portal.verified === undefined ? {} : { isVerified: portal.verified }),
  };
}
