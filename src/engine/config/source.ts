/**
 * Reading one config file into plain data, with positions for diagnostics built only when one
 * is needed. JSON is parsed with JSON.parse; YAML by a fast data-only parser where it agrees
 * exactly with the `yaml` package (yaml-data.ts), else by the `yaml` package, which also
 * explains every syntax problem with its position. Either way the positioned document is built
 * lazily, on the first `locate`. Hostile input (devices, FIFOs, huge, binary, deeply nested,
 * alias bombs, duplicate keys, several documents) becomes diagnostics, never a crash or a hang.
 */
import { constants as bufferConstants } from 'node:buffer';
import { constants, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { CST, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Parser, visit, type Alias, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { formatLocation, type Diagnostic, type SourceLocation } from '../../core/diagnostics.js';
import { fileErrorReason, UsageError } from '../../core/errors.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import { parseJson, type JsonValue } from '../../core/json.js';
import { largeFileLocate, scanLocate, type SnippetPositions } from './large-locate.js';
import { flowDepthExceeded, jsonMemberBound, jsonSyntaxProblem, locationAt, locationsAt, offsetsAt, repeatedJsonKeys } from './text-scan.js';
import { fastPathRefusal, yamlDataOnly } from './yaml-data.js';
import { withExplicitCoreTags } from './yaml-core-tags.js';
import { ExpandedSizeExceeded, expandYamlDocument, MergeSourceError, RecursiveAlias, UnresolvedAlias } from './yaml-expand.js';
import { listed } from '../../core/words.js';

/**
 * Larger config files are refused while they are read (README "Configuration limits"): a guard
 * against runaway files, not a bound on organizations. The default takes the 100 MB groups
 * file of a 615,000-object organization with room to spare; PORTALCTL_MAX_FILE_SIZE changes it.
 */
export const maxConfigFileBytes = 256 * 1024 * 1024;
/** The largest limit that can be set: a config file is read into one string, and V8 allows no longer one. */
export const largestConfigFileLimit = bufferConstants.MAX_STRING_LENGTH;

const sizeUnits: Record<string, number> = { '': 1, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/**
 * The per-file limit: PORTALCTL_MAX_FILE_SIZE (bytes, or with kB/MB/GB or KiB/MiB/GiB) when
 * set, else the default. A value that is not a size, or past what can be read, is a usage error.
 */
export function configFileLimit(env: NodeJS.ProcessEnv): number {
  const text = env['PORTALCTL_MAX_FILE_SIZE']?.trim();
  if (text === undefined || text === '') return maxConfigFileBytes;
  const match = /^(\d+)\s*([kmg]i?b)?$/i.exec(text);
  const bytes = match ? Number(match[1]) * (sizeUnits[(match[2] ?? '').toLowerCase()] ?? Number.NaN) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > largestConfigFileLimit) {
    throw new UsageError(
      `PORTALCTL_MAX_FILE_SIZE must be a size from 1 byte to ${largestConfigFileLimit} bytes, such as 500MiB or 300000000, not "${text}".`,
    );
  }
  return bytes;
}

/** Deeper documents are refused; a valid config is about 15 levels deep. */
export const maxConfigDepth = 64;
/**
 * Nodes a YAML document that uses aliases may stand for once they are expanded (each scalar,
 * key, list and mapping one; an alias as many as the node it names), against "billion laughs"
 * documents: everything after parsing is linear in the expanded size, so this bounds the work a
 * small file can cause. It is near the largest organization of the benchmark written out in one
 * file (1.15 million nodes); a document without aliases is bounded by its size in bytes alone.
 */
export const maxExpandedNodes = 1_000_000;

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
  /**
   * How the scalar at `path` is written (its tag, quotes, text before references), for a hint
   * that says how to write it instead; undefined when it is no scalar, or where that is not known
   * (a large file is located from its data: large-locate.ts).
   */
  scalarAt?(path: ConfigPath): WrittenScalar | undefined;
  /**
   * False when no string of the data can hold a `${...}` reference (or its `$${` escape): the
   * text has no `${` and no backslash, which escapes could spell one with. Then resolving
   * references need not walk the data.
   */
  mayHoldReferences?: boolean;
  /**
   * Builds what locating needs off the main thread (a large file's positioned document), so that
   * many locations asked afterwards are quick; absent where locating is cheap enough here.
   */
  prepareLocate?(): Promise<void>;
}

/** How a scalar is written in its file. */
export interface WrittenScalar {
  /** Its tag as written (`!!str`, `!custom`); none for a scalar typed by its text. */
  tag?: string;
  /** In quotes (`"8"`, `'8'`), a block scalar (`|`, `>`), or plain (JSON's strings are quoted). */
  style: 'quoted' | 'block' | 'plain';
  /** Its text, when it is one, as written: before references are resolved (`${var:name}`). */
  text?: string;
}

/** What locates a source's paths and tells how its scalars are written. */
export type Positions = Pick<ParsedSource, 'locate' | 'scalarAt'>;

/** A source's positions as properties of its ParsedSource (no `scalarAt` where it is not known). */
function positionsOf(positions: Positions): Positions {
  return positions.scalarAt ? { locate: positions.locate, scalarAt: positions.scalarAt } : { locate: positions.locate };
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

/**
 * A config file's text, with a way to read it again for positions (see textAgain), or what
 * makes it unreadable as one (a device, binary data, not UTF-8, over the size limit).
 */
export async function readConfigText(file: string, limitBytes = maxConfigFileBytes): Promise<{ text: string; again: () => string | undefined } | { source: ParsedSource }> {
  const start = { file, line: 1, column: 1 };
  const unreadable = (diagnostic: Diagnostic): { source: ParsedSource } => ({ source: { file, data: undefined, diagnostics: [diagnostic], locate: () => start } });
  const read = await readRegularFile(file, limitBytes);
  if ('problem' in read) return unreadable(read.problem);
  const { bytes, stats } = read;
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    return unreadable(sourceProblem(file, 'source/binary', `The file contains binary data (a NUL byte at offset ${nul}); a config file is YAML or JSON text.`, positionOf(bytes.subarray(0, nul).toString('utf8'), start), 'UTF-8 YAML or JSON text'));
  }
  try {
    return { text: withLineFeeds(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)), again: textAgain(file, stats) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return unreadable(
      sourceProblem(file, 'source/encoding', `The file is not valid UTF-8 text (at byte offset ${offset}).`, positionOf(bytes.subarray(0, offset).toString('utf8'), start), 'UTF-8 YAML or JSON text'),
    );
  }
}

/**
 * The text with each lone CR (a classic Mac line end) as an LF. YAML and JSON take a CR as a line
 * break, but the `yaml` package reads one as part of a line (a whole CR-only file was one line of
 * errors) and every position here counts LFs. One character for one, so no offset moves. LF text
 * costs one indexOf (a few ms for 100 MB); CRLF text one per line.
 */
export function withLineFeeds(text: string): string {
  for (let index = text.indexOf('\r'); index !== -1; index = text.indexOf('\r', index + 1)) {
    if (text.charCodeAt(index + 1) !== 10) return text.replace(/\r(?!\n)/g, '\n');
  }
  return text;
}

/**
 * Where UTF-8 decoding of `bytes` first fails (known to fail somewhere), by the decoder's own
 * rules: the shortest prefix that fails, found by halving (a prefix may end inside a character,
 * which streaming decoding leaves pending), then the start of the character it broke. Only on the
 * error path; about thirty decodes of a large file.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const decodes = (length: number, stream: boolean): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, length), { stream });
      return true;
    } catch {
      return false;
    }
  };
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = good + Math.floor((bad - good) / 2);
    if (decodes(middle, true)) good = middle;
    else bad = middle;
  }
  // The byte at bad - 1 broke it; a character it should have continued starts up to three bytes before.
  let start = bad - 1;
  while (start > 0 && start > bad - 4 && !decodes(start, false)) start -= 1;
  return start;
}

export function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

/** A config file's text parsed on this thread: JSON by its name, YAML otherwise. */
export function parseConfigText(file: string, text: string, again?: () => string | undefined): ParsedSource {
  return isJsonFile(file) ? parseJsonSource(file, text, again) : parseYamlSource(file, text, again);
}

/**
 * The text parsed without building its positioned document (JSON, or YAML the fast path reads
 * exactly), located by `locate`; undefined for YAML that needs the positioned parse. Its
 * problems that need locating are said by sayWhenLocated, once the caller has prepared that.
 */
export function parseWithoutPositions(file: string, text: string, positions: Positions): ParsedSource | undefined {
  if (isJsonFile(file)) return parseJsonData(file, text, positions);
  const fast = yamlDataOnly(text);
  return fast ? fromFastData(file, fast.data, text, positions) : undefined;
}

/** A YAML file's source from the data its fast path read (here or on another thread), located by `positions` (then sayWhenLocated). */
export function fromFastData(file: string, data: JsonValue, text: string, positions: Positions): ParsedSource {
  return withDataChecks({ file, data, diagnostics: [], ...positionsOf(positions) }, text, false);
}

/**
 * The file's text read again, for positions, or undefined when the file is no longer the one
 * read (other inode, size or modification time: its positions would be wrong). A config is not
 * kept as text once its data is read: a large file's text would sit beside its data for the
 * rare run that needs a position.
 */
function textAgain(file: string, read: BigIntStats): () => string | undefined {
  return () => {
    try {
      const now = statSync(file, { bigint: true });
      if (now.ino !== read.ino || now.size !== read.size || now.mtimeNs !== read.mtimeNs) return undefined;
      return withLineFeeds(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(readFileSync(file)));
    } catch {
      return undefined;
    }
  };
}

/** Chunk size for reading past what stat said (a file still growing); a config is read whole, so this only bounds the steps. */
const readChunkBytes = 4 * 1024 * 1024;

/**
 * Reads a regular file, refusing devices, FIFOs and sockets before reading (a FIFO is opened
 * non-blocking so that opening it cannot hang) and counting the size while reading, because
 * `stat` does not tell the truth for every file.
 */
async function readRegularFile(file: string, limitBytes: number): Promise<{ bytes: Buffer; stats: BigIntStats } | { problem: Diagnostic }> {
  const start = { file, line: 1, column: 1 };
  const tooLarge = (size: string): { problem: Diagnostic } => ({
    problem: sourceProblem(
      file,
      'source/too-large',
      `The file has ${size} bytes; config files are limited to ${limitBytes} bytes (PORTALCTL_MAX_FILE_SIZE sets the limit).`,
      start,
      `at most ${limitBytes} bytes (split the config over several files, or raise PORTALCTL_MAX_FILE_SIZE)`,
    ),
  });
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { problem: sourceProblem(file, 'source/unreadable', `Cannot read the file: ${fileErrorReason(error)}.`) };
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) {
      const what = info.isFIFO() ? 'a named pipe' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : info.isSocket() ? 'a socket' : 'not a regular file';
      return { problem: sourceProblem(file, 'source/not-a-file', `The path is ${what}; a config is read from regular files only.`, start, 'a regular YAML or JSON file') };
    }
    const size = Number(info.size);
    if (size > limitBytes) return tooLarge(String(size));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // The first read is sized by stat (when it tells the truth: one read, then end of file),
      // later ones by chunks; never more than one byte past the limit.
      const wanted = total === 0 ? Math.max(size + 1, 64 * 1024) : readChunkBytes;
      const chunk = Buffer.allocUnsafe(Math.min(wanted, limitBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limitBytes) return tooLarge(`more than ${limitBytes}`);
    }
    return { bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total), stats: info };
  } catch (error) {
    return { problem: sourceProblem(file, 'source/unreadable', `Cannot read the file: ${fileErrorReason(error)}.`) };
  } finally {
    await handle.close();
  }
}

/**
 * Where the text `prefix` (the file's first bytes, decoded) ends, as positions count in the text
 * read: without its byte-order mark, which the decoder drops, and with a lone CR breaking a line.
 */
function positionOf(prefix: string, start: SourceLocation): SourceLocation {
  const lines = (prefix.charCodeAt(0) === 0xfeff ? prefix.slice(1) : prefix).split(/\r\n|\r|\n/);
  return { file: start.file, line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/**
 * Files of this many characters or more are never positioned whole (the `yaml` package's document
 * takes about 20 times the text in memory, and half a second per megabyte): large-locate.ts finds
 * a path in them from the data, positioning only a small part.
 */
export const largeLocateChars = 4 << 20;

/**
 * A `locate` (and `scalarAt`) that builds what it needs on first use only, from the text `source`
 * gives (undefined when the file changed since it was read: positions are then 1:1): the
 * positioned document, or for a large file whose `data` is known, large-locate.ts's scan.
 */
export function lazyPositions(file: string, source: () => string | undefined, data?: () => JsonValue | undefined): Required<Positions> {
  let built: Positions | null | undefined;
  const build = (): Positions | null => {
    if (built === undefined) {
      const text = source();
      const known = text !== undefined && text.length >= largeLocateChars ? data?.() : undefined;
      built = text === undefined ? null : known !== undefined ? { locate: largeFileLocate(file, text, known, isJsonFile(file), (snippet) => snippetPositions(file, snippet)) } : positionedDocument(file, text);
    }
    return built;
  };
  return {
    locate: (path, options) => build()?.locate(path, options) ?? { file, line: 1, column: 1 },
    scalarAt: (path) => build()?.scalarAt?.(path),
  };
}

/** A snippet of a large file positioned alone, with its data when it parsed cleanly. */
function snippetPositions(file: string, snippet: string): SnippetPositions {
  const document = positionedDocument(file, snippet);
  const clean = !document.exhausted && document.doc.errors.length === 0;
  let data: { value: JsonValue | undefined } | undefined;
  return { locate: document.locate, data: () => (data ??= { value: clean ? (document.doc.toJS() as JsonValue) : undefined }).value };
}

/** The text kept as it is, when there is no file to read it again from. (A function of its own, so that no other closure keeps the text.) */
export function kept(text: string): () => string {
  return () => text;
}

export function parseJsonSource(file: string, text: string, again?: () => string | undefined): ParsedSource {
  // The data, for locating a large file, once parsed (a too-deep document is located while it is parsed).
  const parsed: { source?: ParsedSource } = {};
  parsed.source = parseJsonData(file, text, lazyPositions(file, again ?? kept(text), () => parsed.source?.data));
  return sayWhenLocated(parsed.source);
}

function parseJsonData(file: string, text: string, positions: Positions): ParsedSource {
  let data: JsonValue;
  try {
    data = parseJson(text);
  } catch {
    const problem = jsonSyntaxProblem(text);
    return { file, data: undefined, diagnostics: [sourceProblem(file, 'json/syntax', `Invalid JSON: ${problem.message}`, locationAt(file, text, problem.offset), 'JSON text (or use a .yaml file)')], locate: positions.locate };
  }
  return withDataChecks({ file, data, diagnostics: [], ...positionsOf(positions) }, text, true);
}

/** Problems of one kind in a file (repeated keys, non-finite numbers) listed one by one; past these, one diagnostic says how many more there are. */
export const maxListedPerKind = 1000;

/** A JSON document whose objects repeat keys: each repeat said where it is, as YAML's are, and the data dropped (as YAML's is). */
function withoutRepeatedKeys(source: ParsedSource, text: string): void {
  const { repeated, total } = repeatedJsonKeys(text, maxListedPerKind + 1);
  if (total === 0) return;
  const listed = repeated.slice(0, maxListedPerKind);
  const where = locationsAt(source.file, text, repeated.flatMap(({ offset, first }) => [offset, first]));
  listed.forEach(({ key }, index) => {
    const first = where[2 * index + 1] as SourceLocation;
    source.diagnostics.push({
      severity: 'error',
      code: 'json/duplicate-key',
      message: `The key ${JSON.stringify(key)} appears twice in the same object (first at line ${first.line}, column ${first.column}); keys must be unique.`,
      location: where[2 * index] as SourceLocation,
      value: key,
      expected: 'each key once',
    });
  });
  if (total > listed.length) {
    const more = total - listed.length;
    source.diagnostics.push(
      sourceProblem(source.file, 'json/duplicate-key', `From here on the file repeats ${more.toLocaleString('en-US')} more ${more === 1 ? 'key' : 'keys'}, not listed (the first ${maxListedPerKind.toLocaleString('en-US')} are).`, where[2 * listed.length], 'each key once'),
    );
  }
  source.data = undefined;
}

export function parseYamlSource(file: string, text: string, again?: () => string | undefined): ParsedSource {
  const fast = yamlDataOnly(text);
  if (fast) return sayWhenLocated(fromFastData(file, fast.data, text, lazyPositions(file, again ?? kept(text), () => fast.data)));
  return text.length >= largestPositionedChars ? tooLargeToPosition(file, text) : parsePositionedYaml(file, text);
}

/**
 * YAML the fast path declines is read by the `yaml` package with positions, which takes about
 * twenty times the text in memory and half a second per megabyte: a file this large is refused
 * instead, at what made the fast path decline (a 100 MB file with one anchor ran a minute and a
 * half, then out of memory).
 */
export const largestPositionedChars = 16 << 20;

/** A YAML file too large for the positioned parse that the fast path declined: why, where. */
export function tooLargeToPosition(file: string, text: string): ParsedSource {
  const refusal = fastPathRefusal(text) ?? { offset: 0, feature: false, reason: 'it could not be read' };
  const location = locationAt(file, text, refusal.offset);
  const size = `${(text.length / (1 << 20)).toFixed(1)} MiB`;
  const limit = `${largestPositionedChars >> 20} MiB`;
  const diagnostic = refusal.feature
    ? sourceProblem(
        file,
        'yaml/large-file-features',
        `The file is ${size} and uses ${refusal.reason} (the first is here), which portalctl reads only in files under ${limit}: reading them takes the file positioned whole, about twenty times its size in memory.`,
        location,
        'in a file this large, no anchors, aliases, tags, explicit keys or directives: write the values out, split the file, or write it as JSON',
      )
    : sourceProblem(file, 'yaml/invalid', `Invalid YAML: ${refusal.reason}.`, location, `valid YAML (a file of ${size} is checked without the detailed positions a smaller one gets)`);
  return { file, data: undefined, diagnostics: [diagnostic], locate: () => location };
}

/** YAML the fast path declines (anchors, tags, errors...), read by the `yaml` package with positions. */
export function parsePositionedYaml(file: string, text: string): ParsedSource {
  let document: PositionedDocument;
  try {
    document = positionedDocument(file, text);
  } catch (error) {
    if (error instanceof RangeError) return tooDeepSource(file, text);
    throw error;
  }
  const source: ParsedSource = { file, data: undefined, diagnostics: document.diagnostics, locate: document.locate, scalarAt: document.scalarAt };
  if (document.exhausted) return tooDeepSource(file, text);
  if (document.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return source;
  try {
    source.data = expandYamlDocument(document.doc, maxExpandedNodes, (offset, shown) => source.diagnostics.push(collectionKeyProblem(file, shown, document.at(offset))));
  } catch (error) {
    if (error instanceof ExpandedSizeExceeded) {
      source.diagnostics.push(
        sourceProblem(
          file,
          'yaml/alias-limit',
          `The document's aliases expand it to more than ${maxExpandedNodes.toLocaleString('en-US')} nodes (its values, keys, lists and mappings, each alias counted as the nodes it stands for); refusing to expand it further.`,
          document.at(error.offset),
          `at most ${maxExpandedNodes.toLocaleString('en-US')} nodes once aliases are expanded: write the values out, or use fewer aliases`,
        ),
      );
      return source;
    }
    if (error instanceof RecursiveAlias) {
      source.diagnostics.push(sourceProblem(file, 'yaml/recursive-alias', `The alias *${error.aliasName} stands inside the node it names; its expansion would never end.`, document.at(error.offset), 'an alias of a node that is complete before the alias'));
      return source;
    }
    if (error instanceof MergeSourceError) {
      source.diagnostics.push(sourceProblem(file, 'yaml/merge-source', error.message, document.at(error.offset), 'a mapping, an alias of one, or a list of them'));
      return source;
    }
    if (error instanceof UnresolvedAlias) {
      source.diagnostics.push(sourceProblem(file, 'yaml/unresolved-alias', `Invalid YAML: ${error.message}`, document.at(error.offset)));
      return source;
    }
    if (error instanceof RangeError) return tooDeepSource(file, text);
    throw error;
  }
  return sayWhenLocated(withDataChecks(source, text, false, document.writtenNode));
}

/**
 * A list or mapping as a mapping key (`? [a, b]` then `: value`): every key of a config is a name,
 * so no schema could take it, and as text (`[ a, b ]`) it was an unknown property located at its
 * parent. Said at the key; its pair is left out, so the rest of the file is still checked.
 */
function collectionKeyProblem(file: string, shown: string, location: SourceLocation): Diagnostic {
  const what = shown.startsWith('{') ? 'mapping' : 'list';
  return sourceProblem(
    file,
    'yaml/collection-key',
    `This key is a ${what} (${shown}); a config's keys are names, and nothing in a config takes a ${what} as a key.`,
    location,
    'a name (text) as the key',
  );
}

function tooDeepProblem(location: SourceLocation): Diagnostic {
  return sourceProblem(location.file, 'source/too-deep', `The document is nested more than ${maxConfigDepth} levels deep.`, location, `at most ${maxConfigDepth} levels`);
}

/** A document too deep to parse: located at its deepest flow bracket when there is one. */
function tooDeepSource(file: string, text: string): ParsedSource {
  const start = { file, line: 1, column: 1 };
  const offset = flowDepthExceeded(text, maxConfigDepth);
  return { file, data: undefined, diagnostics: [tooDeepProblem(offset === undefined ? start : locationAt(file, text, offset))], locate: () => start };
}

/**
 * The checks of a document's data as read: its depth, a JSON text's repeated keys (which its data
 * no longer shows) and numbers no portal takes. One walk of the data serves them all.
 */
function withDataChecks(source: ParsedSource, text: string, json: boolean, writtenNode?: WrittenNode): ParsedSource {
  const census: Census = { keys: 0, nonFinite: 0 };
  withDepthCheck(source, text, census);
  // JSON.parse keeps the last of a repeated key, dropping a declaration without a word; the YAML
  // parser refuses one. The text is searched for them only when it may hold more keys than the data.
  if (json && source.data !== undefined && jsonMemberBound(text) > census.keys) withoutRepeatedKeys(source, text);
  if (source.data !== undefined && census.nonFinite > 0) {
    const data = source.data;
    unlocated.set(source, (by) => {
      const locate = by === 'scan' ? scanLocate(source.file, text, data, json, (snippet) => snippetPositions(source.file, snippet)) : source.locate;
      return sayNonFiniteNumbers(source, data, text, census.nonFinite, locate, writtenNode);
    });
  }
  return source;
}

/**
 * Problems of a source's data found while it was read, to be said where they are once its
 * locations can be asked for: a file of megabytes is positioned off the main thread first
 * (prepareLocate), and its data must be known to locate in it from the data (large-locate.ts).
 * They keep the text until then, which only a source with such a problem does.
 */
const unlocated = new WeakMap<ParsedSource, (by: 'positions' | 'scan') => boolean>();

/** Whether the source has problems to say once it can be located (see `unlocated`). */
export function hasUnlocated(source: ParsedSource): boolean {
  return unlocated.has(source);
}

/** The source with the problems of its data that needed locating said (see `unlocated`). */
export function sayWhenLocated(source: ParsedSource): ParsedSource {
  const say = unlocated.get(source);
  unlocated.delete(source);
  say?.('positions');
  return source;
}

/**
 * Says the problems of its data that need locating (see `unlocated`) where large-locate.ts's scan
 * finds them, without positioning the whole file (seconds for a file of megabytes, for a few
 * numbers); false, saying nothing, when the scan cannot place one of them exactly (then prepare
 * the positions and sayWhenLocated).
 */
export function sayWhenScanned(source: ParsedSource): boolean {
  const said = unlocated.get(source)?.('scan') ?? true;
  if (said) unlocated.delete(source);
  return said;
}

/**
 * Refuses documents nested deeper than maxConfigDepth. The walk recurses at most
 * maxConfigDepth levels and builds nothing; only a document that is too deep is walked again
 * for the path to the first node too deep (one shared path array, no copy per node).
 */
function withDepthCheck(source: ParsedSource, text: string, census: Census): ParsedSource {
  if (source.data !== undefined && !text.includes('${') && !text.includes('\\')) source.mayHoldReferences = false;
  if (source.data === undefined || !deeperThan(source.data, maxConfigDepth, census)) return source;
  const path: (string | number)[] = [];
  const tooDeep = (value: JsonValue): boolean => {
    if (typeof value !== 'object' || value === null) return false;
    if (path.length >= maxConfigDepth) return true;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        path.push(index);
        if (tooDeep(value[index] as JsonValue)) return true;
        path.pop();
      }
    } else {
      for (const key of Object.keys(value)) {
        path.push(key);
        if (tooDeep(value[key] as JsonValue)) return true;
        path.pop();
      }
    }
    return false;
  };
  tooDeep(source.data);
  // A deep flow collection is located by scanning its brackets; positioning it could exhaust the stack.
  const offset = flowDepthExceeded(text, maxConfigDepth);
  source.diagnostics.push(tooDeepProblem(offset === undefined ? source.locate(path) : locationAt(source.file, text, offset)));
  source.data = undefined;
  return source;
}

/** What the depth check's walk counts on its way, for checks that would otherwise walk the data again. */
interface Census {
  /** The keys of the objects walked (JSON.parse keeps one of a repeated key). */
  keys: number;
  /** The numbers that are not finite: 1e400 (past what a double holds), .inf, .nan. */
  nonFinite: number;
}

/** Whether a collection sits more than `levels` collections deep inside `value`; counts into `census` what it walks. */
function deeperThan(value: JsonValue, levels: number, census: Census): boolean {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value)) census.nonFinite += 1;
    return false;
  }
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) if (deeperThan(value[index] as JsonValue, levels - 1, census)) return true;
    return false;
  }
  for (const key in value) {
    census.keys += 1;
    if (deeperThan(value[key] as JsonValue, levels - 1, census)) return true;
  }
  return false;
}

/**
 * Each number of the data that is not finite, said where it is written: JSON cannot write one, so
 * no request to the portal can carry it, and a text that uses it (`${var:}`) would read
 * "Infinity". JSON.parse and YAML read a number past what a double holds (1e400) as infinity;
 * YAML also writes .inf and .nan. The data is kept, so the rest of the file is still checked;
 * the schema's echo of the same value is left out (schema-diagnostics.ts). Located by `locate`;
 * false, saying nothing, when it cannot place one of them.
 */
function sayNonFiniteNumbers(source: ParsedSource, data: JsonValue, text: string, total: number, locate: (path: ConfigPath) => SourceLocation | undefined, writtenNode?: WrittenNode): boolean {
  const found: { path: (string | number)[]; value: number }[] = [];
  const path: (string | number)[] = [];
  // As many as are listed, and one more for where the rest start.
  const walk = (value: JsonValue): void => {
    if (found.length > maxListedPerKind) return;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) found.push({ path: [...path], value });
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        path.push(index);
        walk(value[index] as JsonValue);
        path.pop();
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        path.push(key);
        walk(value[key] as JsonValue);
        path.pop();
      }
    }
  };
  walk(data);
  const shown = found.slice(0, maxListedPerKind);
  // A number an alias stands for is said once, where it is written (the anchor's node), which is
  // where it is fixed for every use: each alias is named there, not said again.
  const nodes = found.map(({ path: at }) => writtenNode?.(at));
  const locations = found.map(({ path: at }) => locate(at));
  if (!locations.every((location): location is SourceLocation => location !== undefined)) return false;
  const written = numbersWrittenAt(text, locations);
  const expected = 'a finite number (between about -1.8e308 and 1.8e308), or text in quotes';
  const said = new Map<number | string, { value: number; index: number; aliases: SourceLocation[] }>();
  shown.forEach(({ value }, index) => {
    const node = nodes[index];
    const key = node?.offset ?? formatLocation(locations[index]);
    const entry = said.get(key);
    if (!entry) said.set(key, { value, index, aliases: node?.alias ? [node.alias] : [] });
    else if (node?.alias) entry.aliases.push(node.alias);
    // Said where the node itself is declared (the anchor), when the data holds it there too.
    else entry.index = index;
  });
  for (const { value, index, aliases } of said.values()) {
    const infinity = `${value > 0 ? '' : 'minus '}infinity`;
    const literal = written[index];
    const message = Number.isNaN(value)
      ? "This value (.nan) is not a number: JSON, what the portal's API takes, cannot write it."
      : literal !== undefined && /inf/i.test(literal)
        ? `This value (${literal}) is ${infinity}, which JSON, what the portal's API takes, cannot write.`
        : `This value is too ${value > 0 ? 'large' : 'far below zero'} to be a number: it reads as ${infinity}, which JSON, what the portal's API takes, cannot write.`;
    const places = aliases.map((alias) => `line ${alias.line}, column ${alias.column}`);
    const standing = places.length === 0 ? '' : ` The ${places.length === 1 ? 'alias' : 'aliases'} at ${listed(places)} ${places.length === 1 ? 'stands' : 'stand'} for it too.`;
    source.diagnostics.push({ ...sourceProblem(source.file, 'source/non-finite-number', message + standing, locations[index], expected), value: written[index] ?? shownNonFinite(value) });
  }
  if (total > shown.length) {
    const more = total - shown.length;
    source.diagnostics.push(
      sourceProblem(source.file, 'source/non-finite-number', `From here on the file holds ${more.toLocaleString('en-US')} more ${more === 1 ? 'number' : 'numbers'} that ${more === 1 ? 'is' : 'are'} not finite, not listed (the first ${maxListedPerKind.toLocaleString('en-US')} are).`, locations[shown.length], expected),
    );
  }
  return true;
}

/** A non-finite number as YAML writes it (where how the file writes it is not known). */
function shownNonFinite(value: number): string {
  return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
}

/** A number's text as written at each location (1e400, -.inf), or undefined where no number starts there. */
function numbersWrittenAt(text: string, locations: readonly SourceLocation[]): (string | undefined)[] {
  return offsetsAt(text, locations).map((offset) => {
    // A block list's item is located at its dash (`- 1e400`): the number follows it.
    if (text.charCodeAt(offset) === 45 && (text.charCodeAt(offset + 1) === 32 || text.charCodeAt(offset + 1) === 9)) offset = firstAfterSpaces(text, offset + 1);
    numberToken.lastIndex = offset;
    const token = numberToken.exec(text)?.[0];
    return token !== undefined && /^[-+]?(?:[0-9]|\.[0-9]|\.(?:inf|nan)$)/i.test(token) ? token : undefined;
  });
}

function firstAfterSpaces(text: string, offset: number): number {
  while (text.charCodeAt(offset) === 32 || text.charCodeAt(offset) === 9) offset += 1;
  return offset;
}

/** A plain scalar up to where a number ends in YAML or JSON: a space, a flow indicator, a comment. */
const numberToken = /[^\s,\]}#]+/y;

interface PositionedDocument {
  doc: Document;
  diagnostics: Diagnostic[];
  /** The `yaml` package ran out of stack (a document nested thousands of levels deep). */
  exhausted: boolean;
  locate: ParsedSource['locate'];
  scalarAt: NonNullable<ParsedSource['scalarAt']>;
  writtenNode: WrittenNode;
  at(offset: number): SourceLocation;
}

/**
 * Where the node at `path` is written (its offset: inside what an alias names, when one stands on
 * the way) and the first alias on the way; undefined when there is no node there.
 */
type WrittenNode = (path: ConfigPath) => { offset: number; alias?: SourceLocation } | undefined;

function kebab(code: string): string {
  return code.toLowerCase().replace(/_/g, '-');
}

function keyText(key: unknown): string {
  return String(isScalar(key) ? key.value : key);
}

/**
 * The line of the plain value starting at `offset`, its value in quotes: `name: "Note: read
 * this"` (single quotes when it holds a double quote or a backslash, which double quotes escape).
 */
function quotedOnItsLine(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const before = text.slice(lineStart, offset).trim();
  // A plain value ends before a comment (" #").
  const value = text.slice(offset, lineEnd < 0 ? text.length : lineEnd).replace(/\s+#.*$/, '').trimEnd();
  const quoted = /["\\]/.test(value) ? `'${value.replace(/'/g, "''")}'` : `"${value}"`;
  return before === '' ? quoted : `${before} ${quoted}`;
}

function positionedDocument(file: string, text: string): PositionedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, stringKeys: false, customTags: withExplicitCoreTags });
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { file, line, column: col };
  };
  const exhausted = doc.errors.some((error) => /call stack/i.test(error.message));
  const syntax: Diagnostic[] = [
    ...doc.errors.map((error): Diagnostic => {
      if (error.code === 'DUPLICATE_KEY') return duplicateKeyProblem(doc, error.pos[0], at);
      if (error.code === 'MULTIPLE_DOCS') {
        return {
          severity: 'error',
          code: 'yaml/multiple-docs',
          message: 'The file holds more than one YAML document (a second starts here); a config file is one document.',
          location: at(error.pos[0]),
          expected: 'one document per file: split the documents into separate files in the config directory',
        };
      }
      // `description: Note: read this`, `name: ${env: X}`: a ": " in a plain value begins a mapping there.
      if (error.code === 'BLOCK_AS_IMPLICIT_KEY' && error.message.startsWith('Nested mappings')) {
        return {
          severity: 'error',
          code: 'yaml/colon-in-value',
          message: 'This value holds ": " (a colon, then a space), where YAML begins a mapping, and a mapping cannot begin on its key\'s line.',
          location: at(error.pos[0]),
          expected: `the value in quotes (${quotedOnItsLine(text, error.pos[0])}), or no space after the colon`,
        };
      }
      return { severity: 'error', code: `yaml/${kebab(error.code)}`, message: `Invalid YAML: ${error.message.split('\n')[0]}`, location: at(error.pos[0]) };
    }),
  ];
  const diagnostics: Diagnostic[] = [
    ...(syntax.length > 0 && !exhausted ? withRootCause(syntax, text, doc.errors.map((error) => error.pos[0]), at) : syntax),
    ...doc.warnings.map((warning): Diagnostic => ({
      severity: 'warning',
      code: `yaml/${kebab(warning.code)}`,
      message: warning.message.split('\n')[0] ?? warning.code,
      location: at(warning.pos[0]),
    })),
  ];

  // Built on first use, so that locating is O(path length) however many diagnostics there are:
  // the yaml package's Alias.resolve scans the whole document, and a key search the whole mapping.
  let aliasTargets: Map<Alias, unknown> | undefined;
  const resolveAlias = (alias: Alias): unknown => {
    if (!aliasTargets) {
      const targets = new Map<Alias, unknown>();
      const anchors = new Map<string, unknown>();
      visit(doc, {
        Node(_key, node) {
          if (isAlias(node)) targets.set(node, anchors.get(node.source));
          else if (node.anchor !== undefined) anchors.set(node.anchor, node);
        },
      });
      aliasTargets = targets;
    }
    return aliasTargets.get(alias);
  };
  const pairsByKey = new WeakMap<YAMLMap, Map<string, Pair>>();
  const pairOf = (map: YAMLMap, step: string): Pair | undefined => {
    let byKey = pairsByKey.get(map);
    if (!byKey) {
      byKey = new Map();
      // A list or mapping as a key is no key of the data (collectionKeyProblem).
      for (const candidate of map.items) if (isPair(candidate) && !isMap(candidate.key) && !isSeq(candidate.key) && !byKey.has(keyText(candidate.key))) byKey.set(keyText(candidate.key), candidate);
      pairsByKey.set(map, byKey);
    }
    return byKey.get(step);
  };
  const locate: ParsedSource['locate'] = (path, options) => {
    let node: unknown = doc.contents;
    let offset = 0;
    for (let index = 0; index < path.length; index += 1) {
      const step = path[index];
      const last = index === path.length - 1;
      if (isAlias(node)) node = resolveAlias(node);
      if (isMap(node)) {
        const pair = pairOf(node, String(step));
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
  const scalarAt: PositionedDocument['scalarAt'] = (path) => {
    let node: unknown = doc.contents;
    for (const step of path) {
      if (isAlias(node)) node = resolveAlias(node);
      if (isMap(node)) node = pairOf(node, String(step))?.value;
      else if (isSeq(node) && typeof step === 'number') node = node.items[step];
      else return undefined;
    }
    // An alias is written as its anchored node is.
    if (isAlias(node)) node = resolveAlias(node);
    if (!isScalar(node)) return undefined;
    const style = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 'quoted' : node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' ? 'block' : 'plain';
    return { ...(node.tag === undefined ? {} : { tag: node.tag.replace(/^tag:yaml\.org,2002:/, '!!') }), style, ...(typeof node.value === 'string' ? { text: node.value } : {}) };
  };

  const writtenNode: WrittenNode = (path) => {
    let node: unknown = doc.contents;
    let alias: Alias | undefined;
    const followed = (): void => {
      if (!isAlias(node)) return;
      alias ??= node;
      node = resolveAlias(node);
    };
    /** The value of `step` in `map`, or in the mappings a YAML 1.1 merge key (`<<: *defaults`) names, the first that has it. */
    const member = (map: YAMLMap, step: string, depth = 0): unknown => {
      const own = pairOf(map, step);
      if (own || depth > maxConfigDepth) return own?.value;
      // The yaml package reads a merge key of a YAML 1.1 document as a scalar holding a symbol.
      const merged = map.items.find((pair) => isScalar(pair.key) && typeof pair.key.value === 'symbol')?.value;
      for (const source of isSeq(merged) ? merged.items : [merged]) {
        const target = isAlias(source) ? resolveAlias(source) : source;
        const found = isMap(target) ? member(target, step, depth + 1) : undefined;
        if (found === undefined) continue;
        if (isAlias(source)) alias ??= source;
        return found;
      }
      return undefined;
    };
    for (const step of path) {
      followed();
      if (isMap(node)) node = member(node, String(step));
      else if (isSeq(node) && typeof step === 'number') node = node.items[step];
      else return undefined;
    }
    followed();
    const offset = (node as Node | null | undefined)?.range?.[0];
    if (offset === undefined) return undefined;
    return alias?.range ? { offset, alias: at(alias.range[0]) } : { offset };
  };

  return { doc, diagnostics, exhausted, locate, scalarAt, writtenNode, at };
}

/** An opening `[`, `{` or quote that is never closed, found in the parser's concrete syntax tree. */
interface Unclosed {
  offset: number;
  opening: string;
  closing: string;
  what: string;
}

function firstUnclosed(text: string): Unclosed | undefined {
  let found: Unclosed | undefined;
  const consider = (token: CST.Token | undefined): void => {
    if (!token) return;
    let candidate: Unclosed | undefined;
    if (token.type === 'flow-collection') {
      const opening = token.start.source;
      const closing = opening === '[' ? ']' : '}';
      if (!token.end.some((end) => end.source === closing)) candidate = { offset: token.offset, opening, closing, what: opening === '[' ? 'list' : 'mapping' };
    } else if (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') {
      const quote = token.source[0] ?? '"';
      const body = token.source.slice(1);
      const closed = quote === '"' ? /(^|[^\\])(\\\\)*"$/.test(body) : body.endsWith("'");
      if (!closed) candidate = { offset: token.offset, opening: quote, closing: quote, what: 'quoted string' };
    }
    if (candidate && (!found || candidate.offset < found.offset)) found = candidate;
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    CST.visit(token, (item) => {
      consider(item.key ?? undefined);
      consider(item.value);
    });
  }
  return found;
}

/**
 * YAML's errors after a bracket or quote that is never closed are consequences of it (one
 * unclosed `[` gave eleven, the first on the next line and none on its own): the root cause is
 * reported first, at the bracket, and the errors it caused are folded into it.
 */
function withRootCause(syntax: Diagnostic[], text: string, offsets: readonly number[], at: (offset: number) => SourceLocation): Diagnostic[] {
  const unclosed = firstUnclosed(text);
  if (!unclosed) return syntax;
  const caused = syntax.filter((_diagnostic, index) => (offsets[index] ?? 0) >= unclosed.offset && syntax[index]?.code !== 'yaml/duplicate-key');
  if (caused.length === 0) return syntax;
  const where = at(unclosed.offset);
  const gaveUp = caused[0]?.location;
  const folded = caused.length > 1 ? ` (${caused.length} YAML errors after it follow from it and are not shown)` : '';
  const root: Diagnostic = {
    severity: 'error',
    code: unclosed.what === 'quoted string' ? 'yaml/unclosed-quote' : 'yaml/unclosed-bracket',
    message:
      `This ${unclosed.opening} opens a ${unclosed.what} that is never closed` +
      `${gaveUp && gaveUp.line !== where.line ? `: the parser read on to line ${gaveUp.line} looking for its ${unclosed.closing}` : ''}${folded}.`,
    location: where,
    value: text.slice(unclosed.offset, text.indexOf('\n', unclosed.offset) === -1 ? undefined : text.indexOf('\n', unclosed.offset)).trim(),
    expected: `a ${unclosed.closing} that closes it${unclosed.what === 'list' ? ', e.g. [a, b]' : unclosed.what === 'mapping' ? ', e.g. { id: x }' : ''}`,
  };
  return [root, ...syntax.filter((diagnostic) => !caused.includes(diagnostic))];
}

/** A duplicate key, named, with where it was first declared. */
function duplicateKeyProblem(doc: Document, offset: number, at: (offset: number) => SourceLocation): Diagnostic {
  let name: string | undefined;
  let first: SourceLocation | undefined;
  visit(doc, {
    Map(_key, map) {
      const index = map.items.findIndex((pair) => (pair.key as Node | null)?.range?.[0] === offset);
      if (index === -1) return undefined;
      name = keyText(map.items[index]?.key);
      const earlier = map.items.slice(0, index).find((pair) => keyText(pair.key) === name);
      const earlierOffset = (earlier?.key as Node | null | undefined)?.range?.[0];
      if (earlierOffset !== undefined) first = at(earlierOffset);
      return visit.BREAK;
    },
  });
  const shown = name === undefined ? 'This key' : `The key "${name}"`;
  return {
    severity: 'error',
    code: 'yaml/duplicate-key',
    message: `${shown} appears twice in the same mapping${first ? ` (first at line ${first.line}, column ${first.column})` : ''}; keys must be unique.`,
    location: at(offset),
    ...(name === undefined ? {} : { value: name }),
    expected: 'each key once',
  };
}

/** The `-` of a block list item whose node starts at `offset` (the node itself in flow lists). */
function dashBefore(text: string, offset: number): number {
  let cursor = offset - 1;
  while (cursor >= 0 && (text[cursor] === ' ' || text[cursor] === '\t')) cursor -= 1;
  return cursor >= 0 && text[cursor] === '-' ? cursor : offset;
}
