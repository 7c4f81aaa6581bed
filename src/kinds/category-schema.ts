/**
 * What the group (E1) and organization (E2) category schemas share: the node schema, the
 * normalised value and the spec's limits, which differ slightly between the two.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import type { CheckContext, ConfigContribution, DesiredObject, JsonSchema } from './contract.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import { withArticle } from '../core/words.js';
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

/** The node schema, nested `maxLevels` deep; deeper nesting is left to the rule check's clearer message. */
function nodeSchema(level: number): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: {
      title: { type: 'string', description: 'Category title. The characters / and , are reserved.' },
      description: { type: 'string', description: 'Optional description.' },
      categories:
        level < maxLevels
          ? { type: 'array', description: 'Child categories.', items: nodeSchema(level + 1) }
          : { type: 'array', description: `At most ${maxLevels} levels, the tree included.` },
    },
  };
}

/** The `categorySchema` property of a container's entries (a group, or the organization). */
export function categorySchemaContribution(container: string, description: string): ConfigContribution {
  return entryProperty(container, 'categorySchema', categorySchemaSchema(description), (trees) =>
    Array.isArray(trees) ? normaliseCategories(trees) : undefined,
  );
}

export function categorySchemaSchema(description: string): JsonSchema {
  return {
    type: 'array',
    description: `${description} A list of at most ${maxTrees} trees, ${maxLevels} levels deep (tree included), at most ${maxCategories} categories.`,
    items: nodeSchema(1),
  };
}

/** Declared trees, normalised: `description` and `categories` only when given (empty lists dropped). */
export function normaliseCategories(nodes: JsonValue[]): JsonValue[] {
  return nodes.map((node) => {
    if (!isObject(node)) return node;
    const normalised: JsonObject = { title: node['title'] ?? null };
    if (typeof node['description'] === 'string') normalised['description'] = node['description'];
    const children = node['categories'];
    if (Array.isArray(children) && children.length > 0) normalised['categories'] = normaliseCategories(children);
    return normalised;
  });
}

interface PendingNode {
  node: JsonValue;
  path: (string | number)[];
  level: number;
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
  // Iterative walk in declaration order, so hostile nesting cannot exhaust the stack.
  const pending: PendingNode[] = trees.map((node, index) => ({ node, path: [index], level: 1 })).reverse();
  while (pending.length > 0) {
    const { node, path, level } = pending.pop() as PendingNode;
    if (!isObject(node)) continue;
    if (level > 1) {
      categories += 1;
      if (categories === maxCategories + 1) {
        diagnostics.push(
          problem(ctx, obj, path, {
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
        problem(ctx, obj, path, {
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
      for (let index = children.length - 1; index >= 0; index -= 1) {
        pending.push({ node: children[index] ?? null, path: [...path, 'categories', index], level: level + 1 });
      }
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
  action: (): 'update' => 'update',
};

/** The form of an assignCategorySchema request: the trees wrapped as `{"categorySchema":[...]}`, encoded as JSON text once. */
export function categorySchemaForm(desired: DesiredObject): Record<string, JsonValue> {
  return { categorySchema: { categorySchema: Array.isArray(desired.value) ? desired.value : [] } };
}
