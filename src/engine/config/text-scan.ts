/**
 * Scans of config text used only to explain a failure: where a JSON text is broken (JSON.parse
 * does not say where in every Node version), where flow brackets nest too deeply (a parser
 * that exhausts its stack cannot say either) and which keys a JSON object repeats (JSON.parse
 * keeps the last without a word); and the one cheap count that says whether to look for those.
 * All are iterative: hostile input cannot overflow.
 */
import type { SourceLocation } from '../../core/diagnostics.js';

/** Line and column (1-based) of a character offset in `text`. */
export function locationAt(file: string, text: string, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  const end = Math.max(0, Math.min(offset, text.length));
  for (let index = text.indexOf('\n'); index !== -1 && index < end; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { file, line, column: end - lineStart + 1 };
}

/** Line and column of each of `offsets` in `text`, in one pass (a large file may have many to place). */
export function locationsAt(file: string, text: string, offsets: readonly number[]): SourceLocation[] {
  const order = offsets.map((_, index) => index).sort((a, b) => (offsets[a] as number) - (offsets[b] as number));
  const found: SourceLocation[] = new Array<SourceLocation>(offsets.length);
  let line = 1;
  let lineStart = 0;
  let next = text.indexOf('\n');
  for (const index of order) {
    const end = Math.max(0, Math.min(offsets[index] as number, text.length));
    for (; next !== -1 && next < end; next = text.indexOf('\n', next + 1)) {
      line += 1;
      lineStart = next + 1;
    }
    found[index] = { file, line, column: end - lineStart + 1 };
  }
  return found;
}

type LineColumn = Pick<SourceLocation, 'line' | 'column'>;

/** The offset of each line:column in `text` (as locationsAt counts them), in one pass. */
export function offsetsAt(text: string, locations: readonly LineColumn[]): number[] {
  const order = locations.map((_, index) => index).sort((a, b) => (locations[a] as LineColumn).line - (locations[b] as LineColumn).line);
  const found: number[] = new Array<number>(locations.length);
  let line = 1;
  let lineStart = 0;
  for (const index of order) {
    const location = locations[index] as LineColumn;
    while (line < location.line) {
      const next = text.indexOf('\n', lineStart);
      if (next === -1) break;
      lineStart = next + 1;
      line += 1;
    }
    found[index] = Math.min(lineStart + location.column - 1, text.length);
  }
  return found;
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedQuote(text: string, at: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(at - 1 - slashes) === 92) slashes += 1;
  return (slashes & 1) === 1;
}

/**
 * At least as many as the members the objects of the valid JSON `text` hold: its colons whose
 * previous non-space character is an unescaped quote. Each member's colon is one (after its key's
 * closing quote); any other only in a string that starts with a colon. So when this is no more
 * than the keys of the parsed data, no object repeats a key. One indexOf per colon: about 65 ms
 * for a 109 MB config, where finding repeated keys (repeatedJsonKeys) takes ten times that.
 */
export function jsonMemberBound(text: string): number {
  let count = 0;
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    let before = colon - 1;
    while (isJsonSpace(text.charCodeAt(before))) before -= 1;
    if (text.charCodeAt(before) === 34 && !escapedQuote(text, before)) count += 1;
  }
  return count;
}

/** A key an object of a JSON text repeats: its name, where it is repeated and where the object first has it (offsets). */
export interface RepeatedKey {
  key: string;
  offset: number;
  first: number;
}

/**
 * The keys the objects of the valid JSON `text` repeat, in text order: the first `max` of them,
 * and how many there are. Keys are compared as JSON.parse reads them ("\u0061" is "a").
 */
export function repeatedJsonKeys(text: string, max: number): { repeated: RepeatedKey[]; total: number } {
  const repeated: RepeatedKey[] = [];
  let total = 0;
  // Per open collection: an object's keys so far (with where each first is), or null for a list.
  const open: (Map<string, number> | null)[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      const start = index;
      let close = text.indexOf('"', index + 1);
      while (close !== -1 && escapedQuote(text, close)) close = text.indexOf('"', close + 1);
      if (close === -1) break;
      index = close;
      const keys = open[open.length - 1];
      if (!keys) continue;
      let after = close + 1;
      while (isJsonSpace(text.charCodeAt(after))) after += 1;
      // A string in an object is its key when a colon follows; a value is followed by "," or "}".
      if (text.charCodeAt(after) !== 58) continue;
      const raw = text.slice(start, close + 1);
      const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const first = keys.get(key);
      if (first === undefined) keys.set(key, start);
      else {
        total += 1;
        if (repeated.length < max) repeated.push({ key, offset: start, first });
      }
      index = after;
    } else if (code === 123) open.push(new Map());
    else if (code === 91) open.push(null);
    else if (code === 125 || code === 93) open.pop();
  }
  return { repeated, total };
}

/**
 * The offset of the bracket that opens flow nesting level `max + 1`, skipping quoted strings
 * and comments; undefined when flow collections stay within `max` levels.
 */
export function flowDepthExceeded(text: string, max: number): number | undefined {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '[' || char === '{') {
      depth += 1;
      if (depth > max) return index;
    } else if (char === ']' || char === '}') {
      depth = Math.max(0, depth - 1);
    } else if (char === '"') {
      index += 1;
      while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
    } else if (char === "'" && (index === 0 || /[\s[{,:]/.test(text[index - 1] ?? ''))) {
      index += 1;
      while (index < text.length && !(text[index] === "'" && text[index + 1] !== "'")) index += text[index] === "'" ? 2 : 1;
    } else if (char === '#' && (index === 0 || /\s/.test(text[index - 1] ?? ''))) {
      while (index < text.length && text[index] !== '\n') index += 1;
    }
  }
  return undefined;
}

export interface JsonSyntaxProblem {
  offset: number;
  message: string;
}

const whitespace = new Set([' ', '\t', '\n', '\r']);
const literals = ['true', 'false', 'null'];
const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const stringEscape = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

function shown(char: string | undefined): string {
  return char === undefined ? 'end of file' : char === '\n' ? 'line break' : `"${char}"`;
}

/** The first syntax error of a text JSON.parse refused, with its offset. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem {
  let index = 0;
  // What the enclosing collections are: '[' or '{'.
  const open: string[] = [];
  // A collection was just opened: its first element (or its end) comes next, without a comma.
  let first = false;
  const skip = (): void => {
    while (index < text.length && whitespace.has(text[index] as string)) index += 1;
  };
  const fail = (message: string, at = index): JsonSyntaxProblem => ({ offset: at, message });
  const string = (): JsonSyntaxProblem | undefined => {
    const start = index;
    index += 1;
    while (index < text.length) {
      const char = text[index] as string;
      if (char === '"') {
        index += 1;
        return undefined;
      }
      if (char === '\\') {
        if (!stringEscape.test(text.slice(index + 1, index + 6))) return fail('Invalid escape in a string.');
        index += text[index + 1] === 'u' ? 6 : 2;
        continue;
      }
      if (char < ' ') return fail(char === '\n' ? 'A string is not closed before the end of the line.' : 'A control character inside a string must be escaped.');
      index += 1;
    }
    return fail('A string is not closed.', start);
  };
  // A value, or the end of a collection after it; iterative so deep nesting cannot overflow.
  const value = (): JsonSyntaxProblem | undefined => {
    skip();
    const char = text[index];
    if (char === '"') return string();
    if (char === '[' || char === '{') {
      open.push(char);
      first = true;
      index += 1;
      return undefined;
    }
    for (const literal of literals) {
      if (text.startsWith(literal, index)) {
        index += literal.length;
        return undefined;
      }
    }
    numberPattern.lastIndex = index;
    if (char !== undefined && numberPattern.test(text)) {
      index = numberPattern.lastIndex;
      return undefined;
    }
    return fail(`Unexpected ${shown(char)}; expected a value.`);
  };

  let problem = value();
  while (problem === undefined) {
    skip();
    const top = open[open.length - 1];
    if (top === undefined) {
      if (index < text.length) return fail(`Unexpected ${shown(text[index])} after the end of the document.`);
      // JSON.parse refused what the scan accepts (should not happen): point at the start.
      return { offset: 0, message: 'The text is not valid JSON.' };
    }
    const char = text[index];
    const close = top === '[' ? ']' : '}';
    if (char === close) {
      open.pop();
      first = false;
      index += 1;
      continue;
    }
    if (first) {
      first = false;
    } else {
      if (char !== ',') return fail(`Unexpected ${shown(char)}; expected "," or "${close}".`);
      index += 1;
      skip();
      if (text[index] === close) return fail(`Unexpected "${close}" after ","; JSON allows no trailing comma.`);
    }
    if (top === '{') {
      skip();
      if (text[index] !== '"') return fail(`Unexpected ${shown(text[index])}; expected a property name in double quotes.`);
      problem = string();
      if (problem) return problem;
      skip();
      if (text[index] !== ':') return fail(`Unexpected ${shown(text[index])}; expected ":" after the property name.`);
      index += 1;
    }
    problem = value();
  }
  return problem;
}
