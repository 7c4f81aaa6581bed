/**
 * The worker thread of off-thread.ts: it builds the positioned documents (the `yaml` package's
 * located nodes) of large config files, which takes seconds for a file of megabytes, and answers
 * where a path is declared; as a second lane of reading, it reads large YAML files' data. Messages in off-thread.ts's `ToWorker`; answers to `locate` go through
 * the synchronous channel (a port and a shared flag), the others to the parent port.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { SourceLocation } from '../../core/diagnostics.js';
import type { JsonValue } from '../../core/json.js';
import type { FastRead, ToWorker, FromWorker } from './off-thread.js';
import { kept, lazyPositions, parsePositionedYaml, type Positions, type WrittenScalar } from './source.js';
import { yamlDataOnly } from './yaml-data.js';

interface SyncChannel {
  flag: Int32Array;
  port: MessagePort;
}

function isSyncChannel(value: unknown): value is SyncChannel {
  return typeof value === 'object' && value !== null && 'flag' in value && value.flag instanceof Int32Array && 'port' in value;
}

const channel: unknown = workerData;
const parent = parentPort;
if (!parent || !isSyncChannel(channel)) throw new Error('positions-worker runs as the worker of off-thread.ts');
const sync = channel;
const locators = new Map<number, Positions>();

/** Whether JSON text says `value` exactly: no number JSON cannot write (.inf, .nan, -0). A loop, not recursion: data as deep as js-yaml read. */
function jsonSays(value: JsonValue): boolean {
  const pending: JsonValue[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next === 'number') {
      if (!Number.isFinite(next) || Object.is(next, -0)) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const key in next) pending.push(next[key] as JsonValue);
    }
  }
  return true;
}

/** The fast path's read of a file, as off-thread.ts's second lane wants it. */
function fastRead(text: string): FastRead {
  const fast = yamlDataOnly(text);
  if (!fast) return undefined;
  return jsonSays(fast.data) ? { json: JSON.stringify(fast.data) } : { data: fast.data };
}

function answer(message: FromWorker): void {
  parent?.postMessage(message);
}

/** An answer through the synchronous channel: a location, or how a scalar is written. */
function answerLocate(answer: SourceLocation | WrittenScalar | undefined): void {
  sync.port.postMessage(answer ?? null);
  Atomics.store(sync.flag, 0, 1);
  Atomics.notify(sync.flag, 0);
}

parent.on('message', (message: ToWorker) => {
  try {
    switch (message.type) {
      case 'data': {
        answer({ type: 'data', id: message.id, read: fastRead(message.text) });
        break;
      }
      case 'parse': {
        const source = parsePositionedYaml(message.file, message.text);
        locators.set(message.id, { locate: source.locate, scalarAt: source.scalarAt });
        answer({ type: 'parsed', id: message.id, data: source.data, diagnostics: source.diagnostics, ...(source.mayHoldReferences === undefined ? {} : { mayHoldReferences: source.mayHoldReferences }) });
        break;
      }
      case 'prepare': {
        const positions = lazyPositions(message.file, kept(message.text));
        // Locating the root builds the whole positioned document now, not on the first real question.
        positions.locate([]);
        locators.set(message.id, positions);
        answer({ type: 'prepared', id: message.id });
        break;
      }
      case 'locate': {
        answerLocate(locators.get(message.id)?.locate(message.path, message.key ? { key: true } : undefined));
        break;
      }
      case 'scalar': {
        answerLocate(locators.get(message.id)?.scalarAt?.(message.path));
        break;
      }
    }
  } catch (error) {
    if (message.type === 'locate' || message.type === 'scalar') answerLocate(undefined);
    else answer({ type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
  }
});
