/**
 * Loading the desired state, as stages that each return a value:
 * read sources -> resolve references -> validate schema -> extract objects -> merge declarations.
 */
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { ConfigPath, DesiredObject, PortalFacts, PruneDeclaration } from '../../kinds/contract.js';
import type { KindSet } from '../registry.js';
import { checkSchema, extractDeclarations, type DocumentDeclarations, type ResolvedSource } from './extract.js';
import { listConfigFiles, readSource } from './files.js';
import { mergeDeclarations, type DeclaredPortal } from './merge.js';
import { redactor, resolveReferences, type ResolvedReference } from './references.js';
import { loadSchemaValidator } from './schema-validator.js';
import type { ParsedSource } from './source.js';

export type { DeclaredPortal } from './merge.js';

export interface LoadOptions {
  /** Relative paths and file names in diagnostics are relative to it. */
  cwd: string;
  /** For `${env:NAME}` references. */
  env: NodeJS.ProcessEnv;
  /** The kinds whose declarations the config holds. */
  kinds: KindSet;
}

export interface LoadedConfig {
  /** The kinds the config was read with; validation and planning use the same ones. */
  kinds: KindSet;
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

/** Stage 2: the document with its `${env:}` and `${file:}` references resolved. */
function resolveSource(source: ParsedSource, absoluteFile: string, env: NodeJS.ProcessEnv): { source: ResolvedSource; resolved: ResolvedReference[]; diagnostics: Diagnostic[] } | undefined {
  if (source.data === undefined) return undefined;
  const references = resolveReferences(source.data, { file: absoluteFile, env, locate: (path) => source.locate(path) });
  return { source: { ...source, data: references.data }, resolved: references.resolved, diagnostics: references.diagnostics };
}

function factsOf(portal: DeclaredPortal): Partial<PortalFacts> {
  return {
    ...(portal.edition === undefined ? {} : { edition: portal.edition }),
    ...(portal.version === undefined ? {} : { version: portal.version }),
    ...(portal.access === undefined ? {} : { access: portal.access }),
    ...(portal.verified === undefined ? {} : { isVerified: portal.verified }),
  };
}

export async function loadConfig(paths: readonly string[], options: LoadOptions): Promise<LoadedConfig> {
  const { kinds } = options;
  const listed = await listConfigFiles(paths, options.cwd);
  const validate = await loadSchemaValidator(kinds.schema());
  const diagnostics: Diagnostic[] = [...listed.diagnostics];
  const resolved: ResolvedReference[] = [];
  const documents: DocumentDeclarations[] = [];
  const sources: string[] = [];
  for (const file of listed.files) {
    const source = await readSource(file, options.cwd);
    sources.push(source.file);
    diagnostics.push(...source.diagnostics);
    const withReferences = resolveSource(source, file, options.env);
    if (!withReferences) continue;
    resolved.push(...withReferences.resolved);
    const checked = checkSchema(withReferences.source, validate, kinds);
    diagnostics.push(...withReferences.diagnostics, ...checked.diagnostics);
    documents.push(extractDeclarations(checked, kinds));
  }
  const merged = mergeDeclarations(documents);
  const redact = redactor(resolved);
  return {
    kinds,
    portal: merged.portal,
    facts: factsOf(merged.portal),
    objects: merged.objects,
    prunes: merged.prunes,
    sources,
    diagnostics: [...diagnostics, ...merged.diagnostics].map((diagnostic) => ('value' in diagnostic ? { ...diagnostic, value: redact(diagnostic.value) } : diagnostic)),
    redact,
    locate(obj, path) {
      const origin = merged.origins.get(obj);
      return origin ? origin.source.locate([...origin.path, ...path]) : obj.source;
    },
  };
}
