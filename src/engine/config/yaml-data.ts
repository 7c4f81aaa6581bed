/**
 * The fast, data-only YAML path. The `yaml` package keeps a located node for every value, which
 * for a large organization costs seconds and a gigabyte; js-yaml builds plain data directly. The
 * two must give the same data, so js-yaml is used only where they are known to agree:
 *
 * - scalars resolve with the `yaml` package's YAML 1.2 core schema (the regular expressions
 *   below are its own): `yes`/`no`/`on` are strings, `0o17` is octal, `017` decimal, `0b101`,
 *   `-0x1F` and `1_000` strings, `.inf`/`.nan` numbers;
 * - documents with anchors, tags, explicit (`?`) or collection keys or directives are left to
 *   the `yaml` package (which also enforces the alias limit): the cheap scan below may send a
 *   document there that did not need it, never the reverse;
 * - anything js-yaml refuses (duplicate keys, several documents, syntax errors, very deep
 *   nesting) is left to the `yaml` package, whose diagnostics carry positions.
 *
 * test/config/yaml-conformance.test.ts holds both paths to agreeing.
 */
import { load, Schema, Type, FAILSAFE_SCHEMA, YAMLException } from 'js-yaml';
import type { JsonValue } from '../../core/json.js';

const nullPattern = /^(?:~|[Nn]ull|NULL)?$/;
const booleanPattern = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const octalPattern = /^0o[0-7]+$/;
const decimalPattern = /^[-+]?[0-9]+$/;
const hexPattern = /^0x[0-9a-fA-F]+$/;
const specialFloatPattern = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const exponentFloatPattern = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const plainFloatPattern = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** Every number of the core schema starts with a digit, a sign or a dot: most words are ruled out by one look. */
function startsNumeric(text: string): boolean {
  const code = text.charCodeAt(0);
  return (code >= 48 && code <= 57) || code === 43 || code === 45 || code === 46;
}

const coreNull = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (text: string) => (text === '' || '~nN'.includes(text[0] as string)) && nullPattern.test(text),
  construct: () => null,
});
const coreBoolean = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (text: string) => 'tTfF'.includes(text[0] as string) && booleanPattern.test(text),
  construct: (text: string) => text[0] === 't' || text[0] === 'T',
});
const coreInteger = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (text: string) => startsNumeric(text) && (decimalPattern.test(text) || octalPattern.test(text) || hexPattern.test(text)),
  construct: (text: string) => (text.startsWith('0o') ? parseInt(text.slice(2), 8) : text.startsWith('0x') ? parseInt(text.slice(2), 16) : parseInt(text, 10)),
});
const coreFloat = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (text: string) => startsNumeric(text) && (specialFloatPattern.test(text) || exponentFloatPattern.test(text) || plainFloatPattern.test(text)),
  construct: (text: string) => {
    if (!specialFloatPattern.test(text)) return parseFloat(text);
    if (text.slice(-3).toLowerCase() === 'nan') return NaN;
    return text.startsWith('-') ? -Infinity : Infinity;
  },
});

/** The YAML 1.2 core schema exactly as the `yaml` package resolves it. */
const coreSchema: Schema = FAILSAFE_SCHEMA.extend({ implicit: [coreNull, coreBoolean, coreInteger, coreFloat] });

/** Whether the character before `index` lets an indicator start there (start, space or flow punctuation). */
function indicatorContext(text: string, index: number): boolean {
  if (index === 0) return true;
  const before = text.charCodeAt(index - 1);
  return before === 32 || before === 9 || before === 10 || before === 13 || before === 44 || before === 91 || before === 123;
}

function isSpace(code: number): boolean {
  return Number.isNaN(code) || code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * Whether the text may hold an anchor or tag (`&a`, `!x` after a space or flow punctuation), an
 * explicit key (`? `), a collection used as a key (`]:` / `}:`) or a directive line (`%YAML`).
 * Over-approximate by design (a `!x` inside a string counts too): one indexOf per indicator,
 * so a large config with none of them is scanned at memchr speed.
 */
export function needsPositionedParse(text: string): boolean {
  return positionedParseNeededAt(text) !== undefined;
}

/** Where needsPositionedParse finds the first of what it looks for; undefined when there is none. */
function positionedParseNeededAt(text: string): number | undefined {
  const found: number[] = [];
  const first = (indicator: string, matches: (index: number) => boolean): void => {
    for (let index = text.indexOf(indicator); index !== -1; index = text.indexOf(indicator, index + 1)) {
      if (matches(index)) {
        found.push(index);
        return;
      }
    }
  };
  first('&', (index) => indicatorContext(text, index) && !isSpace(text.charCodeAt(index + 1)));
  first('!', (index) => indicatorContext(text, index) && !isSpace(text.charCodeAt(index + 1)));
  first('?', (index) => indicatorContext(text, index) && isSpace(text.charCodeAt(index + 1)));
  first('%', (index) => index === 0 || text.charCodeAt(index - 1) === 10);
  for (const close of [']', '}']) {
    first(close, (index) => {
      let next = index + 1;
      while (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9) next += 1;
      return text.charCodeAt(next) === 58 && isSpace(text.charCodeAt(next + 1));
    });
  }
  return found.length > 0 ? Math.min(...found) : undefined;
}

/**
 * Why the fast path declines `text` (where, and what): the first anchor, tag, explicit or
 * collection key or directive, else js-yaml's own error; undefined when it reads it.
 */
export function fastPathRefusal(text: string): { offset: number; feature: boolean; reason: string } | undefined {
  const at = positionedParseNeededAt(text);
  if (at !== undefined) return { offset: at, feature: true, reason: 'an anchor, tag, explicit or collection key, or directive' };
  try {
    load(text, { schema: coreSchema });
    return undefined;
  } catch (error) {
    if (error instanceof YAMLException) return { offset: error.mark?.position ?? 0, feature: false, reason: error.reason };
    return { offset: 0, feature: false, reason: error instanceof RangeError ? 'nested too deeply to read' : String(error) };
  }
}

/** The document's data when the fast path can read it exactly; undefined to use the `yaml` package. */
export function yamlDataOnly(text: string): { data: JsonValue } | undefined {
  if (needsPositionedParse(text)) return undefined;
  try {
    const data = load(text, { schema: coreSchema }) as JsonValue | undefined;
    return { data: data ?? null };
  } catch {
    // Syntax errors, duplicate keys, several documents, stack exhaustion: the positioned parse explains them.
    return undefined;
  }
}
