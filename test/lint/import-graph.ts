/**
 * The import graph of src/, read with TypeScript's own pre-processor so that every import
 * counts: value and type-only, `export ... from`, dynamic `import()` and `typeof import()`.
 * The architecture test checks it for cycles and for imports that leave a room the wrong way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { boundaries as configuredBoundaries } from '../../eslint.config.js';

/** One room's rule, as eslint.config.js states it (the ESLint rule and this check share it). */
export interface Boundary {
  room: string;
  forbidden: string[];
  message: string;
  kindsAllowed?: string[];
  kindsMessage?: string;
}
export const boundaries = configuredBoundaries as Boundary[];

/** Files as paths relative to the project root ('src/engine/plan/plan.ts'), each with the files it imports. */
export interface ImportGraph {
  edges: Map<string, string[]>;
  /** Relative specifiers that name no file of ours: 'src/x.ts: ./gone.js'. */
  unresolved: string[];
}

/**
 * Reads every .ts file under src/ of `root`; `overrides` replaces a file's text (or adds a file),
 * as ESLint's lintText does, so a test can show what one wrong import would do.
 */
export function importGraph(root: string, overrides: Record<string, string> = {}): ImportGraph {
  const files = readdirSync(posix.join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .map((name) => posix.join('src', name.split('\\').join('/')))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  for (const file of Object.keys(overrides)) if (!files.includes(file)) files.push(file);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files.sort()) {
    const text = overrides[file] ?? readFileSync(posix.join(root, file), 'utf8');
    const targets = new Set<string>();
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue; // a package or node: builtin
      const target = resolveSpecifier(known, posix.dirname(file), specifier);
      if (target === undefined) unresolved.push(`${file}: ${specifier}`);
      else targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  return { edges, unresolved };
}

/** NodeNext resolution of our own relative specifiers: './x.js' is x.ts, a folder its index.ts. */
function resolveSpecifier(known: Set<string>, fromDir: string, specifier: string): string | undefined {
  const path = posix.normalize(posix.join(fromDir, specifier));
  const candidates = [path.replace(/\.js$/, '.ts'), path, `${path}.ts`, posix.join(path, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

/** One import circle as 'a.ts -> b.ts -> a.ts', or undefined when the graph has none. */
export function findCycle(graph: ImportGraph): string | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): string | undefined => {
    if (onPath.has(file)) return [...path.slice(path.indexOf(file)), file].join(' -> ');
    if (done.has(file)) return undefined;
    path.push(file);
    onPath.add(file);
    for (const target of graph.edges.get(file) ?? []) {
      const cycle = visit(target);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
    return undefined;
  };
  for (const file of graph.edges.keys()) {
    const cycle = visit(file);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** The room of a file under src/: its first folder, or '.' for the files directly in src/. */
function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 2 ? '.' : (parts[1] ?? '.');
}

/** What an import of `file` reaches, in the terms of `Boundary.forbidden`: a room, or a file of src/ by name. */
function reachedName(file: string): string {
  const room = roomOf(file);
  return room === '.' ? posix.basename(file, '.ts') : room;
}

/** Every import that leaves its room the wrong way: 'src/engine/x.ts -> src/cli/io.ts: message'. */
export function boundaryViolations(graph: ImportGraph): string[] {
  const violations: string[] = [];
  for (const [file, targets] of graph.edges) {
    if (!file.startsWith('src/')) continue;
    const boundary = boundaries.find((candidate) => candidate.room === roomOf(file));
    if (boundary === undefined) continue;
    for (const target of targets) {
      if (!target.startsWith('src/') || roomOf(target) === roomOf(file)) continue;
      if (boundary.forbidden.includes(reachedName(target))) {
        violations.push(`${file} -> ${target}: ${boundary.message}`);
      } else if (boundary.kindsAllowed && roomOf(target) === 'kinds' && !boundary.kindsAllowed.some((name) => target === `src/kinds/${name}.ts`)) {
        violations.push(`${file} -> ${target}: ${boundary.kindsMessage ?? boundary.message}`);
      }
    }
  }
  return violations;
}
