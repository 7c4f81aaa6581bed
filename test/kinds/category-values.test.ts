/**
 * The category-schema helpers written for large organizations agree with the definitions they
 * replaced: normalising returns a tree already in shape as it is and writes the same text as
 * the copying definition; the in-place comparison says what comparing the built comparable
 * trees says; the rule check walks in declaration order with the same paths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepEqual, type JsonObject, type JsonValue } from '../../src/core/json.js';
import { checkCategorySchema, comparableCategories, normaliseCategories, sameComparableCategories } from '../../src/kinds/toolkit/category-schema.js';
import type { CheckContext, DesiredObject } from '../../src/kinds/toolkit/contract.js';
import { isCategoryForest } from '../../src/engine/render/tree.js';

/** normaliseCategories as it was: always a copy. */
function referenceNormalise(nodes: JsonValue[]): JsonValue[] {
  return nodes.map((node) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
    const normalised: JsonObject = { title: node['title'] ?? null };
    if (typeof node['description'] === 'string') normalised['description'] = node['description'];
    const children = node['categories'];
    if (Array.isArray(children) && children.length > 0) normalised['categories'] = referenceNormalise(children);
    return normalised;
  });
}

const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY), fc.constantFrom('', 'A', 'B', 'Tree'));
/** Nodes in every shape a config or an answer may hold: keys in any order, missing, empty, extra, wrong types. */
const forest = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc
      .record(
        {
          title: fc.oneof(fc.constantFrom('A', 'B', 'Tree'), scalar),
          description: fc.oneof(fc.constantFrom('', 'About', 'Other'), scalar),
          categories: fc.oneof(tie('list'), fc.constant([]), scalar),
          extra: scalar,
        },
        { requiredKeys: [] },
      )
      .chain((node) => fc.shuffledSubarray(Object.keys(node), { minLength: Object.keys(node).length }).map((keys) => Object.fromEntries(keys.map((key) => [key, node[key as keyof typeof node]])))),
  ),
  list: fc.array(tie('node'), { maxLength: 3 }),
})).list as fc.Arbitrary<JsonValue[]>;

describe('category schema values', () => {
  it('normalise to the same text as the copying definition, and keep a tree already in shape', () => {
    fc.assert(
      fc.property(forest, (trees) => {
        const normalised = normaliseCategories(trees);
        expect(JSON.stringify(normalised)).toBe(JSON.stringify(referenceNormalise(trees)));
        // Normalising a normal tree gives the very same tree.
        expect(normaliseCategories(normalised)).toBe(normalised);
      }),
      { numRuns: 3000 },
    );
  });

  it('leave the declared tree untouched', () => {
    fc.assert(
      fc.property(forest, (trees) => {
        const before = JSON.stringify(trees);
        normaliseCategories(trees);
        expect(JSON.stringify(trees)).toBe(before);
      }),
    );
  });

  it('compare in place exactly as the built comparable trees compare', () => {
    fc.assert(
      fc.property(forest, forest, fc.boolean(), (a, b, related) => {
        // Half the time against a variant of the same tree, so equal pairs are well represented.
        const other = related ? referenceNormalise(a) : b;
        expect(sameComparableCategories(a, other)).toBe(deepEqual(comparableCategories(a), comparableCategories(other)));
      }),
      { numRuns: 3000 },
    );
  });

  it('are recognised as a forest for rendering exactly when every node is a titled node', () => {
    const titled = [{ title: 'A', description: 'x', categories: [{ title: 'B', categories: [] }] }];
    expect(isCategoryForest(titled)).toBe(true);
    expect(isCategoryForest([{ title: 'A', categories: [{ title: 1 }] }])).toBe(false);
    expect(isCategoryForest([{ title: 'A', categories: [{ title: 'B', other: 1 }] }])).toBe(false);
    expect(isCategoryForest([{ title: 'A', categories: 'B' }])).toBe(false);
    expect(isCategoryForest('A')).toBe(false);
  });

  it('are checked node by node in declaration order, each problem at its path', () => {
    const paths: (string | number)[][] = [];
    const context: CheckContext = {
      portal: {},
      all: [],
      locate: (_obj, path) => {
        paths.push([...path]);
        return { file: 'c.yaml', line: 1, column: 1 };
      },
    };
    const deep = { title: 'L1', categories: [{ title: 'L2', categories: [{ title: 'L3', categories: [{ title: 'L4', categories: [{ title: 'L/5' }] }] }] }] };
    const trees: JsonValue = [{ title: 'T,1', categories: [{ title: 'A' }, { title: ' ' }] }, deep];
    const obj = { kind: 'group.categorySchema', address: 'group[g].categorySchema', ids: {}, value: trees, absent: false, destructive: false, source: { file: 'c.yaml', line: 1, column: 1 } } as DesiredObject;
    const codes = checkCategorySchema(obj, context, { owner: 'group' }).map((diagnostic) => diagnostic.code);
    expect(codes).toEqual(['category-schema/reserved-character', 'category-schema/empty-title', 'category-schema/too-deep', 'category-schema/reserved-character']);
    expect(paths).toEqual([
      [0, 'title'],
      [0, 'categories', 1, 'title'],
      [1, 'categories', 0, 'categories', 0, 'categories', 0, 'categories', 0],
      [1, 'categories', 0, 'categories', 0, 'categories', 0, 'categories', 0, 'title'],
    ]);
  });
});
