/**
 * What the group (E1) and organization (E2) category schemas share: the node schema, the
 * normalised value and the spec's limits, which differ slightly between the two.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { CheckContext, ConfigContribution, DesiredObject, JsonSchema } from './contract.js';
import { deepEqual, type JsonObject, type JsonValue } from '../../core/json.js';
import { withArticle } from '../../core/words.js';
import { characterCount, isObject, problem } from './support.js';
import { entryProperty } from './config-entries.js';

export const maxTrees = 5;
/** Hierarchical levels, the tree itself included. */
export const maxLevels = 4;
/** Categories and subcategories (the trees themselves not counted). */
export const maxCategories = 200;

export interface CategoryLimits {
  /** `group` wording: titles under 100 and descriptions under 300 characters; `organization`: up to. */
  owner: 'group' | 'organization';
}

function titleLimit(limits: CategoryLimits): number {
  return limits.owner === 'group' ? 99 : 100;
}
function descriptionLimit(limits: CategoryLimits): number {
  return limits.owner === 'group' ? 299 : 300;
}

/**
 * A string without the reserved characters, or one holding a `${env:}`/`${file:}` reference (an
 * editor sees the reference, not its value; validate checks the value).
 */
const withoutReserved = '^(?:[^/,]*|.*\\$\\{(?:env|file):[^}]*\\}.*)$';

/**
 * The node schema, nested `maxLevels` deep; deeper nesting is left to the rule check's clearer
 * message. The limits that JSON Schema can say are here too, for editors; the rule check
 * (checkNodeText) reports them with the spec's wording, and validate shows each problem once.
 */
function nodeSchema(level: number, limits: CategoryLimits): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: {
      title: {
        type: 'string',
        maxLength: titleLimit(limits),
        pattern: withoutReserved,
        patternErrorMessage: 'The characters / and , are reserved in category titles.',
        description: 'Category title. The characters / and , are reserved.',
        examples: ['Transportation', 'Public safety'],
      },
      description: { type: 'string', maxLength: descriptionLimit(limits), description: 'Optional description.', examples: ['Roads, bridges and transit'] },
      categories:
        level < maxLevels
          ? { type: 'array', description: 'Child categories.', items: nodeSchema(level + 1, limits) }
          : { type: 'array', description: `At most ${maxLevels} levels, the tree included.` },
    },
  };
}

/** The `categorySchema` property of a container's entries (a group, or the organization). */
export function categorySchemaContribution(container: string, description: string, limits: CategoryLimits): ConfigContribution {
  return entryProperty(container, 'categorySchema', categorySchemaSchema(description, limits), (trees) =>
    Array.isArray(trees) ? normaliseCategories(trees) : undefined,
  );
}

export function categorySchemaSchema(description: string, limits: CategoryLimits): JsonSchema {
  return {
    type: 'array',
    minItems: 1,
    maxItems: maxTrees,
    description: `${description} A list of at most ${maxTrees} trees, ${maxLevels} levels deep (tree included), at most ${maxCategories} categories.`,
    examples: [[{ title: 'Themes', categories: [{ title: 'Transportation', categories: [{ title: 'Roads' }] }] }]],
    items: nodeSchema(1, limits),
  };
}

/**
 * Declared trees, normalised: `description` and `categories` only when given (empty lists
 * dropped). A tree that is already in that shape (the usual case) is returned as it is, not
 * copied: a large organization declares hundreds of thousands of categories.
 */
export function normaliseCategories(nodes: JsonValue[]): JsonValue[] {
  let copy: JsonValue[] | undefined;
  nodes.forEach((node, index) => {
    if (isObject(node) && !isNormalNode(node)) {
      copy ??= nodes.slice(0, index);
      copy.push(normaliseNode(node));
    } else copy?.push(node);
  });
  return copy ?? nodes;
}

function normaliseNode(node: JsonObject): JsonObject {
  const normalised: JsonObject = { title: node['title'] ?? null };
  if (typeof node['description'] === 'string') normalised['description'] = node['description'];
  const children = node['categories'];
  if (Array.isArray(children) && children.length > 0) normalised['categories'] = normaliseCategories(children);
  return normalised;
}

/** Whether normaliseNode would give an equal node with the same keys in the same order. */
function isNormalNode(node: JsonObject): boolean {
  // The keys in order: title, then description (a string), then categories (a normal, non-empty list).
  let step = 0;
  for (const key in node) {
    if (key === 'title' && step === 0) step = 1;
    else if (key === 'description' && step === 1 && typeof node[key] === 'string') step = 2;
    else if (key === 'categories' && step >= 1 && step <= 2) {
      const children = node[key];
      if (!Array.isArray(children) || children.length === 0 || normaliseCategories(children) !== children) return false;
      step = 3;
    } else return false;
  }
  return step > 0;
}

export function checkCategorySchema(obj: DesiredObject, ctx: CheckContext, limits: CategoryLimits): Diagnostic[] {
  const trees = obj.value;
  if (!Array.isArray(trees)) return [];
  const diagnostics: Diagnostic[] = [];
  if (trees.length === 0) {
    diagnostics.push(
      problem(ctx, obj, [], {
        code: 'category-schema/empty',
        message: 'The portal rejects an empty category schema (ORG_1132).',
        value: [],
        expected: `between 1 and ${maxTrees} trees`,
      }),
    );
  }
  if (trees.length > maxTrees) {
    diagnostics.push(
      problem(ctx, obj, [maxTrees], {
        code: 'category-schema/too-many-trees',
        message: `A category schema holds at most ${maxTrees} trees; this one has ${trees.length}.`,
        value: trees.length,
        expected: `at most ${maxTrees} trees`,
      }),
    );
  }
  let categories = 0;
  // Iterative walk in declaration order, so hostile nesting cannot exhaust the stack: one frame
  // per level (its list and the next position) and one shared path, copied only for a diagnostic.
  const frames: { nodes: JsonValue[]; next: number }[] = [{ nodes: trees, next: 0 }];
  const path: (string | number)[] = [];
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    const depth = frames.length - 1;
    const index = frame.next;
    if (index >= frame.nodes.length) {
      frames.pop();
      continue;
    }
    frame.next = index + 1;
    // The node's path: its ancestors' positions, each followed by 'categories', then its own.
    path.length = 2 * depth;
    path.push(index);
    const node = frame.nodes[index] ?? null;
    const level = depth + 1;
    if (!isObject(node)) continue;
    if (level > 1) {
      categories += 1;
      if (categories === maxCategories + 1) {
        diagnostics.push(
          problem(ctx, obj, [...path], {
            code: 'category-schema/too-many-categories',
            message: `${withArticle(limits.owner, { capital: true })} holds at most ${maxCategories} categories and subcategories; this is number ${categories}.`,
            value: node['title'],
            expected: `at most ${maxCategories} categories`,
          }),
        );
      }
    }
    if (level > maxLevels) {
      diagnostics.push(
        problem(ctx, obj, [...path], {
          code: 'category-schema/too-deep',
          message: `A category schema has at most ${maxLevels} levels, the tree included; this category is on level ${level}.`,
          value: node['title'],
          expected: `at most ${maxLevels} levels`,
        }),
      );
    }
    checkNodeText(node, path, obj, ctx, limits, diagnostics);
    const children = node['categories'];
    if (Array.isArray(children)) {
      path.push('categories');
      frames.push({ nodes: children, next: 0 });
    }
  }
  return diagnostics;
}

function checkNodeText(
  node: JsonObject,
  path: (string | number)[],
  obj: DesiredObject,
  ctx: CheckContext,
  limits: CategoryLimits,
  diagnostics: Diagnostic[],
): void {
  const title = node['title'];
  const wording = limits.owner === 'group' ? 'fewer than' : 'at most';
  if (typeof title === 'string') {
    const length = characterCount(title);
    if (length > titleLimit(limits)) {
      diagnostics.push(
        problem(ctx, obj, [...path, 'title'], {
          code: 'category-schema/title-too-long',
          message: `${withArticle(limits.owner, { capital: true })} category title has ${wording} 100 characters; this one has ${length}.`,
          value: title,
          expected: `at most ${titleLimit(limits)} characters`,
        }),
      );
    }
    if (/[/,]/.test(title)) {
      diagnostics.push(
        problem(ctx, obj, [...path, 'title'], {
          code: 'category-schema/reserved-character',
          message: 'The characters / and , are reserved in category titles.',
          value: title,
          expected: 'a title without / and ,',
        }),
      );
    }
    if (title.trim() === '') {
      diagnostics.push(
        problem(ctx, obj, [...path, 'title'], {
          code: 'category-schema/empty-title',
          message: 'Every category needs a title.',
          value: title,
          expected: 'a non-empty title',
        }),
      );
    }
  }
  const description = node['description'];
  if (typeof description === 'string') {
    const length = characterCount(description);
    if (length > descriptionLimit(limits)) {
      diagnostics.push(
        problem(ctx, obj, [...path, 'description'], {
          code: 'category-schema/description-too-long',
          message: `${withArticle(limits.owner, { capital: true })} category description has ${wording} 300 characters; this one has ${length}.`,
          value: description,
          expected: `at most ${descriptionLimit(limits)} characters`,
        }),
      );
    }
  }
}

// ---- Live half shared by E1 and E2 ----

/** Trees as the portal compares them: an empty description is no description, an empty child list no children. */
export function comparableCategories(nodes: JsonValue[]): JsonValue[] {
  return nodes.map((node) => {
    if (!isObject(node)) return node;
    const comparable: JsonObject = { title: node['title'] ?? null };
    const description = node['description'];
    if (typeof description === 'string' && description !== '') comparable['description'] = description;
    const children = node['categories'];
    if (Array.isArray(children) && children.length > 0) comparable['categories'] = comparableCategories(children);
    return comparable;
  });
}

/**
 * `deepEqual(comparableCategories(a), comparableCategories(b))` without building either: every
 * plan compares every declared schema with its recorded or live one.
 */
export function sameComparableCategories(a: readonly JsonValue[], b: readonly JsonValue[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((node, index) => sameComparableNode(node, b[index]));
}

function sameComparableNode(a: JsonValue, b: JsonValue | undefined): boolean {
  if (!isObject(a) || !isObject(b)) return !isObject(a) && !isObject(b) && deepEqual(a, b);
  const left = a['title'] ?? null;
  const right = b['title'] ?? null;
  // Titles are strings, compared directly; deepEqual decides for anything else a config may hold.
  if (left !== right && ((typeof left === 'string' && typeof right === 'string') || !deepEqual(left, right))) return false;
  if (comparableDescription(a) !== comparableDescription(b)) return false;
  const leftChildren = comparableChildren(a);
  const rightChildren = comparableChildren(b);
  if (leftChildren === undefined || rightChildren === undefined) return leftChildren === rightChildren;
  return sameComparableCategories(leftChildren, rightChildren);
}

function comparableDescription(node: JsonObject): string | undefined {
  const description = node['description'];
  return typeof description === 'string' && description !== '' ? description : undefined;
}

function comparableChildren(node: JsonObject): JsonValue[] | undefined {
  const children = node['categories'];
  return Array.isArray(children) && children.length > 0 ? children : undefined;
}

/** The live schema of a `GET .../categorySchema` answer, normalised; null when it has no tree (or the owner does not exist). */
export function liveCategorySchema(answer: JsonObject | undefined): JsonValue {
  const trees = answer?.['categorySchema'];
  if (!Array.isArray(trees) || trees.length === 0) return null;
  return normaliseCategories(trees);
}

/** How E1 and E2 read and compare a schema: the trees as the portal compares them (none = no trees). */
export const categorySchemaValue = {
  read: (record: JsonObject): JsonValue => liveCategorySchema(record),
  compare: (trees: JsonValue): JsonValue => (Array.isArray(trees) ? comparableCategories(trees) : []),
  same: (a: JsonValue, b: JsonValue): boolean => sameComparableCategories(Array.isArray(a) ? a : [], Array.isArray(b) ? b : []),
  action: (): 'update' => 'update',
};

/** The form of an assignCategorySchema request: the trees wrapped as `{"categorySchema":[...]}`, encoded as JSON text once. */
export function categorySchemaForm(desired: DesiredObject): Record<string, JsonValue> {
  return { categorySchema: { categorySchema: Array.isArray(desired.value) ? desired.value : [] } };
}
