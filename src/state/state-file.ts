/**
 * Reading a state file in serializeState's layout line by line, in chunks: each entry's line is
 * parsed on its own and dropped, so the file is never held whole, neither as bytes nor as text,
 * beside the config a plan has already read.
 *
 * The layout (format.ts): `{`, then one top-level field per line (`  "key": <JSON>,`), where
 * `resources` and `unknownOutcomes` hold one entry per line (`    "<address>": <JSON>,`) between
 * `  "resources": {` and `  }`, then `}`. A file that departs from it in any way (the indented
 * files of earlier releases, a hand edit) is reported as such, and read whole by the caller.
 */
import { open } from 'node:fs/promises';
import { assertReadableVersion, StateAssembler, type StateDocument } from './format.js';

/** Bytes read at a time. */
const CHUNK_BYTES = 1024 * 1024;

/** Thrown inside: the file is not in the line layout. */
class OtherLayout extends Error {}

/** The sections whose entries are one per line. */
const SECTIONS = new Set(['resources', 'unknownOutcomes']);

/** `"<key>": ` at the start of `line` from `at`: the key and where its value starts. */
function keyAt(line: string, at: number): { key: string; value: number } {
  if (line.charCodeAt(at) !== 34) throw new OtherLayout();
  let end = at + 1;
  for (; end < line.length; end++) {
    const code = line.charCodeAt(end);
    if (code === 92) end += 1;
    else if (code === 34) break;
  }
  if (line.charCodeAt(end + 1) !== 58 || line.charCodeAt(end + 2) !== 32) throw new OtherLayout();
  let key: unknown;
  try {
    key = JSON.parse(line.slice(at, end + 1));
  } catch {
    throw new OtherLayout();
  }
  if (typeof key !== 'string') throw new OtherLayout();
  return { key, value: end + 3 };
}

/** A line's value without the comma that separates it from the next. */
function valueText(line: string, from: number): string {
  return line.endsWith(',') ? line.slice(from, -1) : line.slice(from);
}

/** Follows the layout line by line and builds the state. */
class LineReader {
  private readonly assembler: StateAssembler;
  private readonly head: Record<string, unknown> = {};
  private section: { name: string; marks: Record<string, unknown> } | undefined;
  private lineNumber = 0;
  private closed = false;

  constructor(private readonly path: string) {
    this.assembler = new StateAssembler(path);
  }

  line(line: string): void {
    this.lineNumber += 1;
    if (this.closed) {
      if (line !== '') throw new OtherLayout();
      return;
    }
    if (this.lineNumber === 1) {
      if (line !== '{') throw new OtherLayout();
      return;
    }
    if (this.section) {
      if (line === '  }' || line === '  },') {
        if (this.section.name === 'unknownOutcomes') this.head['unknownOutcomes'] = this.section.marks;
        this.section = undefined;
        return;
      }
      if (!line.startsWith('    "')) throw new OtherLayout();
      const { key, value } = keyAt(line, 4);
      const text = valueText(line, value);
      if (this.section.name === 'resources') this.assembler.add(key, text);
      else this.section.marks[key] = parse(text);
      return;
    }
    if (line === '}') {
      this.closed = true;
      return;
    }
    if (!line.startsWith('  "')) throw new OtherLayout();
    const { key, value } = keyAt(line, 2);
    const text = valueText(line, value);
    if (SECTIONS.has(key) && text === '{') {
      this.section = { name: key, marks: {} };
      if (key === 'resources') this.head['resources'] = {};
      return;
    }
    if (key === 'resources') {
      // An empty section on one line: `"resources": {}`.
      if (text !== '{}') throw new OtherLayout();
      this.head['resources'] = {};
      return;
    }
    this.head[key] = parse(text);
    // Said before a later format's entries could read as corrupt ones.
    if (key === 'formatVersion') assertReadableVersion(this.head, this.path);
  }

  finish(): StateDocument {
    if (!this.closed || this.section) throw new OtherLayout();
    const { resources: _resources, ...head } = this.head;
    return this.assembler.finish(head);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OtherLayout();
  }
}

/**
 * The state file at `path` read line by line; `other-layout` when it is not in the line layout
 * (the caller then reads it whole, and reports what is wrong with it); undefined when there is no
 * file. A line of the layout whose entry is not valid (JSON, or a state entry) throws
 * StateCorruptError as parseState would.
 */
export async function readStateLines(path: string): Promise<StateDocument | 'other-layout' | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
  const reader = new LineReader(path);
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    // The start of a line that continues in the next chunk.
    let pending: Buffer[] = [];
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      let start = 0;
      for (let newline = buffer.indexOf(10, 0); newline !== -1 && newline < bytesRead; newline = buffer.indexOf(10, start)) {
        // A line is cut only at a newline byte, which no multi-byte UTF-8 character contains.
        const text = pending.length === 0 ? buffer.toString('utf8', start, newline) : Buffer.concat([...pending, buffer.subarray(start, newline)]).toString('utf8');
        pending = [];
        reader.line(text);
        start = newline + 1;
      }
      if (start < bytesRead) pending.push(Buffer.from(buffer.subarray(start, bytesRead)));
    }
    if (pending.length > 0) reader.line(Buffer.concat(pending).toString('utf8'));
    return reader.finish();
  } catch (error) {
    if (error instanceof OtherLayout) return 'other-layout';
    throw error;
  } finally {
    await handle.close();
  }
}
