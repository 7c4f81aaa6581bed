/**
 * "Did you mean": the known names closest to one that is not known (a property, a kind name, an
 * address). Edit distance comes from fastest-levenshtein; what counts as close enough is ours.
 */
import { distance } from 'fastest-levenshtein';
import { listed } from './words.js';

export interface Candidate {
  name: string;
  /** What the name means; a distinctive word of the unknown name found here makes it a candidate (`minSpecial` -> "special characters"). */
  description?: string;
}

/** Words of a name: `minSpecial` -> min, special; `old-banner.png` -> old, banner, png. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Edits allowed for a name of this length: a third of it, at least 2 (a swapped pair of letters costs 2). */
function allowance(name: string): number {
  return Math.max(2, Math.ceil(name.length / 3));
}

/**
 * Up to `count` candidates nearest `unknown`, best first: by edit distance (case ignored) within
 * an allowance that grows with the name, sharing a character with it, then those whose description holds a word of the
 * unknown name that no candidate's own name has (`minSpecial` finds the rule described as
 * "special characters" though its name is `minOther`).
 */
export function closestNames(unknown: string, candidates: readonly (string | Candidate)[], count = 3): string[] {
  const list = candidates.map((candidate) => (typeof candidate === 'string' ? { name: candidate } : candidate));
  const lower = unknown.toLowerCase();
  const scored = new Map<string, number>();
  for (const { name } of list) {
    if (name === unknown) continue;
    const known = name.toLowerCase();
    const edits = distance(lower, known);
    // A short name is within the allowance of any other short one: one sharing no character is not near (`<<` is not `id`).
    if (edits <= allowance(unknown) && [...lower].some((character) => known.includes(character))) scored.set(name, edits);
  }
  // Words every candidate name shares (`min` of minLength, minUpper...) tell nothing.
  const nameWords = new Set(list.flatMap(({ name }) => words(name)));
  const telling = words(unknown).filter((word) => word.length >= 4 && !nameWords.has(word));
  for (const { name, description } of list) {
    if (scored.has(name) || !description || name === unknown) continue;
    const described = new Set(words(description).flatMap((word) => [word, word.replace(/s$/, '')]));
    if (telling.some((word) => described.has(word) || described.has(word.replace(/s$/, '')))) scored.set(name, allowance(unknown) + 1);
  }
  return [...scored.entries()]
    .sort(([a, left], [b, right]) => left - right || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, count)
    .map(([name]) => name);
}

/** `did you mean "roles"?` (or "a" or "b"), or '' when nothing is close. */
function suggestion(unknown: string, candidates: readonly (string | Candidate)[]): string {
  const near = closestNames(unknown, candidates);
  return near.length === 0 ? '' : `did you mean ${listed(near.map((name) => `"${name}"`), Number.POSITIVE_INFINITY, 'or')}?`;
}

/** ` Did you mean "roles"?` (or "a" or "b"), or '' when nothing is close. */
export function didYouMean(unknown: string, candidates: readonly (string | Candidate)[]): string {
  const text = suggestion(unknown, candidates);
  return text === '' ? '' : ` D${text.slice(1)}`;
}

/** ` (did you mean "roles"?)`, or '' when nothing is close: the suggestion beside one of several unknown names. */
export function didYouMeanAside(unknown: string, candidates: readonly (string | Candidate)[]): string {
  const text = suggestion(unknown, candidates);
  return text === '' ? '' : ` (${text})`;
}
