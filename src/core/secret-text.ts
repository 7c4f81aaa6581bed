/**
 * Finding secrets in texts that may quote them, and putting something else in their place. A
 * portal's error (or the HTML error page a web server answers) quotes what it was sent in its own
 * way: as sent, HTML-escaped (`&amp;`, `&#39;`), percent-encoded (`%26`, `+` for a space),
 * JSON-escaped (`\"`, `\u00e9`), its whitespace squeezed (an HTML page's text), or cut short
 * (its first characters, then `…` or `...`). Each secret is searched for in all of these, and
 * every secret at once: where the places of two overlap (a token inside a referenced value, or
 * one ending where the other begins), the whole stretch is replaced, so no part of either is
 * left between them.
 */

/** A secret, what is shown in its place, and the fewest of its characters that are searched for. */
export interface ConcealedValue {
  value: string;
  /** Shown in its place: `[redacted]`, or the reference it came from (`${env:NAME}`). */
  shown: string;
  /**
   * A value shorter than this is not searched for, nor a quote cut shorter than this: a short
   * text would be found inside every word that holds it.
   */
  minLength: number;
}

/** Replaces every secret in `text`, in any of the forms a quote gives it, by its `shown` text. */
export type Scrubber = (text: string) => string;

/** Characters no encoder changes (RFC 3986 unreserved): a run of them is searched for as it is. */
const UNRESERVED = /^[A-Za-z0-9_.~-]$/;

/** Whitespace as a quote may give it, one or more: an HTML page's text squeezes a line break to a space. */
const WHITESPACE_FORM = String.raw`(?:\s|\+|%20|%0[9aAdD]|&#(?:9|10|13|32);|&#[xX](?:9|[aAdD]|20);|&nbsp;|\\[nrt]|\\u00(?:0[9aAdD]|20))`;
const whitespaceRun = new RegExp(`${WHITESPACE_FORM}+`, 'y');

const HTML_NAMED: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const JSON_SHORT: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/' };

const utf8 = new TextEncoder();
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** The ways one character may be quoted: as it is, HTML-escaped, percent-encoded, JSON-escaped (hex in either case). */
function formsOf(char: string): string[] {
  const codePoint = char.codePointAt(0) ?? 0;
  const bytes = [...utf8.encode(char)].map((byte) => `%${hex(byte, 2)}`).join('');
  const units = Array.from({ length: char.length }, (_, index) => `\\u${hex(char.charCodeAt(index), 4)}`).join('');
  const forms = [
    char,
    ...(HTML_NAMED[char] === undefined ? [] : [HTML_NAMED[char]]),
    `&#${codePoint};`,
    `&#x${hex(codePoint, 1)};`,
    `&#x${hex(codePoint, 1).toUpperCase()};`,
    ...(char === "'" ? ['&#039;'] : []),
    bytes,
    bytes.toUpperCase(),
    ...(JSON_SHORT[char] === undefined ? [] : [JSON_SHORT[char]]),
    units,
    units.replace(/[0-9a-f]{4}/g, (digits) => digits.toUpperCase()),
  ];
  return [...new Set(forms)];
}

/** A secret as a sequence of pieces: runs of characters no encoder changes, characters with their forms, whitespace runs. */
type Piece = { literal: string } | { char: string; forms: readonly string[] } | { whitespace: number };

function piecesOf(value: string): Piece[] {
  const pieces: Piece[] = [];
  for (const char of value) {
    const last = pieces[pieces.length - 1];
    if (UNRESERVED.test(char)) {
      if (last !== undefined && 'literal' in last) last.literal += char;
      else pieces.push({ literal: char });
    } else if (/\s/.test(char)) {
      if (last !== undefined && 'whitespace' in last) last.whitespace += 1;
      else pieces.push({ whitespace: 1 });
    } else {
      pieces.push({ char, forms: formsOf(char) });
    }
  }
  return pieces;
}

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

function piecePattern(piece: Piece): string {
  if ('literal' in piece) return escapeRegExp(piece.literal);
  if ('whitespace' in piece) return `${WHITESPACE_FORM}+`;
  return `(?:${piece.forms.map(escapeRegExp).join('|')})`;
}

const pieceLength = (piece: Piece): number => ('literal' in piece ? piece.literal.length : 'whitespace' in piece ? piece.whitespace : piece.char.length);

interface CompiledSecret {
  shown: string;
  minLength: number;
  /** Every whole occurrence, in any form. */
  whole: RegExp;
  /** The secret without the whitespace around it, for cut-short quotes. */
  pieces: Piece[];
  /** How far before an ellipsis a cut-short quote of it may begin (its longest form). */
  reach: number;
  /** The characters a quote of it may begin with: most places are passed over on the first. */
  opening: (char: string) => boolean;
  holdsEllipsis: boolean;
  /** Its longest run that no encoder changes: a text without it holds no whole quote of it (most texts, found fast). */
  sentinel: string;
}

function openingOf(piece: Piece | undefined): (char: string) => boolean {
  if (piece === undefined) return () => false;
  if ('literal' in piece) return (char) => char === piece.literal[0];
  if ('whitespace' in piece) return (char) => /[\s+%&\\]/.test(char);
  const firsts = new Set(piece.forms.map((form) => form[0]));
  return (char) => firsts.has(char);
}

function compile(secret: ConcealedValue): CompiledSecret | undefined {
  const trimmed = secret.value.trim();
  const alternatives: string[] = [];
  // As it is first: a value with its line break (a file's) is replaced with it.
  if (secret.value.length >= secret.minLength) alternatives.push(escapeRegExp(secret.value));
  const pieces = trimmed.length >= secret.minLength ? piecesOf(trimmed) : [];
  if (pieces.length > 0) alternatives.push(pieces.map(piecePattern).join(''));
  if (alternatives.length === 0) return undefined;
  return { shown: secret.shown, minLength: secret.minLength, whole: new RegExp(alternatives.join('|'), 'g'), pieces, reach: trimmed.length * 12, opening: openingOf(pieces[0]), holdsEllipsis: /\u2026|\.\.\./.test(trimmed),
    sentinel: pieces.reduce((longest, piece) => ('literal' in piece && piece.literal.length > longest.length ? piece.literal : longest), ''),
  };
}

/**
 * Whether `text` from `start` to `end` is a quote of the secret's beginning covering at least
 * `minLength` of its characters; the last piece may be cut anywhere (inside an escape too).
 */
function quotesBeginning(secret: CompiledSecret, text: string, start: number, end: number): boolean {
  const { pieces, minLength } = secret;
  // A character with several forms may be read more than one way (`%` itself, or `%25`): each is tried, once per place.
  const failed = new Set<number>();
  const walk = (index: number, at: number, covered: number): boolean => {
    if (at === end) return covered >= minLength;
    const piece = pieces[index];
    if (piece === undefined) return false;
    const key = index * (end + 1) + at;
    if (failed.has(key)) return false;
    const rest = text.slice(at, Math.min(end, at + pieceLength(piece) * 12 + 12));
    let found = false;
    if ('literal' in piece) {
      if (rest.startsWith(piece.literal)) found = walk(index + 1, at + piece.literal.length, covered + piece.literal.length);
      else if (at + rest.length === end && piece.literal.startsWith(rest)) return covered + rest.length >= minLength;
    } else if ('whitespace' in piece) {
      whitespaceRun.lastIndex = at;
      const run = whitespaceRun.exec(text);
      if (run !== null) found = walk(index + 1, Math.min(end, at + run[0].length), covered + piece.whitespace);
    } else {
      for (const form of piece.forms) {
        if (rest.startsWith(form) && walk(index + 1, at + form.length, covered + piece.char.length)) return true;
        // Cut inside the escape: the character is not shown.
        if (at + rest.length === end && rest.length < form.length && form.startsWith(rest)) return covered >= minLength;
      }
    }
    if (!found) failed.add(key);
    return found;
  };
  return walk(0, start, 0);
}

interface Found {
  start: number;
  end: number;
  shown: string;
}

const ELLIPSIS = /\u2026|\.\.\./g;

/** Where each secret is quoted in `text`: whole, or its beginning cut short by an ellipsis. */
function occurrences(text: string, secrets: readonly CompiledSecret[]): Found[] {
  const found: Found[] = [];
  for (const secret of secrets) {
    const { whole, sentinel } = secret;
    if (!text.includes(sentinel)) continue;
    whole.lastIndex = 0;
    for (let match = whole.exec(text); match !== null; match = whole.exec(text)) {
      if (match[0] === '') whole.lastIndex += 1;
      else found.push({ start: match.index, end: match.index + match[0].length, shown: secret.shown });
    }
  }
  if (!text.includes('\u2026') && !text.includes('...')) return found;
  let previous = 0;
  ELLIPSIS.lastIndex = 0;
  for (let ellipsis = ELLIPSIS.exec(text); ellipsis !== null; ellipsis = ELLIPSIS.exec(text)) {
    const end = ellipsis.index;
    for (const secret of secrets) {
      if (secret.pieces.length === 0) continue;
      // A quote cut at this ellipsis begins after the one before (unless the secret holds one): each part of the text is searched once.
      const from = Math.max(0, end - secret.reach, secret.holdsEllipsis ? 0 : previous);
      // The earliest beginning is the longest quote.
      for (let start = from; start <= end - 1; start += 1) {
        if (secret.opening(text[start] ?? '') && quotesBeginning(secret, text, start, end)) {
          found.push({ start, end, shown: secret.shown });
          break;
        }
      }
    }
    previous = end + ellipsis[0].length;
  }
  return found;
}

/**
 * Each stretch of overlapping places replaced once: by the `shown` of every place in it that no
 * other holds whole, in order (a token inside a referenced value shows as the reference).
 */
function replaced(text: string, found: Found[]): string {
  if (found.length === 0) return text;
  const sorted = [...found].sort((a, b) => a.start - b.start || b.end - a.end);
  let result = '';
  let at = 0;
  let index = 0;
  while (index < sorted.length) {
    const first = sorted[index] as Found;
    const group = [first];
    let end = first.end;
    for (index += 1; index < sorted.length && (sorted[index] as Found).start < end; index += 1) {
      const next = sorted[index] as Found;
      group.push(next);
      end = Math.max(end, next.end);
    }
    const outer = group.filter((place) => !group.some((other) => other !== place && other.start <= place.start && other.end >= place.end && (other.start < place.start || other.end > place.end || group.indexOf(other) < group.indexOf(place))));
    const shown = outer.map((place) => place.shown).filter((text, position, all) => text !== all[position - 1]);
    result += `${text.slice(at, first.start)}${shown.join('')}`;
    at = end;
  }
  return result + text.slice(at);
}

/** One function for every secret: each place found in the text as it was, then replaced once. */
export function secretScrubber(secrets: readonly ConcealedValue[]): Scrubber {
  const compiled = secrets.flatMap((secret) => compile(secret) ?? []);
  if (compiled.length === 0) return (text) => text;
  return (text) => replaced(text, occurrences(text, compiled));
}
