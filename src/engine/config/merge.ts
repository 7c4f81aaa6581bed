/**
 * Stage 5 of loading: the documents' declarations merged into one config. Each address, each
 * pruned collection and the portal block may be declared once across all files.
 */
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { DesiredObject, Edition, PruneDeclaration } from '../../kinds/contract.js';
import type { DocumentDeclarations, Origin } from './extract.js';

/** The `portal:` block as declared (references resolved). */
export interface DeclaredPortal {
  url?: string;
  edition?: Edition;
  version?: string;
  access?: 'public' | 'private';
  verified?: boolean;
  source?: SourceLocation;
}

export interface MergedDeclarations {
  portal: DeclaredPortal;
  objects: DesiredObject[];
  prunes: PruneDeclaration[];
  origins: WeakMap<DesiredObject, Origin>;
  diagnostics: Diagnostic[];
}

const at = (location: SourceLocation): string => `${location.file}:${location.line}:${location.column}`;

function mergePortal(documents: readonly DocumentDeclarations[], diagnostics: Diagnostic[]): DeclaredPortal {
  const declared = documents.flatMap((document) => (document.portal ? [document.portal] : []));
  const [first, ...others] = declared;
  if (!first) return {};
  const portal: DeclaredPortal = { ...(first.value as DeclaredPortal) };
  // Located on first use, like objects: locating re-parses a JSON file position-aware, which
  // took seconds for a large config that needed no location at all.
  let location: SourceLocation | undefined;
  Object.defineProperty(portal, 'source', { enumerable: true, configurable: true, get: () => (location ??= first.source.locate(['portal'], { key: true })) });
  for (const other of others) {
    diagnostics.push({
      severity: 'error',
      code: 'config/duplicate-portal',
      message: `The portal block is declared twice: first at ${at(portal.source as SourceLocation)}.`,
      location: other.source.locate(['portal'], { key: true }),
      expected: 'one portal block across all files',
    });
  }
  return portal;
}

export function mergeDeclarations(documents: readonly DocumentDeclarations[]): MergedDeclarations {
  const diagnostics: Diagnostic[] = [];
  const portal = mergePortal(documents, diagnostics);
  const byAddress = new Map<string, DesiredObject>();
  const origins = new WeakMap<DesiredObject, Origin>();
  const byCollection = new Map<string, PruneDeclaration>();
  for (const { object, origin } of documents.flatMap((document) => document.objects)) {
    const first = byAddress.get(object.address);
    if (first) {
      diagnostics.push({
        severity: 'error',
        code: 'config/duplicate-object',
        message: `${object.address} is declared twice: here and at ${at(first.source)}.`,
        address: object.address,
        location: object.source,
        expected: 'each object declared once across all files',
      });
      continue;
    }
    byAddress.set(object.address, object);
    origins.set(object, origin);
  }
  for (const prune of documents.flatMap((document) => document.prunes)) {
    const first = byCollection.get(prune.collection);
    if (first) {
      diagnostics.push({
        severity: 'error',
        code: 'config/duplicate-prune',
        message: `prune for ${prune.collection} is declared twice: here and at ${at(first.source)}.`,
        address: prune.collection,
        location: prune.source,
        expected: 'one prune declaration per collection',
      });
      continue;
    }
    byCollection.set(prune.collection, prune);
  }
  return { portal, objects: [...byAddress.values()], prunes: [...byCollection.values()], origins, diagnostics };
}
