/** Small wording helpers for messages that name a thing chosen at run time. */

/** "a group", "an organization", "an item": the indefinite article the noun needs (by its first letter). */
export function withArticle(noun: string, { capital = false }: { capital?: boolean } = {}): string {
  const article = /^[aeiou]/i.test(noun) ? 'an' : 'a';
  return `${capital ? article[0]?.toUpperCase() + article.slice(1) : article} ${noun}`;
}
