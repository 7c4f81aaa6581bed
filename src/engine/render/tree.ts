/**
 * Category schemas diffed as trees: nodes are matched by title among their siblings, a title
 * found once in each tree under different parents is a move, and a lone removed node beside a
 * lone added one is a rename. Unchanged nodes are counted, not listed.
 */
import type { JsonValue } from '../../core/json.js';
import { changeLine, line, type DiffLine } from './lines.js';
import { DEFAULT_VALUE_STYLE, inlineValue, type ValueStyle } from './values.js';

interface CategoryNode {
  title: string;
  description?: JsonValue;
  categories: CategoryNode[];
}

const NODE_KEYS = new Set(['title', 'description', 'categories']);

/** Whether `value` is a titled node with only the node keys, its children nodes too. */
function isNode(value: JsonValue): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (typeof value['title'] !== 'string') return false;
  for (const key in value) if (!NODE_KEYS.has(key)) return false;
  const children = value['categories'];
  return children === undefined || isCategoryForest(children);
}

/** The node of a value isNode accepted (checked once, not again at every level). */
function asNode(value: JsonValue): CategoryNode {
  const record = value as { [key: string]: JsonValue };
  const children = record['categories'];
  const node: CategoryNode = { title: record['title'] as string, categories: Array.isArray(children) ? children.map(asNode) : [] };
  if (record['description'] !== undefined) node.description = record['description'];
  return node;
}

/** A list of titled nodes with optional `description` and child `categories`: a category schema. */
export function isCategoryForest(value: JsonValue | undefined): value is JsonValue[] {
  return Array.isArray(value) && value.every(isNode);
}

/** Only for values isCategoryForest accepted. */
const toNodes = (value: JsonValue | undefined): CategoryNode[] => (Array.isArray(value) ? value.map(asNode) : []);

/** Every node under its parent's path (titles joined by ` / `), for finding moves. */
function parentsByTitle(nodes: readonly CategoryNode[], parent: string, into = new Map<string, string[]>()): Map<string, string[]> {
  for (const node of nodes) {
    into.set(node.title, [...(into.get(node.title) ?? []), parent]);
    parentsByTitle(node.categories, parent ? `${parent} / ${node.title}` : node.title, into);
  }
  return into;
}

const countNodes = (nodes: readonly CategoryNode[]): number => nodes.reduce((sum, node) => sum + 1 + countNodes(node.categories), 0);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? 'y' : 'ies'}`;

interface Context {
  /** Title -> [old parent, new parent] of nodes that moved to another parent. */
  moves: Map<string, { from: string; to: string }>;
  movedNodes: Map<string, CategoryNode>;
  style: ValueStyle;
}

function whole(node: CategoryNode, mark: '+' | '-', depth: number, style: ValueStyle, note = ''): DiffLine[] {
  const lines = [line(mark, depth, `${node.title}${note}`)];
  if (node.description !== undefined) lines.push(line(mark, depth + 1, `description: ${inlineValue(node.description, 'description', style)}`));
  for (const child of node.categories) lines.push(...whole(child, mark, depth + 1, style));
  return lines;
}

/** What changed inside a node kept (same title, renamed or moved): its description and children. */
function inside(before: CategoryNode, after: CategoryNode, depth: number, path: string, context: Context): DiffLine[] {
  const lines: DiffLine[] = [];
  if (JSON.stringify(before.description) !== JSON.stringify(after.description)) {
    lines.push(changeLine(depth, 'description', inlineValue(before.description, 'description', context.style), inlineValue(after.description, 'description', context.style)));
  }
  lines.push(...siblings(before.categories, after.categories, depth, path, context));
  return lines;
}

function siblings(before: readonly CategoryNode[], after: readonly CategoryNode[], depth: number, path: string, context: Context): DiffLine[] {
  const lines: DiffLine[] = [];
  const beforeByTitle = new Map(before.map((node, index) => [node.title, { node, index }] as const));
  const afterTitles = new Set(after.map((node) => node.title));
  const keptBefore = before.filter((node) => afterTitles.has(node.title)).map((node) => node.title);
  const keptAfter = after.filter((node) => beforeByTitle.has(node.title)).map((node) => node.title);
  const added = after.filter((node) => !beforeByTitle.has(node.title) && !context.moves.has(node.title));
  const removed = before.filter((node) => !afterTitles.has(node.title) && !context.moves.has(node.title));
  // Renamed only where it cannot be read another way: one node gone, one new, side by side.
  const renamed = added.length === 1 && removed.length === 1 ? { from: removed[0] as CategoryNode, to: added[0] as CategoryNode } : undefined;
  let unchanged = 0;

  for (const node of after) {
    const childPath = path ? `${path} / ${node.title}` : node.title;
    const kept = beforeByTitle.get(node.title);
    if (kept) {
      const details = inside(kept.node, node, depth + 1, childPath, context);
      const from = keptBefore.indexOf(node.title);
      const to = keptAfter.indexOf(node.title);
      const note = from !== to ? `  (moved from position ${kept.index + 1} to ${after.indexOf(node) + 1})` : '';
      if (details.length === 0 && !note) unchanged += 1 + countNodes(node.categories);
      else lines.push(line('~', depth, `${node.title}${note}`), ...details);
    } else if (context.moves.has(node.title)) {
      const move = context.moves.get(node.title) as { from: string; to: string };
      const old = context.movedNodes.get(node.title) as CategoryNode;
      lines.push(line('~', depth, `${node.title}  (moved from ${move.from || 'the top level'})`), ...inside(old, node, depth + 1, childPath, context));
    } else if (renamed && renamed.to === node) {
      lines.push(line('~', depth, `${renamed.from.title} -> ${node.title}  (renamed)`), ...inside(renamed.from, node, depth + 1, childPath, context));
    } else {
      lines.push(...whole(node, '+', depth, context.style));
    }
  }
  for (const node of removed) if (!(renamed && renamed.from === node)) lines.push(...whole(node, '-', depth, context.style));
  for (const node of before) {
    const move = context.moves.get(node.title);
    if (move && !afterTitles.has(node.title)) lines.push(line('#', depth, `${node.title} moved to ${move.to || 'the top level'}`));
  }
  if (unchanged) lines.push(line('#', depth, `(${plural(unchanged, 'unchanged categor')} hidden)`));
  return lines;
}

/** The lines of a category schema change, `depth` deep. */
export function categoryTreeLines(before: JsonValue | undefined, after: JsonValue | undefined, depth = 0, style: ValueStyle = DEFAULT_VALUE_STYLE): DiffLine[] {
  const old = toNodes(before);
  const now = toNodes(after);
  const oldParents = parentsByTitle(old, '');
  const newParents = parentsByTitle(now, '');
  const moves = new Map<string, { from: string; to: string }>();
  const movedNodes = new Map<string, CategoryNode>();
  for (const [title, [from, ...otherFrom]] of oldParents) {
    const [to, ...otherTo] = newParents.get(title) ?? [];
    // A title seen once on each side, under another parent: the same category, moved.
    if (from !== undefined && to !== undefined && otherFrom.length === 0 && otherTo.length === 0 && from !== to) moves.set(title, { from, to });
  }
  const collect = (nodes: readonly CategoryNode[]): void => {
    for (const node of nodes) {
      if (moves.has(node.title)) movedNodes.set(node.title, node);
      collect(node.categories);
    }
  };
  collect(old);
  return siblings(old, now, depth, '', { moves, movedNodes, style });
}
