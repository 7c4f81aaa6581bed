import { describe, expect, it } from 'vitest';
import type { CategoryNode } from '../../../src/emulator/state/model.js';
import { body, call, expectApiError, sampleState } from './helpers.js';

const GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c'; // owner jsmith, manager admin
const ASSIGN_GROUP = '/community/groups/:groupId/assignCategorySchema';
const ASSIGN_ORG = '/portals/:portalId/assignCategorySchema';

const wrap = (trees: unknown): string => JSON.stringify({ categorySchema: trees });
const chain = (depth: number): CategoryNode => {
  let node: CategoryNode = { title: `L${depth}` };
  for (let level = depth - 1; level >= 1; level -= 1) node = { title: `L${level}`, categories: [node] };
  return node;
};
const withChildren = (count: number): CategoryNode => ({
  title: 'Root',
  categories: Array.from({ length: count }, (_, index) => ({ title: `C${index}` })),
});

function assignGroup(schemaText: string, as = 'jsmith', state = sampleState()) {
  return call(state, ASSIGN_GROUP, { params: { categorySchema: schemaText }, pathParams: { groupId: GROUP }, as });
}
function assignOrg(schemaText: string, state = sampleState()) {
  return call(state, ASSIGN_ORG, { params: { categorySchema: schemaText } });
}

describe('E1 group assignCategorySchema', () => {
  it('stores the trees and reads them back', () => {
    const state = sampleState();
    const trees = [{ title: 'Assets', description: 'Field assets', categories: [{ title: 'Culverts' }] }];
    expect(body(assignGroup(wrap(trees), 'jsmith', state))).toEqual({ success: true });
    expect(body(call(state, '/community/groups/:groupId/categorySchema', { pathParams: { groupId: GROUP } }))).toEqual({
      categorySchema: trees,
    });
  });

  it('lets the owner, a manager, an admin and holders of portal:admin:updateGroups assign; others get GWM_0003', () => {
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'jsmith'))).toEqual({ success: true });
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'admin'))).toEqual({ success: true });
    const state = sampleState();
    state.groups[0]!.managers = ['mlopez'];
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'mlopez', state))).toEqual({ success: true });
    expectApiError(() => assignGroup(wrap([{ title: 'A' }]), 'steward'), { code: 403, messageCode: 'GWM_0003' });
    const withPrivilege = sampleState();
    withPrivilege.roles[2]!.privileges.push('portal:admin:updateGroups');
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'steward', withPrivilege))).toEqual({ success: true });
  });

  it('answers CONT_0006 for an unknown group', () => {
    expectApiError(
      () => call(sampleState(), ASSIGN_GROUP, { params: { categorySchema: wrap([{ title: 'A' }]) }, pathParams: { groupId: 'nope' } }),
      { code: 400, messageCode: 'CONT_0006' },
    );
  });

  it('exists from self-managed 10.6.1 and always on hosted', () => {
    const old = sampleState();
    old.organization.version = '10.6';
    expectApiError(() => assignGroup(wrap([{ title: 'A' }]), 'jsmith', old), { code: 400, says: /^Invalid URL/, detail: '10.6.1' });
    const exact = sampleState();
    exact.organization.version = '10.6.1';
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'jsmith', exact))).toEqual({ success: true });
    const hosted = sampleState();
    hosted.organization.edition = 'hosted';
    hosted.organization.version = '2018.1';
    expect(body(assignGroup(wrap([{ title: 'A' }]), 'jsmith', hosted))).toEqual({ success: true });
  });

  it('rejects syntax errors with ORG_1132 "invalid category schema"', () => {
    for (const text of ['{not json', '[]', '{"categorySchema":{}}', wrap(['x']), wrap([{ title: 3 }]), wrap([{ title: 'A', extra: 1 }])]) {
      expectApiError(() => assignGroup(text), { code: 400, messageCode: 'ORG_1132', detail: 'invalid category schema' });
    }
  });

  it('allows 1 to 5 trees; 0 and 6 are ORG_1132 "exceeds maximum tree size or is empty"', () => {
    const trees = (count: number) => Array.from({ length: count }, (_, index) => ({ title: `T${index}` }));
    expect(body(assignGroup(wrap(trees(5))))).toEqual({ success: true });
    for (const count of [0, 6]) {
      expectApiError(() => assignGroup(wrap(trees(count))), {
        code: 400,
        messageCode: 'ORG_1132',
        detail: 'schema exceeds maximum tree size or is empty',
      });
    }
  });

  it('allows 4 levels including the tree, not 5', () => {
    expect(body(assignGroup(wrap([chain(4)])))).toEqual({ success: true });
    expectApiError(() => assignGroup(wrap([chain(5)])), { code: 400, says: /more than 4 levels/, detail: 'L1 > L2 > L3 > L4 > L5' });
  });

  it('allows 200 categories below the trees (trees not counted), not 201', () => {
    expect(body(assignGroup(wrap([withChildren(200)])))).toEqual({ success: true });
    expect(body(assignGroup(wrap([withChildren(100), withChildren(100)])))).toEqual({ success: true });
    expectApiError(() => assignGroup(wrap([withChildren(100), withChildren(101)])), { code: 400, says: /more than 200 categories/, detail: '201' });
  });

  it('needs a title without / or ,', () => {
    expectApiError(() => assignGroup(wrap([{ description: 'x' }])), { code: 400, says: /title is required/ });
    expectApiError(() => assignGroup(wrap([{ title: '  ' }])), { code: 400, says: /title is required/ });
    expectApiError(() => assignGroup(wrap([{ title: 'A', categories: [{ title: 'B/C' }] }])), {
      code: 400,
      says: /reserved character/,
      detail: 'A > B/C',
    });
    expectApiError(() => assignGroup(wrap([{ title: 'B,C' }])), { code: 400, says: /reserved character/ });
  });

  it('keeps group titles under 100 and descriptions under 300 characters', () => {
    expect(body(assignGroup(wrap([{ title: 'x'.repeat(99), description: 'd'.repeat(299) }])))).toEqual({ success: true });
    expectApiError(() => assignGroup(wrap([{ title: 'x'.repeat(100) }])), { code: 400, says: /title is too long/ });
    expectApiError(() => assignGroup(wrap([{ title: 'A', description: 'd'.repeat(300) }])), { code: 400, says: /description is too long/ });
  });

  it('needs the categorySchema parameter', () => {
    expectApiError(() => call(sampleState(), ASSIGN_GROUP, { pathParams: { groupId: GROUP } }), { code: 400, says: /is required|cannot be empty/ });
  });

  it('leaves the stored schema alone when it rejects', () => {
    const state = sampleState();
    const before = structuredClone(state.groups[1]!.categorySchema);
    expectApiError(
      () => call(state, ASSIGN_GROUP, { params: { categorySchema: wrap([chain(5)]) }, pathParams: { groupId: state.groups[1]!.id } }),
      { code: 400, says: /more than 4 levels/ },
    );
    expect(state.groups[1]!.categorySchema).toEqual(before);
  });
});

describe('E2 organization assignCategorySchema', () => {
  it('accepts the parameter or the whole JSON body, and reads back', () => {
    const state = sampleState();
    expect(body(assignOrg(wrap([{ title: 'Themes' }]), state))).toEqual({ success: true });
    expect(body(call(state, '/portals/:portalId/categorySchema'))).toEqual({ categorySchema: [{ title: 'Themes' }] });
    expect(body(call(state, ASSIGN_ORG, { rawBody: wrap([{ title: 'Raw' }]) }))).toEqual({ success: true });
    expect(state.organization.categorySchema).toEqual([{ title: 'Raw' }]);
    expectApiError(() => call(state, ASSIGN_ORG, {}), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => call(state, ASSIGN_ORG, { rawBody: 'oops' }), { code: 400, messageCode: 'ORG_1132', detail: 'invalid category schema' });
  });

  it('allows titles up to 100 and descriptions up to 300 characters', () => {
    expect(body(assignOrg(wrap([{ title: 'x'.repeat(100), description: 'd'.repeat(300) }])))).toEqual({ success: true });
    expectApiError(() => assignOrg(wrap([{ title: 'x'.repeat(101) }])), { code: 400, says: /title is too long/ });
    expectApiError(() => assignOrg(wrap([{ title: 'A', description: 'd'.repeat(301) }])), { code: 400, says: /description is too long/ });
  });

  it('has the same tree, level and count limits', () => {
    expectApiError(() => assignOrg(wrap([])), { code: 400, messageCode: 'ORG_1132', detail: 'schema exceeds maximum tree size or is empty' });
    expectApiError(() => assignOrg(wrap([chain(5)])), { code: 400, says: /more than 4 levels/ });
    expect(body(assignOrg(wrap([withChildren(200)])))).toEqual({ success: true });
    expectApiError(() => assignOrg(wrap([withChildren(201)])), { code: 400, says: /more than 200 categories/ });
  });

  it('is for default admins and holders of portal:admin:updateItemCategorySchema', () => {
    const state = sampleState();
    expect(body(call(state, ASSIGN_ORG, { params: { categorySchema: wrap([{ title: 'S' }]) }, as: 'steward' }))).toEqual({ success: true });
    expectApiError(() => call(state, ASSIGN_ORG, { params: { categorySchema: wrap([{ title: 'S' }]) }, as: 'jsmith' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
  });
});
