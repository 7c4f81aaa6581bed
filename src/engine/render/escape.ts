/**
 * Text from the portal (names, titles, descriptions, messages) and anything else a renderer did
 * not write itself is untrusted: a name can hold a newline, markdown or HTML, an @mention, an
 * ANSI escape sequence that clears the screen or moves the cursor, a terminal title (OSC), or
 * bidirectional controls that show text in another order than it is. Every renderer passes such
 * text through the one function of this module for the medium it writes to; nothing else in
 * src/engine/render/ escapes.
 *
 * Invisible and control characters are shown, never passed on: `\x1b`, `\u202e`, `\u{e0041}`.
 * That covers C0 and C1 controls (ESC, BEL, CSI, OSC, NEL, CR, LF, TAB), DEL, bidirectional
 * marks, embeddings, overrides and isolates (the "Trojan Source" characters), line and paragraph
 * separators, zero-width spaces and joiners that hide text (not U+200D, which emoji sequences
 * need), and Unicode tag characters (invisible ASCII look-alikes).
 */

/** Characters never passed on as they are; `\n` and `\t` too unless a medium keeps them. */
// eslint-disable-next-line no-control-regex -- finding control characters is what this pattern is for.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu;

/** A character as its visible escape: `\x1b` below U+0100, `\u202e` in the BMP, `\u{e0041}` above. */
function visible(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` with every control and invisible character shown as its escape; `keep` lists those passed on ("\n", "\t"). */
export function showControls(text: string, keep = ''): string {
  return text.replace(INVISIBLE, (character) => (keep.includes(character) ? character : visible(character)));
}

/**
 * For a terminal: nothing that the terminal would act on (escape sequences, cursor movement,
 * titles, bells) or that would reorder or hide what is shown. One line unless `lines` is set,
 * which keeps line feeds and tabs (a message of several lines); a carriage return, which could
 * overwrite a line's start, is always shown.
 */
export function terminalText(text: string, options: { lines?: boolean } = {}): string {
  return showControls(text, options.lines ? '\n\t' : '');
}

/**
 * Inline markdown (a table cell, a list item, a heading's text), as GitHub and GitLab render
 * it: no HTML (`<`, `>`, `&` as entities), no @mention or #reference (`@`, `#` as entities), no
 * emphasis, code, link, image or table syntax (its punctuation backslash-escaped), one line.
 */
export function markdownText(text: string): string {
  return showControls(text)
    // With [ and ] escaped no link or image can start, so ( ) ! need nothing; _ * ~ ` would format, | ends a table cell.
    .replace(/[\\`*_[\]~|]/g, (character) => `\\${character}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/#/g, '&#35;')
    .replace(/@/g, '&#64;');
}

/**
 * A markdown code span (backticks included), safe in a table cell: delimited by more backticks
 * than any run in the text, its `|` escaped (GitHub reads a table row's cells before the spans
 * in them), one line. Inside a code span nothing else is markdown or HTML.
 */
export function markdownCode(text: string): string {
  const content = showControls(text).replace(/\|/g, '\\|');
  const longestRun = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // A span that starts or ends with a backtick needs a space between it and the fence.
  const padded = content.startsWith('`') || content.endsWith('`') ? ` ${content} ` : content;
  return `${fence}${padded}${fence}`;
}

/**
 * One of portalctl's own messages in markdown: the commands and flags it quotes in backticks
 * (`portalctl state rm ADDRESS`) as code spans, the rest as text. Only where the backticks pair up;
 * a name the portal gave that holds one can only move where a span starts, as both parts are escaped.
 */
export function markdownMessage(text: string): string {
  const parts = text.split('`');
  if (parts.length % 2 === 0) return markdownText(text);
  return parts.map((part, index) => (index % 2 === 1 && part !== '' ? markdownCode(part) : markdownText(part))).join('');
}

/** One line inside a fenced code block (```diff, ```mermaid): it can neither end the line nor close the fence. */
export function fencedLine(text: string): string {
  return showControls(text).replace(/```/g, "'''").replace(/~~~/g, "'''");
}

/** Text inside a quoted Mermaid label (`["…"]`): Mermaid's entity codes for what would end or format it. */
export function mermaidLabel(text: string): string {
  return showControls(text)
    .replace(/#/g, '#35;')
    .replace(/&/g, '#38;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/`/g, '#96;');
}

/** Text inside a quoted Graphviz DOT string. */
export function dotLabel(text: string): string {
  return showControls(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** Text inside an HTML element or a quoted attribute (a `<summary>`). */
export function htmlText(text: string): string {
  return showControls(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Text inside an HTML comment (`<!-- … -->`, e.g. a hidden marker): it cannot end the comment or open another. */
export function htmlCommentText(text: string): string {
  return showControls(text).replace(/-(?=-)/g, '- ').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
