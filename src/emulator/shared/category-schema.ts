/**
 * Validation of category schemas (E1 groups, E2 organization) and the errors it raises.
 * Every error has the code 400, the message "Unable to assign category schema." and one detail.
 * The spec's Errors table gives ORG_1132 for two conditions only; the others are limits it
 * states without a code, so their envelope has no messageCode (it is optional in the envelope).
 *
 * | messageCode   | detail                                              | condition                                  |
 * |---------------|-----------------------------------------------------|--------------------------------------------|
 * | ORG_1132      | invalid category schema                             | not JSON, or not {categorySchema:[nodes]}, a node not an object, a field of the wrong type, an unknown field |
 * | ORG_1132      | schema exceeds maximum tree size or is empty        | no tree, or more than 5 trees              |
 * | (none)        | schema has more than 4 levels: <path>               | a node deeper than level 4 (tree = level 1)|
 * | (none)        | schema has more than 200 categories: <n>            | nodes below the trees (trees not counted)  |
 * | (none)        | category title is required: <path>                  | missing or blank title                     |
 * | (none)        | category title contains a reserved character: <path>| '/' or ',' in a title                      |
 * | (none)        | category title is too long: <path>                  | group: 100 or more; organization: over 100 |
 * | (none)        | category description is too long: <path>            | group: 300 or more; organization: over 300 |
 */
import { PortalApiError } from '../errors.js';
import type { CategoryNode } from '../state/model.js';
import { isList, isRecord } from './params.js';

export const MAX_TREES = 5;
export const MAX_LEVELS = 4;
export const MAX_CATEGORIES = 200;

export interface CategoryLimits {
  /** Longest allowed title, in characters. */
  maxTitleLength: number;
  maxDescriptionLength: number;
}

/** Groups: "fewer than 100" / "fewer than 300". */
export const GROUP_LIMITS: CategoryLimits = { maxTitleLength: 99, maxDescriptionLength: 299 };
/** Organization: "at most 100" / "at most 300". */
export const ORGANIZATION_LIMITS: CategoryLimits = { maxTitleLength: 100, maxDescriptionLength: 300 };

const reject = (messageCode: string, detail: string): PortalApiError =>
  new PortalApiError(400, 'Unable to assign category schema.', messageCode, [detail]);

/** A rule the spec states without an error code: the same message, no messageCode, the rule in `details`. */
const rejectUndocumented = (detail: string): PortalApiError => new PortalApiError(400, 'Unable to assign category schema.', undefined, [detail]);

const invalidSchema = (): PortalApiError => reject('ORG_1132', 'invalid category schema');

const NODE_FIELDS = new Set(['title', 'description', 'categories']);

/** Parses the JSON text `{"categorySchema":[...]}` and validates it; returns the trees. */
export function parseCategorySchema(text: string, limits: CategoryLimits): CategoryNode[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw invalidSchema();
  }
  const trees = isRecord(document) ? document.categorySchema : undefined;
  if (!isList(trees)) throw invalidSchema();
  // Shape first, so that a malformed schema is always "invalid" whatever its size.
  const parsed = trees.map((tree) => parseNode(tree));
  if (parsed.length === 0 || parsed.length > MAX_TREES) {
    throw reject('ORG_1132', 'schema exceeds maximum tree size or is empty');
  }
  let categories = 0;
  const visit = (node: CategoryNode, level: number, path: string[]): void => {
    const here = [...path, node.title];
    const where = here.join(' > ');
    if (level > MAX_LEVELS) {
      throw rejectUndocumented(`schema has more than ${MAX_LEVELS} levels: ${where}`);
    }
    if (node.title.trim() === '') throw rejectUndocumented(`category title is required: ${where || '(untitled)'}`);
    if (/[/,]/.test(node.title)) {
      throw rejectUndocumented(`category title contains a reserved character ('/' or ','): ${where}`);
    }
    if (node.title.length > limits.maxTitleLength) {
      throw rejectUndocumented(`category title is too long (${node.title.length} characters, at most ${limits.maxTitleLength}): ${where}`);
    }
    if (node.description !== undefined && node.description.length > limits.maxDescriptionLength) {
      throw rejectUndocumented(
        `category description is too long (${node.description.length} characters, at most ${limits.maxDescriptionLength}): ${where}`,
      );
    }
    if (level > 1) categories += 1;
    for (const child of node.categories ?? []) visit(child, level + 1, here);
  };
  for (const tree of parsed) visit(tree, 1, []);
  if (categories > MAX_CATEGORIES) {
    throw rejectUndocumented(`schema has more than ${MAX_CATEGORIES} categories (not counting the trees): ${categories}`);
  }
  return parsed;
}

function parseNode(value: unknown): CategoryNode {
  if (!isRecord(value)) throw invalidSchema();
  if (Object.keys(value).some((key) => !NODE_FIELDS.has(key))) throw invalidSchema();
  const { title, description, categories } = value;
  if (title === undefined) return missingTitle();
  if (typeof title !== 'string') throw invalidSchema();
  if (description !== undefined && description !== null && typeof description !== 'string') throw invalidSchema();
  if (categories !== undefined && categories !== null && !Array.isArray(categories)) throw invalidSchema();
  const node: CategoryNode = { title };
  if (typeof description === 'string') node.description = description;
  if (Array.isArray(categories) && categories.length > 0) node.categories = categories.map((child) => parseNode(child));
  return node;
}

function missingTitle(): never {
  throw rejectUndocumented('category title is required: a node has no title');
}
