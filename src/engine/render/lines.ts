/**
 * The lines of a change as a reviewer reads them, before they become terminal text or a
 * markdown `diff` block: a mark (`+` added, `-` removed, `~` changed, `#` a note), a depth and
 * the text. A one-line change keeps its two sides so each rendering can phrase it.
 */
export type Mark = '+' | '-' | '~' | '#' | ' ';

export interface DiffLine {
  mark: Mark;
  depth: number;
  text: string;
  /** A one-line change of `key` from one shown value to another. */
  change?: { key: string; from: string; to: string };
}

export const line = (mark: Mark, depth: number, text: string): DiffLine => ({ mark, depth, text });

export const changeLine = (depth: number, key: string, from: string, to: string): DiffLine => ({
  mark: '~',
  depth,
  text: `${key}: ${from} -> ${to}`,
  change: { key, from, to },
});
