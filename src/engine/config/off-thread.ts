/**
 * Large config files parsed so that the main thread stays free for signals (README "Exit
 * codes": an interrupt ends any command at once). Node runs a signal handler only when the
 * event loop turns, and the `yaml` package needs seconds for the positioned document of a file
 * of a few megabytes, during which neither Ctrl-C nor SIGTERM could be answered. Node has no
 * other way to act on SIGTERM during synchronous work (vm's breakOnSigint covers SIGINT only),
 * so the slow part moves to a worker thread and the main thread awaits it:
 *
 * - a large YAML file that the fast path declines (anchors, tags, syntax errors) is parsed in
 *   the worker, which keeps its positioned document and answers where a path is declared;
 * - a large file that the fast path reads (its data in a second or less) is positioned in the
 *   worker when its locations are first needed in bulk (`prepareLocate`, awaited before its
 *   schema problems are located); other locations in it are built here as before. A file of
 *   largeLocateChars or more is never positioned whole, here or there: large-locate.ts finds
 *   its paths from its data, positioning only small parts of it.
 *
 * Everything else a file can cause is bounded: aliases by the expanded size, schema problems by
 * their number (extract.ts). Small files (most configs) never start the worker, and without the
 * worker's script (running from source) everything is parsed on this thread, as before.
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import { parseJson, type JsonValue } from '../../core/json.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import { positionsWorkerFile } from './positions-worker-file.js';
import {
  fromFastData,
  hasUnlocated,
  isJsonFile,
  largeLocateChars,
  largestPositionedChars,
  lazyPositions,
  maxConfigFileBytes,
  parseConfigText,
  parseWithoutPositions,
  readConfigText,
  sayWhenLocated,
  sayWhenScanned,
  sourceProblem,
  tooLargeToPosition,
  type ParsedSource,
  type Positions,
  type WrittenScalar,
} from './source.js';

/**
 * Files of this many characters or more are positioned off the main thread (about a second of
 * `yaml` parsing); YAML files of this many bytes on disk may go to the second lane.
 */
export const offThreadChars = 1 << 20;

/** How long a location may take to come back before it is given as the file's start (a worker that died). */
const LOCATE_WAIT_MS = 10_000;

export type ToWorker =
  | { type: 'data'; id: number; text: string }
  | { type: 'parse'; id: number; file: string; text: string }
  | { type: 'prepare'; id: number; file: string; text: string }
  | { type: 'locate'; id: number; path: ConfigPath; key: boolean }
  | { type: 'scalar'; id: number; path: ConfigPath };

/**
 * What the fast path read: JSON text when JSON says it exactly (the main thread parses that
 * faster than it takes a structured clone), else the data itself; undefined when it declined.
 */
export type FastRead = { json: string } | { data: JsonValue } | undefined;

export type FromWorker =
  | { type: 'data'; id: number; read: FastRead }
  | { type: 'parsed'; id: number; data: JsonValue | undefined; diagnostics: Diagnostic[]; mayHoldReferences?: boolean }
  | { type: 'prepared'; id: number }
  | { type: 'failed'; id: number; message: string };

interface Pending {
  resolve: (message: FromWorker) => void;
  reject: (error: Error) => void;
}

/**
 * A worker thread running positions-worker: the process's one positioning worker (`get`), started
 * on first need, or a second lane of reading (`start`, ended by its user). Neither keeps the
 * process alive by itself.
 */
class PositionsWorker {
  private static started: PositionsWorker | undefined;
  private static unavailable = false;
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private dead: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly flag: Int32Array,
    private readonly port: MessagePort,
  ) {
    worker.on('message', (message: FromWorker) => this.settle(message));
    worker.on('error', (error: Error) => this.stop(error));
    worker.on('exit', (code: number) => this.stop(new Error(`the parsing thread ended (exit code ${code})`)));
    // After the listeners: a 'message' listener refs the worker's port again, and an idle thread must not keep a finished command running.
    worker.unref();
  }

  static get(): PositionsWorker | undefined {
    if (PositionsWorker.started && !PositionsWorker.started.dead) return PositionsWorker.started;
    return (PositionsWorker.started = PositionsWorker.start());
  }

  /** A worker of its own (undefined when there is no worker script, or no thread can start). */
  static start(): PositionsWorker | undefined {
    if (PositionsWorker.unavailable || !existsSync(positionsWorkerFile)) return undefined;
    try {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(positionsWorkerFile, { workerData: { flag, port: port2 }, transferList: [port2] });
      return new PositionsWorker(worker, flag, port1);
    } catch {
      PositionsWorker.unavailable = true;
      return undefined;
    }
  }

  /** Ends the thread (a lane's, once read): its heap, which held what it read, goes with it. */
  async end(): Promise<void> {
    await this.worker.terminate();
  }

  nextId(): number {
    return (this.lastId += 1);
  }

  /** Sends a request and waits for its answer, keeping the process alive meanwhile. */
  request(message: Extract<ToWorker, { type: 'data' | 'parse' | 'prepare' }>): Promise<FromWorker> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(message);
    });
  }

  /** Where `path` is declared in a document the worker has positioned; undefined when it cannot tell. */
  locate(id: number, path: ConfigPath, key: boolean): SourceLocation | undefined {
    return this.ask<SourceLocation>({ type: 'locate', id, path: [...path], key });
  }

  /** How the scalar at `path` is written in a document the worker has positioned; undefined when it cannot tell. */
  scalarAt(id: number, path: ConfigPath): WrittenScalar | undefined {
    return this.ask<WrittenScalar>({ type: 'scalar', id, path: [...path] });
  }

  /** A question answered through the synchronous channel (`T` is what the worker posts for it, or null). */
  private ask<T>(message: Extract<ToWorker, { type: 'locate' | 'scalar' }>): T | undefined {
    if (this.dead) return undefined;
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage(message);
    // Immediate once the document is positioned: the worker looks the path up in memory.
    if (Atomics.wait(this.flag, 0, 0, LOCATE_WAIT_MS) === 'timed-out') return undefined;
    const reply: { message: T | null } | undefined = receiveMessageOnPort(this.port);
    return reply?.message ?? undefined;
  }

  private settle(message: FromWorker): void {
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker.unref();
    if (message.type === 'failed') waiting.reject(new Error(message.message));
    else waiting.resolve(message);
  }

  private stop(error: Error): void {
    this.dead ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/**
 * A document's `locate`: on this thread until the worker has positioned it, then asking the
 * worker. The text comes from `source` when needed (read again from the file: a large file's
 * text is not kept beside its data). A file too large to position whole (largeLocateChars) is
 * located here from its `data`, never positioned by the worker.
 */
function workerLocator(worker: PositionsWorker, id: number, file: string, source: () => string | undefined, positioned: boolean, data?: () => JsonValue | undefined) {
  let where: 'here' | 'worker' = positioned ? 'worker' : 'here';
  let here: Positions | undefined;
  const start: SourceLocation = { file, line: 1, column: 1 };
  const locate: ParsedSource['locate'] = (path, options) =>
    where === 'worker' ? (worker.locate(id, path, options?.key === true) ?? start) : (here ??= lazyPositions(file, source, data)).locate(path, options);
  const scalarAt: NonNullable<ParsedSource['scalarAt']> = (path) => (where === 'worker' ? worker.scalarAt(id, path) : (here ??= lazyPositions(file, source, data)).scalarAt?.(path));
  const prepareLocate = async (): Promise<void> => {
    if (where === 'worker' || here) return;
    const text = source();
    if (text === undefined || (text.length >= largeLocateChars && data?.() !== undefined)) return;
    try {
      await worker.request({ type: 'prepare', id, file, text });
      where = 'worker';
    } catch {
      // Positioned here on first use, as for a small file.
    }
  };
  return { locate, scalarAt, prepareLocate };
}

/**
 * Config files read and parsed in order, their large positioned parts built off the main thread.
 * With a second CPU, the fast path of large YAML files is split between this thread and a second
 * lane (a worker of its own, ended once read): js-yaml is most of reading a large organization,
 * and its files parse independently. The largest file is read here, each next one where less is
 * queued (by size on disk); what the lane read comes back as JSON text, which this thread parses
 * in a fraction of the YAML's time. The lane's files are read and sent first; this thread's are
 * read one at a time as it parses them, so no more text is held than the lane's and one more.
 * `threads`: how many may read at once (default: the CPUs Node may use).
 */
export async function readConfigSourcesOffThread(files: readonly string[], limitBytes = maxConfigFileBytes, threads?: number): Promise<ParsedSource[]> {
  const candidates = secondLane(files, files.map(sizeOnDisk));
  // The CPUs are counted only for a large config (node:os is not loaded for a small one).
  const laned = candidates.length > 0 && (threads ?? availableParallelism()) > 1 ? candidates : [];
  const lane = laned.length > 0 ? PositionsWorker.start() : undefined;
  const fromLane = new Map<number, { read: ConfigText; answer?: Promise<LaneRead | undefined> }>();
  try {
    for (const index of laned) {
      if (!lane) break;
      const read = await readConfigText(files[index] ?? '', limitBytes);
      fromLane.set(index, 'text' in read ? { read, answer: laneRead(lane, read.text) } : { read });
    }
    const sources = new Map<number, ParsedSource>();
    // This thread's share first, while the lane reads its own; then what the lane read.
    const order = [...files.keys()].sort((a, b) => Number(fromLane.has(a)) - Number(fromLane.has(b)) || a - b);
    for (const index of order) {
      const file = files[index] ?? '';
      const laneEntry = fromLane.get(index);
      const read = laneEntry?.read ?? (await readConfigText(file, limitBytes));
      sources.set(index, 'text' in read ? await parseRead(file, read.text, read.again, await laneEntry?.answer) : read.source);
      // Its text is not kept beside its data.
      fromLane.delete(index);
    }
    return files.flatMap((_, index) => sources.get(index) ?? []);
  } finally {
    // Waited for: until the thread has ended, its heap (what it read) may still be there while the
    // command goes on to read a large state.
    await lane?.end();
  }
}

type ConfigText = Awaited<ReturnType<typeof readConfigText>>;

/** The file's size on disk, to share files between the threads before they are read; undefined when it cannot be told. */
function sizeOnDisk(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * Which files the second lane reads: large YAML files (by `sizes`, in bytes), largest first, each
 * to the side with less queued (the largest stays here). Exported for its test.
 */
export function secondLane(files: readonly string[], sizes: readonly (number | undefined)[]): number[] {
  const large = sizes.flatMap((size, index) => (size !== undefined && size >= offThreadChars && !isJsonFile(files[index] ?? '') ? [{ index, size }] : []));
  large.sort((a, b) => b.size - a.size || a.index - b.index);
  let here = 0;
  let there = 0;
  const laned: number[] = [];
  for (const { index, size } of large) {
    if (there < here) {
      laned.push(index);
      there += size;
    } else {
      here += size;
    }
  }
  return laned.sort((a, b) => a - b);
}

/** What the lane's fast path read: its data, or 'declined' (the positioned parse explains why). */
type LaneRead = { data: JsonValue } | 'declined';

/** What the lane read of `text`; undefined when its thread could not answer (then it is read here). */
async function laneRead(lane: PositionsWorker, text: string): Promise<LaneRead | undefined> {
  try {
    const answer = await lane.request({ type: 'data', id: lane.nextId(), text });
    if (answer.type !== 'data') return undefined;
    if (answer.read === undefined) return 'declined';
    return { data: 'json' in answer.read ? parseJson(answer.read.json) : answer.read.data };
  } catch {
    return undefined;
  }
}

/** One file's text parsed: from what the lane read of it, else by the fast path here, else positioned in the worker. */
async function parseRead(file: string, text: string, again: () => string | undefined, laned?: LaneRead): Promise<ParsedSource> {
  const known = laned === 'declined' ? undefined : laned?.data;
  const worker = text.length >= offThreadChars ? PositionsWorker.get() : undefined;
  if (!worker) return known === undefined ? parseConfigText(file, text, again) : sayWhenLocated(fromFastData(file, known, text, lazyPositions(file, again, () => known)));
  const id = worker.nextId();
  // The data, for locating a large file, once read (a too-deep document is located while it is read).
  const read: { source?: ParsedSource | undefined } = {};
  const fast = workerLocator(worker, id, file, again, false, () => read.source?.data ?? known);
  const source = known !== undefined ? fromFastData(file, known, text, fast) : laned === 'declined' ? undefined : parseWithoutPositions(file, text, fast);
  read.source = source;
  if (source) {
    // Its problems that need locating are located once it is positioned in the worker.
    // The few places the scan of large-locate.ts finds exactly need no positioned document (seconds).
    if (hasUnlocated(source) && !sayWhenScanned(source)) await fast.prepareLocate();
    return { ...sayWhenLocated(source), prepareLocate: fast.prepareLocate };
  }
  if (text.length >= largestPositionedChars) return tooLargeToPosition(file, text);
  try {
    const parsed = await worker.request({ type: 'parse', id, file, text });
    if (parsed.type !== 'parsed') throw new Error(`unexpected answer ${parsed.type}`);
    const positioned = workerLocator(worker, id, file, again, true);
    return {
      file,
      data: parsed.data,
      diagnostics: parsed.diagnostics,
      locate: positioned.locate,
      scalarAt: positioned.scalarAt,
      ...(parsed.mayHoldReferences === undefined ? {} : { mayHoldReferences: parsed.mayHoldReferences }),
    };
  } catch (error) {
    const start = { file, line: 1, column: 1 };
    return { file, data: undefined, diagnostics: [sourceProblem(file, 'source/unparsable', `The file could not be parsed: ${error instanceof Error ? error.message : String(error)}.`, start)], locate: () => start };
  }
}
