/** Small wording helpers for messages that name a thing chosen at run time. */

/** "a group", "an organization", "an item": the indefinite article the noun needs (by its first letter). */
export function withArticle(noun: string, { capital = false }: { capital?: boolean } = {}): string {
  const article = /^[aeiou]/i.test(noun) ? 'an' : 'a';
  return `${capital ? article[0]?.toUpperCase() + article.slice(1) : article} ${noun}`;
}

/** "1 managed object", "2 managed objects": the count and the noun in the number it needs (`plural` when not noun + s). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes (a path with spaces). */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** "a", "a and b", "a, b and c" (`joiner` for the last pair: "a, b or c"); past `most` items, the first `most` and "N more". */
export function listed(items: readonly string[], most = Number.POSITIVE_INFINITY, joiner: 'and' | 'or' = 'and'): string {
  const shown = items.length > most ? [...items.slice(0, most), `${items.length - most} more`] : [...items];
  const last = shown.pop();
  return shown.length === 0 ? (last ?? '') : `${shown.join(', ')} ${joiner} ${last}`;
}
