/**
 * Finding secrets in texts that may quote them, and putting something else in their place. A
 * portal's error (or the HTML error page a web server answers) quotes what it was sent in its own
 * way: as sent, HTML-escaped (`&amp;`, `&#39;`, any HTML5 named reference: `&eacute;`),
 * percent-encoded (`%26`, `+` for a space), JSON-escaped (`\"`, `\u00e9`), any of these twice
 * (`%2540`, `\u0026amp;`), its whitespace squeezed (an HTML page's text), or cut short at either
 * end or both (`Adm1n-pa…`, `…ss-word`). Each secret is searched for in all of these, and every
 * secret at once: where the places of two overlap (a token inside a referenced value, or one
 * ending where the other begins), the whole stretch is replaced, so no part of either is left
 * between them. A cut quote keeps its ellipsis: `${env:NOTE}…`, `…${env:NOTE}`.
 */
import { characterEntities } from 'character-entities';

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

const JSON_SHORT: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const utf8 = new TextEncoder();
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const percentEncoded = (char: string): string => [...utf8.encode(char)].map((byte) => `%${hex(byte, 2)}`).join('');

/**
 * Every HTML5 named character reference of a character (`é`: `&eacute;`; `&`: `&amp;` and
 * `&AMP;`), from `character-entities` (the WHATWG list). Each character is looked up by a native
 * search in the table's JSON text (`"eacute":"é",`): inverting the 2,125 names into a map, or even
 * listing them, cost a few milliseconds of every run that has a secret to search for. The few
 * names that stand for two characters (`&NotEqualTilde;`) are never found: a secret is searched
 * for one character at a time.
 */
let referencesText: string | undefined;
function namedReferencesOf(char: string): readonly string[] {
  referencesText ??= JSON.stringify(characterEntities);
  const names: string[] = [];
  const wanted = `:${JSON.stringify(char)}`;
  for (let at = referencesText.indexOf(wanted); at !== -1; at = referencesText.indexOf(wanted, at + 1)) {
    const after = referencesText[at + wanted.length];
    // The whole value (a longer one only begins with the character), after a name's closing quote.
    if ((after !== ',' && after !== '}') || referencesText[at - 1] !== '"') continue;
    const name = referencesText.slice(referencesText.lastIndexOf('"', at - 2) + 1, at - 1);
    if (/^[A-Za-z0-9]+$/.test(name)) names.push(`&${name};`);
  }
  return names;
}

/** The ways one character may be quoted once: as it is, HTML-escaped (named or numbered), percent-encoded, JSON-escaped (hex in either case). */
function onceQuoted(char: string): string[] {
  const codePoint = char.codePointAt(0) ?? 0;
  const bytes = percentEncoded(char);
  const units = Array.from({ length: char.length }, (_, index) => `\\u${hex(char.charCodeAt(index), 4)}`).join('');
  return [
    char,
    ...namedReferencesOf(char),
    `&#${codePoint};`,
    ...(char === "'" ? ['&#039;'] : []),
    `&#x${hex(codePoint, 1)};`,
    `&#x${hex(codePoint, 1).toUpperCase()};`,
    bytes,
    bytes.toUpperCase(),
    ...(JSON_SHORT[char] === undefined ? [] : [JSON_SHORT[char]]),
    units,
    units.replace(/[0-9a-f]{4}/g, (digits) => digits.toUpperCase()),
  ];
}

/**
 * What a second quote makes of a first one's escape (`%40` percent-encoded again is `%2540`,
 * `&amp;` in JSON from an HTML-safe encoder is `\u0026amp;`, `\"` percent-encoded is `%5C%22`):
 * each of these applied to a whole escape, as an encoder does.
 */
const QUOTED_AGAIN: readonly ((escape: string) => string)[] = [
  (escape) => [...escape].map((char) => (UNRESERVED.test(char) ? char : percentEncoded(char))).join(''),
  (escape) => [...escape].map((char) => (UNRESERVED.test(char) ? char : percentEncoded(char).toUpperCase())).join(''),
  (escape) => escape.replace(/["\\]/g, (char) => JSON_SHORT[char] ?? char),
  (escape) => escape.replace(/["\\&]/g, (char) => (char === '&' ? '\\u0026' : (JSON_SHORT[char] ?? char))),
  (escape) => escape.replace(/[&"]/g, (char) => (char === '&' ? '&amp;' : '&quot;')),
];

/** The ways one character may be quoted: once, or twice (each escape of it quoted again). */
function formsOf(char: string): readonly string[] {
  const once = onceQuoted(char);
  return [...new Set([...once, ...once.filter((form) => form !== char).flatMap((form) => QUOTED_AGAIN.map((quote) => quote(form)))])];
}

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * Whitespace as a quote may give it, one or more: an HTML page's text squeezes a line break to a
 * space, a form gives a space as `+`; each escaped once or twice as any other character is.
 */
let whitespace: { form: string; run: RegExp; longest: number } | undefined;
function whitespaceForms(): { form: string; run: RegExp; longest: number } {
  if (whitespace === undefined) {
    const escapes = [...new Set([' ', '\t', '\n', '\r', '\u00a0', '+'].flatMap((char) => formsOf(char)).filter((form) => !/^\s$/.test(form)))];
    const form = `(?:\\s|${escapes.map(escapeRegExp).join('|')})`;
    whitespace = { form, run: new RegExp(`${form}+`, 'y'), longest: Math.max(...escapes.map((escape) => escape.length)) };
  }
  return whitespace;
}

/** A secret as a sequence of pieces: runs of characters no encoder changes, characters with their forms, whitespace runs. */
type Piece = { literal: string } | CharPiece | { whitespace: number };

interface CharPiece {
  char: string;
  forms: readonly string[];
  /** Its forms by their first character: a place is tried with those alone. */
  formsFrom: ReadonlyMap<string, readonly string[]>;
  longest: number;
  /** Its forms as one group of a regular expression. */
  pattern: string;
}

/**
 * Made once per character, pattern included: a referenced file (a PEM certificate) repeats a few
 * characters hundreds of times, and making their sixty-odd forms and pattern again for each was
 * most of a run's redaction cost.
 */
const charPieces = new Map<string, CharPiece>();

function charPiece(char: string): CharPiece {
  let piece = charPieces.get(char);
  if (piece === undefined) {
    const forms = formsOf(char);
    const formsFrom = new Map<string, string[]>();
    for (const form of forms) formsFrom.set(form[0] as string, [...(formsFrom.get(form[0] as string) ?? []), form]);
    piece = { char, forms, formsFrom, longest: Math.max(...forms.map((form) => form.length)), pattern: `(?:${forms.map(escapeRegExp).join('|')})` };
    charPieces.set(char, piece);
  }
  return piece;
}

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
      pieces.push(charPiece(char));
    }
  }
  return pieces;
}

function piecePattern(piece: Piece): string {
  if ('literal' in piece) return escapeRegExp(piece.literal);
  if ('whitespace' in piece) return `${whitespaceForms().form}+`;
  return piece.pattern;
}

/** The longest text a piece may be quoted as (a whitespace run as long as it is in the secret). */
const pieceReach = (piece: Piece): number => ('literal' in piece ? piece.literal.length : 'whitespace' in piece ? piece.whitespace * whitespaceForms().longest : piece.longest);

/**
 * A way a quote cut at its start may begin: in piece `index`, with `text` (one of its forms, or
 * the end of its run of plain characters), having shown `covered` of the secret's characters;
 * the quote goes on with the next piece. `whole`: the piece from its start.
 */
interface Entry {
  index: number;
  text: string;
  covered: number;
  whole: boolean;
}

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
  /** The ways a quote cut at its start may begin; made at the first ellipsis. */
  entries?: Entries;
}

interface Entries {
  /** Inside a piece that is no whitespace, by the first character of the text it begins with. */
  byFirst: Map<string, Entry[]>;
  /** With a whitespace piece: the next piece's index, the characters shown up to it, and what it may begin with. */
  afterBlank: { index: number; covered: number; opening: (char: string) => boolean }[];
  /** The longest escape of any of its characters: how much of one a cut may leave before the quote. */
  longestEscape: number;
}

function openingOf(piece: Piece | undefined): (char: string) => boolean {
  if (piece === undefined) return () => false;
  if ('literal' in piece) return (char) => char === piece.literal[0];
  if ('whitespace' in piece) return (char) => /[\s+%&\\]/.test(char);
  return (char) => piece.formsFrom.has(char);
}

function compile(secret: ConcealedValue): CompiledSecret | undefined {
  const trimmed = secret.value.trim();
  const alternatives: string[] = [];
  // As it is first: a value with its line break (a file's) is replaced with it.
  if (secret.value.length >= secret.minLength) alternatives.push(escapeRegExp(secret.value));
  const pieces = trimmed.length >= secret.minLength ? piecesOf(trimmed) : [];
  if (pieces.length > 0) alternatives.push(pieces.map(piecePattern).join(''));
  if (alternatives.length === 0) return undefined;
  return {
    shown: secret.shown,
    minLength: secret.minLength,
    whole: new RegExp(alternatives.join('|'), 'g'),
    pieces,
    reach: pieces.reduce((sum, piece) => sum + pieceReach(piece), 0),
    opening: openingOf(pieces[0]),
    holdsEllipsis: /\u2026|\.\.\./.test(trimmed),
    sentinel: pieces.reduce((longest, piece) => ('literal' in piece && piece.literal.length > longest.length ? piece.literal : longest), ''),
  };
}

/** Every way a quote cut at its start may begin, by first character: each piece's forms, each end of a run of plain characters. */
function entriesOf(secret: CompiledSecret): Entries {
  if (secret.entries !== undefined) return secret.entries;
  const byFirst = new Map<string, Entry[]>();
  const afterBlank: Entries['afterBlank'] = [];
  const add = (entry: Entry): void => {
    const first = entry.text[0] as string;
    const list = byFirst.get(first);
    if (list === undefined) byFirst.set(first, [entry]);
    else list.push(entry);
  };
  secret.pieces.forEach((piece, index) => {
    if ('literal' in piece) {
      for (let from = 0; from < piece.literal.length; from += 1) add({ index, text: piece.literal.slice(from), covered: piece.literal.length - from, whole: from === 0 });
    } else if ('char' in piece) {
      for (const form of piece.forms) add({ index, text: form, covered: piece.char.length, whole: true });
    } else {
      afterBlank.push({ index: index + 1, covered: piece.whitespace, opening: openingOf(secret.pieces[index + 1]) });
    }
  });
  secret.entries = {
    byFirst,
    afterBlank,
    longestEscape: Math.max(0, ...secret.pieces.map((piece) => ('char' in piece ? piece.longest : 0))),
  };
  return secret.entries;
}

/**
 * Where a quote of the secret that has reached piece `index` at `at`, showing `covered` of its
 * characters, ends: at the secret's end (when `toEnd`), or at `cut` (an ellipsis), where it may
 * stop anywhere, inside an escape too; -1 if it is no quote, or one of fewer than `minLength`.
 */
function quoteEnd(secret: CompiledSecret, text: string, start: { index: number; at: number; covered: number }, cut: number, toEnd: boolean): number {
  const { pieces, minLength } = secret;
  // A character with several forms may be read more than one way (`%` itself, or `%25`): each is tried, once per place.
  let failed: Set<number> | undefined;
  const walk = (index: number, at: number, covered: number): number => {
    // Going on first: a secret may hold an ellipsis of its own.
    const stopped = at === cut && covered >= minLength ? cut : -1;
    const piece = pieces[index];
    if (piece === undefined) return toEnd && covered >= minLength ? at : stopped;
    const key = index * (text.length + 1) + at;
    if (failed?.has(key) === true) return stopped;
    let end = -1;
    if ('literal' in piece) {
      if (text.startsWith(piece.literal, at)) end = walk(index + 1, at + piece.literal.length, covered + piece.literal.length);
      else if (at < cut && cut - at < piece.literal.length && covered + (cut - at) >= minLength && piece.literal.startsWith(text.slice(at, cut))) end = cut;
    } else if ('whitespace' in piece) {
      const { run } = whitespaceForms();
      run.lastIndex = at;
      const found = run.exec(text);
      if (found !== null) end = walk(index + 1, at + found[0].length, covered + piece.whitespace);
    } else {
      for (const form of piece.formsFrom.get(text[at] ?? '') ?? []) {
        if (text.startsWith(form, at)) end = walk(index + 1, at + form.length, covered + piece.char.length);
        if (end >= 0) break;
      }
      // Cut inside the escape: the character is not shown.
      if (end < 0 && at < cut && cut - at < piece.longest && covered >= minLength) {
        const rest = text.slice(at, cut);
        if (piece.forms.some((form) => form.length > rest.length && form.startsWith(rest))) end = cut;
      }
    }
    if (end < 0) (failed ??= new Set()).add(key);
    return end >= 0 ? end : stopped;
  };
  return walk(start.index, start.at, start.covered);
}

/** What an escape is made of: a cut inside one leaves only these before the quote's first whole piece. */
const ESCAPE_CHARACTER = /[A-Za-z0-9&#;%\\"/]/;

/**
 * The end of the longest quote of the secret's end (or of a stretch of it, cut at `cut` too)
 * that begins at `at`, right after an ellipsis; -1 if none. A cut inside an escape (`…mp;rest`)
 * leaves the end of it before the quote: the character is not shown, and the quote begins after.
 */
function tailEnd(secret: CompiledSecret, text: string, at: number, cut: number): number {
  let longest = -1;
  const { byFirst, afterBlank, longestEscape } = entriesOf(secret);
  for (let begin = at; begin === at || (begin - at < longestEscape && ESCAPE_CHARACTER.test(text[begin - 1] ?? '')); begin += 1) {
    for (const entry of byFirst.get(text[begin] ?? '') ?? []) {
      if (!text.startsWith(entry.text, begin)) continue;
      if (begin === at || (entry.whole && cutEscapeEnds(secret.pieces[entry.index - 1], text.slice(at, begin)))) {
        longest = Math.max(longest, quoteEnd(secret, text, { index: entry.index + 1, at: begin + entry.text.length, covered: entry.covered }, cut, true));
      }
    }
  }
  // A stretch of the secret between two ellipses, inside one run of plain characters.
  if (cut - at >= secret.minLength && cut - at <= secret.sentinel.length && secret.pieces.some((piece) => 'literal' in piece && piece.literal.includes(text.slice(at, cut)))) longest = Math.max(longest, cut);
  if (afterBlank.length === 0) return longest;
  const { run } = whitespaceForms();
  run.lastIndex = at;
  const blank = run.exec(text)?.[0];
  if (blank === undefined) return longest;
  for (const next of afterBlank) {
    const after = at + blank.length;
    if (next.opening(text[after] ?? '')) longest = Math.max(longest, quoteEnd(secret, text, { index: next.index, at: after, covered: next.covered }, cut, true));
  }
  return longest;
}

/** Whether `rest` is what a cut leaves of one of the piece's escapes: its end, without its start. */
const cutEscapeEnds = (piece: Piece | undefined, rest: string): boolean => piece !== undefined && 'char' in piece && piece.forms.some((form) => form.length > rest.length && form.endsWith(rest));

interface Found {
  start: number;
  end: number;
  shown: string;
}

const ELLIPSIS = /\u2026|\.\.\./g;

/**
 * Where each secret is quoted in `text`: whole, or cut short by an ellipsis: its beginning before
 * one (`Adm1n-pa…`), its end after one (`…ss-word`), or a stretch of it between two.
 */
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
  const ellipses = [...text.matchAll(ELLIPSIS)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
  ellipses.forEach((ellipsis, position) => {
    const previous = ellipses[position - 1]?.end ?? 0;
    const next = ellipses[position + 1]?.start ?? -1;
    for (const secret of secrets) {
      if (secret.pieces.length === 0) continue;
      // A quote cut at this ellipsis begins after the one before (unless the secret holds one): each part of the text is searched once.
      const from = Math.max(0, ellipsis.start - secret.reach, secret.holdsEllipsis ? 0 : previous);
      // The earliest beginning is the longest quote.
      for (let start = from; start < ellipsis.start; start += 1) {
        if (secret.opening(text[start] ?? '') && quoteEnd(secret, text, { index: 0, at: start, covered: 0 }, ellipsis.start, false) === ellipsis.start) {
          found.push({ start, end: ellipsis.start, shown: secret.shown });
          break;
        }
      }
      const end = tailEnd(secret, text, ellipsis.end, next);
      if (end > ellipsis.end) found.push({ start: ellipsis.end, end, shown: secret.shown });
    }
  });
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
