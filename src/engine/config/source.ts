/**
 * Reading one config file into plain data, with positions for diagnostics. YAML is parsed with
 * the `yaml` package (positions kept); JSON with JSON.parse, which is ~25x faster, and only
 * re-parsed position-aware when a diagnostic needs a location. Hostile input (huge, binary,
 * deeply nested, alias bombs, duplicate keys) becomes diagnostics, never a crash.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { ConfigPath } from '../../kinds/contract.js';
import type { JsonValue } from '../../core/json.js';

/** Larger files are refused: the largest realistic config (50,000 items, 200,000 categories) is far below. */
export const maxConfigFileBytes = 32 * 1024 * 1024;
/** Deeper documents are refused; a valid config is about 15 levels deep. */
export const maxConfigDepth = 64;
/** Aliases a YAML document may expand, against "billion laughs" documents. */
export const maxAliasCount = 100;

export interface ParsedSource {
  file: string;
  /** The document's data; undefined when it could not be read or parsed. */
  data: JsonValue | undefined;
  diagnostics: Diagnostic[];
  /**
   * Where the node at `path` is declared. List items point at their `-`; collections under a key
   * at the key; scalars at the value. `key: true` points at the key of the last step. Falls back
   * to the deepest node that exists.
   */
  locate(path: ConfigPath, options?: { key?: boolean }): SourceLocation;
}

export function sourceProblem(file: string, code: string, message: string, location?: SourceLocation, expected?: string): Diagnostic {
  return {
    severity: 'error',
    code,
    message,
    location: location ?? { file, line: 1, column: 1 },
    ...(expected === undefined ? {} : { expected }),
  };
}

export async function readConfigSource(file: string): Promise<ParsedSource> {
  const start = { file, line: 1, column: 1 };
  const unreadable = (diagnostic: Diagnostic): ParsedSource => ({ file, data: undefined, diagnostics: [diagnostic], locate: () => start });
  let bytes: Buffer;
  try {
    const info = await stat(file);
    if (info.size > maxConfigFileBytes) {
      return unreadable(
        sourceProblem(file, 'source/too-large', `The file has ${info.size} bytes; config files are limited to ${maxConfigFileBytes} bytes.`, start, `at most ${maxConfigFileBytes} bytes (split the config over several files)`),
      );
    }
    bytes = await readFile(file);
  } catch (error) {
    return unreadable(sourceProblem(file, 'source/unreadable', `Cannot read the file: ${(error as Error).message}`));
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    return unreadable(sourceProblem(file, 'source/binary', `The file contains binary data (a NUL byte at offset ${nul}); a config file is YAML or JSON text.`, positionOf(bytes.subarray(0, nul).toString('utf8'), start), 'UTF-8 YAML or JSON text'));
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return unreadable(sourceProblem(file, 'source/encoding', 'The file is not valid UTF-8 text.', start, 'UTF-8 YAML or JSON text'));
  }
  return file.toLowerCase().endsWith('.json') ? parseJsonSource(file, text) : parseYamlSource(file, text);
}

function positionOf(prefix: string, start: SourceLocation): SourceLocation {
  const lines = prefix.split('\n');
  return { file: start.file, line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

export function parseJsonSource(file: string, text: string): ParsedSource {
  let document: PositionedDocument | undefined;
  const positioned = (): PositionedDocument => (document ??= positionedDocument(file, text));
  const locate: ParsedSource['locate'] = (path, options) => positioned().locate(path, options);
  try {
    const data = JSON.parse(text) as JsonValue;
    return withDepthCheck({ file, data, diagnostics: [], locate });
  } catch (error) {
    // The position-aware parser explains where the JSON is broken; JSON.parse's message is a fallback.
    const problems = positioned().diagnostics;
    const diagnostics = problems.length > 0 ? problems : [sourceProblem(file, 'json/syntax', `Invalid JSON: ${(error as Error).message}`)];
    return { file, data: undefined, diagnostics, locate };
  }
}

export function parseYamlSource(file: string, text: string): ParsedSource {
  const document = positionedDocument(file, text);
  const source: ParsedSource = { file, data: undefined, diagnostics: document.diagnostics, locate: document.locate };
  if (document.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return source;
  try {
    source.data = (document.doc.toJS({ maxAliasCount }) ?? null) as JsonValue;
  } catch (error) {
    if (error instanceof ReferenceError || error instanceof RangeError) {
      source.diagnostics.push(
        error instanceof ReferenceError
          ? sourceProblem(file, 'yaml/alias-limit', `The document expands too many aliases (more than ${maxAliasCount}); refusing a possible "billion laughs" document.`, document.firstAlias(), 'fewer aliases; write the values out')
          : sourceProblem(file, 'source/too-deep', `The document is nested too deeply to read.`, undefined, `at most ${maxConfigDepth} levels`),
      );
      return source;
    }
    throw error;
  }
  return withDepthCheck(source);
}

/** Refuses documents nested deeper than maxConfigDepth, iteratively (no recursion on hostile data). */
function withDepthCheck(source: ParsedSource): ParsedSource {
  const pending: { value: JsonValue; path: (string | number)[] }[] = [{ value: source.data ?? null, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop() as { value: JsonValue; path: (string | number)[] };
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= maxConfigDepth) {
      source.diagnostics.push(
        sourceProblem(source.file, 'source/too-deep', `The document is nested more than ${maxConfigDepth} levels deep.`, source.locate(path), `at most ${maxConfigDepth} levels`),
      );
      source.data = undefined;
      return source;
    }
    if (Array.isArray(value)) value.forEach((child, index) => pending.push({ value: child, path: [...path, index] }));
    else for (const [key, child] of Object.entries(value)) pending.push({ value: child, path: [...path, key] });
  }
  return source;
}

interface PositionedDocument {
  doc: Document;
  diagnostics: Diagnostic[];
  locate: ParsedSource['locate'];
  firstAlias(): SourceLocation;
}

function kebab(code: string): string {
  return code.toLowerCase().replace(/_/g, '-');
}

function positionedDocument(file: string, text: string): PositionedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, stringKeys: false });
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { file, line, column: col };
  };
  const diagnostics: Diagnostic[] = [
    ...doc.errors.map((error): Diagnostic => ({
      severity: 'error',
      code: error.code === 'DUPLICATE_KEY' ? 'yaml/duplicate-key' : `yaml/${kebab(error.code)}`,
      message: error.code === 'DUPLICATE_KEY' ? 'This key appears twice in the same mapping; keys must be unique.' : `Invalid YAML: ${error.message.split('\n')[0]}`,
      location: at(error.pos[0]),
      ...(error.code === 'DUPLICATE_KEY' ? { value: text.slice(error.pos[0], Math.min(error.pos[1], error.pos[0] + 200)), expected: 'each key once' } : {}),
    })),
    ...doc.warnings.map((warning): Diagnostic => ({
      severity: 'warning',
      code: `yaml/${kebab(warning.code)}`,
      message: warning.message.split('\n')[0] ?? warning.code,
      location: at(warning.pos[0]),
    })),
  ];

  const locate: ParsedSource['locate'] = (path, options) => {
    let node: unknown = doc.contents;
    let offset = 0;
    for (let index = 0; index < path.length; index += 1) {
      const step = path[index];
      const last = index === path.length - 1;
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((candidate) => isPair(candidate) && String(isScalar(candidate.key) ? candidate.key.value : candidate.key) === String(step));
        if (!pair) break;
        const key = pair.key as Node | null;
        const value = pair.value as Node | null;
        const keyOffset = key?.range?.[0] ?? offset;
        const pointAtKey = options?.key === true || !value || !isScalar(value);
        offset = last && pointAtKey ? keyOffset : (value?.range?.[0] ?? keyOffset);
        node = value;
      } else if (isSeq(node) && typeof step === 'number') {
        const item = node.items[step] as Node | undefined;
        if (!item) break;
        offset = dashBefore(text, item.range?.[0] ?? offset);
        node = item;
      } else {
        break;
      }
    }
    if (path.length === 0 && isMap(doc.contents)) offset = doc.contents.range[0];
    return at(offset);
  };

  const firstAlias = (): SourceLocation => {
    let found: number | undefined;
    visit(doc, {
      Alias(_key, alias) {
        found = alias.range?.[0];
        return visit.BREAK;
      },
    });
    return at(found ?? 0);
  };
  return { doc, diagnostics, locate, firstAlias };
}

/** The `-` of a block list item whose node starts at `offset` (the node itself in flow lists). */
function dashBefore(text: string, offset: number): number {
  let cursor = offset - 1;
  while (cursor >= 0 && (text[cursor] === ' ' || text[cursor] === '\t')) cursor -= 1;
  return cursor >= 0 && text[cursor] === '-' ? cursor : offset;
}
