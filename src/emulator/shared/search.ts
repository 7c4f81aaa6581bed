/**
 * The `q` of the search operations (`search`, `community/groups`, `community/users`,
 * `portals/self/users/search`): the documented query syntax, for the fields each list supports.
 *
 * From the documentation's Search reference
 * (developers.arcgis.com/rest/users-groups-and-items/search-reference): a query is terms and
 * operators; a term is a word or a "quoted phrase"; `field:value` (or `field:"a phrase"`)
 * searches one field, a bare term the list's default fields; Boolean operators AND, OR and NOT
 * are written in capitals (a lower-case `and` is a word); parentheses group. The query builder of
 * the vendor's JavaScript client (`SearchQueryBuilder` of @esri/arcgis-rest-portal) writes
 * exactly this: `orgid:X AND owner:Y`, `type:"Web Map" OR title:x`, `(a OR b) AND NOT c`.
 *
 * Two choices where the text we could read is silent: adjacent terms without an operator are
 * joined by AND (the narrower reading: a client that means OR writes OR), and a field the list
 * does not support is refused with code 400 naming the fields it does support, rather than
 * searched as text and silently matching nothing.
 */
import type { PortalApiError } from '../errors.js';
import { badRequest, optionalParam, type Params } from './params.js';

export interface SearchTerm {
  /** Lower-cased field name; undefined for a bare term (the default fields). */
  field: string | undefined;
  value: string;
}

export type QueryNode =
  | { kind: 'term'; term: SearchTerm }
  | { kind: 'and' | 'or'; left: QueryNode; right: QueryNode }
  | { kind: 'not'; operand: QueryNode };

/** How one list answers its fields: field name -> does this record match the term's value. */
export interface SearchFields<T> {
  /** What the list holds, for errors ("items", "groups", "users"). */
  what: string;
  fields: Readonly<Record<string, (record: T, value: string) => boolean>>;
  /** A bare term: the list's default fields. */
  text: (record: T, value: string) => boolean;
}

type Token = { kind: 'word'; text: string; quoted: boolean } | { kind: 'open' | 'close' | 'and' | 'or' | 'not' | 'colon' };

const invalidQuery = (q: string, problem: string): PortalApiError =>
  badRequest(`Unable to parse the search query '${q}'.`, [problem, 'See the Search reference: terms, "phrases", field:value, AND, OR, NOT, parentheses.']);

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < q.length) {
    const char = q[index] ?? '';
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '(' || char === ')' || char === ':') {
      tokens.push({ kind: char === '(' ? 'open' : char === ')' ? 'close' : 'colon' });
      index += 1;
    } else if (char === '[') {
      // A range, `[A TO B]`: one value, matched by the fields that hold numbers (`created`).
      const end = q.indexOf(']', index + 1);
      if (end < 0) throw invalidQuery(q, `The range at position ${index + 1} is not closed.`);
      tokens.push({ kind: 'word', text: q.slice(index, end + 1), quoted: true });
      index = end + 1;
    } else if (char === '"') {
      const end = q.indexOf('"', index + 1);
      if (end < 0) throw invalidQuery(q, `The quotation mark at position ${index + 1} is not closed.`);
      tokens.push({ kind: 'word', text: q.slice(index + 1, end), quoted: true });
      index = end + 1;
    } else {
      let end = index;
      while (end < q.length && !/[\s():"[]/.test(q[end] ?? '')) end += 1;
      const text = q.slice(index, end);
      tokens.push(text === 'AND' ? { kind: 'and' } : text === 'OR' ? { kind: 'or' } : text === 'NOT' ? { kind: 'not' } : { kind: 'word', text, quoted: false });
      index = end;
    }
  }
  return tokens;
}

/** Recursive descent: or := and (OR and)*; and := unary ((AND)? unary)*; unary := NOT unary | primary. */
class Parser {
  private position = 0;

  constructor(
    private readonly q: string,
    private readonly tokens: Token[],
  ) {}

  parse(): QueryNode {
    if (this.tokens.length === 0) throw invalidQuery(this.q, 'The query is empty.');
    const node = this.or();
    const rest = this.tokens[this.position];
    if (rest) throw invalidQuery(this.q, rest.kind === 'close' ? 'A closing parenthesis has no opening one.' : `Unexpected ${describe(rest)}.`);
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private or(): QueryNode {
    let node = this.and();
    while (this.peek()?.kind === 'or') {
      this.position += 1;
      node = { kind: 'or', left: node, right: this.and() };
    }
    return node;
  }

  private and(): QueryNode {
    let node = this.unary();
    for (;;) {
      const next = this.peek();
      if (next?.kind === 'and') {
        this.position += 1;
        node = { kind: 'and', left: node, right: this.unary() };
      } else if (next && (next.kind === 'word' || next.kind === 'open' || next.kind === 'not')) {
        node = { kind: 'and', left: node, right: this.unary() };
      } else {
        return node;
      }
    }
  }

  private unary(): QueryNode {
    if (this.peek()?.kind === 'not') {
      this.position += 1;
      return { kind: 'not', operand: this.unary() };
    }
    return this.primary();
  }

  private primary(): QueryNode {
    const token = this.peek();
    if (!token) throw invalidQuery(this.q, 'The query ends where a term was expected.');
    this.position += 1;
    if (token.kind === 'open') {
      const inner = this.or();
      if (this.peek()?.kind !== 'close') throw invalidQuery(this.q, 'An opening parenthesis is not closed.');
      this.position += 1;
      return inner;
    }
    if (token.kind !== 'word') throw invalidQuery(this.q, `Unexpected ${describe(token)} where a term was expected.`);
    if (!token.quoted && this.peek()?.kind === 'colon') {
      this.position += 1;
      const value = this.peek();
      if (value?.kind !== 'word') throw invalidQuery(this.q, `The field '${token.text}' has no value.`);
      this.position += 1;
      return { kind: 'term', term: { field: token.text.toLowerCase(), value: value.text } };
    }
    return { kind: 'term', term: { field: undefined, value: token.text } };
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'word':
      return `'${token.text}'`;
    case 'open':
      return "'('";
    case 'close':
      return "')'";
    case 'colon':
      return "':'";
    default:
      return token.kind.toUpperCase();
  }
}

/**
 * A number field's match: `created:1700000000000` one value, `created:[A TO B]` an inclusive range
 * (the Search reference's range searches, written with zero-padded epoch milliseconds:
 * `created:[0000001249084800000 TO 0000001249548000000]`), `*` for an open end.
 */
export function matchesNumber(actual: number, value: string): boolean {
  const { from, to } = numberRange(value);
  return actual >= from && actual <= to;
}

/** The inclusive bounds a number field's value names (one number: both). */
export function numberRange(value: string): { from: number; to: number } {
  if (/^\d+$/.test(value)) return { from: Number(value), to: Number(value) };
  const range = /^\[\s*(\S+)\s+TO\s+(\S+)\s*\]$/.exec(value);
  const bound = (text: string | undefined, open: number): number | undefined => (text === '*' ? open : text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined);
  const from = bound(range?.[1], -Infinity);
  const to = bound(range?.[2], Infinity);
  if (from === undefined || to === undefined) throw badRequest(`Invalid number or range '${value}'.`, ['A number field takes a whole number, or a range [A TO B] of whole numbers (epoch milliseconds) or *.']);
  return { from, to };
}

export function parseSearchQuery(q: string): QueryNode {
  return new Parser(q, tokenize(q)).parse();
}

/** Every term of the query, in order. */
export function termsOf(node: QueryNode): SearchTerm[] {
  switch (node.kind) {
    case 'term':
      return [node.term];
    case 'not':
      return termsOf(node.operand);
    default:
      return [...termsOf(node.left), ...termsOf(node.right)];
  }
}

/** The terms joined only by AND, when the query is such a conjunction (no OR, no NOT). */
export function conjunction(node: QueryNode): SearchTerm[] | undefined {
  if (node.kind === 'term') return [node.term];
  if (node.kind !== 'and') return undefined;
  const left = conjunction(node.left);
  const right = conjunction(node.right);
  return left && right ? [...left, ...right] : undefined;
}

/**
 * The query as a predicate over the list's records; a field the list does not support is
 * refused before anything is matched.
 */
export function compileSearch<T>(q: string, search: SearchFields<T>): { node: QueryNode; matches: (record: T) => boolean } {
  const node = parseSearchQuery(q);
  for (const term of termsOf(node)) {
    if (term.field !== undefined && !Object.prototype.hasOwnProperty.call(search.fields, term.field)) {
      throw badRequest(`Unsupported search field '${term.field}'.`, [
        `The emulator searches ${search.what} by: ${Object.keys(search.fields).join(', ')}, and by bare terms.`,
      ]);
    }
  }
  const evaluate = (current: QueryNode, record: T): boolean => {
    switch (current.kind) {
      case 'term': {
        const { field, value } = current.term;
        if (field === undefined) return value === '*' || search.text(record, value);
        return search.fields[field]?.(record, value) ?? false;
      }
      case 'and':
        return evaluate(current.left, record) && evaluate(current.right, record);
      case 'or':
        return evaluate(current.left, record) || evaluate(current.right, record);
      case 'not':
        return !evaluate(current.operand, record);
    }
  };
  return { node, matches: (record) => evaluate(node, record) };
}

/** A keyword value: equal without regard to case; `*` matches anything and may end a prefix (`Web*`). */
export function sameKeyword(actual: string | undefined, value: string): boolean {
  if (actual === undefined) return false;
  if (value === '*') return true;
  const want = value.toLowerCase();
  const have = actual.toLowerCase();
  return want.endsWith('*') ? have.startsWith(want.slice(0, -1)) : have === want;
}

/** A text value (titles, names): the words or phrase appear in it, without regard to case. */
export function containsText(actual: string | undefined, value: string): boolean {
  if (actual === undefined) return false;
  if (value === '*') return true;
  const want = value.toLowerCase().replace(/\*$/, '');
  return actual.toLowerCase().includes(want);
}

/** The `q` of a search: required (`missing` builds the list's own error when it is absent or blank). */
export function queryParam(params: Params, missing: () => PortalApiError): string {
  const q = optionalParam(params, 'q');
  if (q === undefined || q.trim() === '') throw missing();
  return q;
}

/**
 * The order of a search's results: `sortField` and `sortOrder` (asc, desc). The emulator sorts by
 * `created` and `title`, which the documentation lists for items and groups alike; without
 * `sortField` the list's own order.
 */
export interface SearchOrder {
  field: 'created' | 'title';
  descending: boolean;
}

export function searchOrderParam(params: Params): SearchOrder | undefined {
  const field = optionalParam(params, 'sortField')?.trim().toLowerCase();
  const direction = optionalParam(params, 'sortOrder')?.trim().toLowerCase();
  if (direction !== undefined && direction !== '' && direction !== 'asc' && direction !== 'desc') throw badRequest(`Invalid sortOrder '${direction}'.`, ["sortOrder is 'asc' or 'desc'."]);
  if (field === undefined || field === '') return undefined;
  if (field !== 'created' && field !== 'title') throw badRequest(`Unsupported sortField '${field}'.`, ['The emulator sorts search results by created or title.']);
  return { field, descending: direction === 'desc' };
}

/** Records in the search's order (stable: equal keys keep the list's order). */
export function sortedBy<T extends { created: number; title: string }>(records: readonly T[], order: SearchOrder): T[] {
  const compare = order.field === 'created' ? (a: T, b: T) => a.created - b.created : (a: T, b: T) => a.title.localeCompare(b.title);
  return [...records].sort((a, b) => (order.descending ? compare(b, a) : compare(a, b)));
}
