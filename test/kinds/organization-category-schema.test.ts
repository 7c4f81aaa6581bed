/**
 * E2 end to end against the emulator. The sample organization's schema is one tree:
 * Themes ("Subject areas of county content") > Transportation, Hydrology > Floodplains.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { organizationCategorySchema } from '../../src/kinds/organization-category-schema.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyAndConverge, applyConfigText, desired, expectNothingToSend, planned, writes } from './settings-support.js';

const SAMPLE_TREES = [
  {
    title: 'Themes',
    description: 'Subject areas of county content',
    categories: [{ title: 'Transportation' }, { title: 'Hydrology', categories: [{ title: 'Floodplains' }] }],
  },
];

const CHANGING = `${HEADER}organization:
  categorySchema:
    - title: Themes
      description: Subject areas of county content
      categories:
        - title: Transportation
          description: Roads & rail
        - title: Hydrology
    - title: Basemaps
      categories: [{ title: Imagery }]
`;
const CHANGED_TREES = [
  {
    title: 'Themes',
    description: 'Subject areas of county content',
    categories: [{ title: 'Transportation', description: 'Roads & rail' }, { title: 'Hydrology' }],
  },
  { title: 'Basemaps', categories: [{ title: 'Imagery' }] },
];

describe('organization.categorySchema (E2) against the emulator', () => {
  const portal = portalPerTest();

  it('plans one assignment from the live trees to the declared ones', async () => {
    const prepared = await portal.plan(await portal.config(CHANGING));
    expect(planned(prepared)).toEqual([
      { address: 'organization.categorySchema', action: 'update', operation: 'E2', before: SAMPLE_TREES, after: CHANGED_TREES },
    ]);
    expect(prepared.plan.operations[0]?.request).toEqual({
      method: 'POST',
      path: '/portals/self/assignCategorySchema',
      form: { categorySchema: JSON.stringify({ categorySchema: CHANGED_TREES }) },
      response: 'json',
      idempotent: true,
    });
  });

  it('sends exactly the planned write, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      {
        method: 'POST',
        path: '/portals/self/assignCategorySchema',
        params: {
          categorySchema:
            '{"categorySchema":[{"title":"Themes","description":"Subject areas of county content","categories":' +
            '[{"title":"Transportation","description":"Roads & rail"},{"title":"Hydrology"}]},' +
            '{"title":"Basemaps","categories":[{"title":"Imagery"}]}]}',
        },
      },
    ]);
    expect((await portal.state()).organization.categorySchema).toEqual(CHANGED_TREES);

    await expectNothingToSend(portal, config);
  });

  it('encodes the wrapped schema as one form field (raw body)', async () => {
    const config = await portal.config(`${HEADER}organization:\n  categorySchema:\n    - title: Parks\n`);
    await portal.clearRequests();
    await applyAndConverge(portal, config);
    const sent = await writes(portal);
    expect(sent.map((write) => write.rawBody)).toEqual([
      'categorySchema=%7B%22categorySchema%22%3A%5B%7B%22title%22%3A%22Parks%22%7D%5D%7D&f=json',
    ]);
  });

  it('treats an empty description and an empty child list as absent: nothing planned, nothing sent', async () => {
    const config = await portal.config(`${HEADER}organization:
  categorySchema:
    - title: Themes
      description: Subject areas of county content
      categories:
        - { title: Transportation, description: "", categories: [] }
        - title: Hydrology
          categories: [{ title: Floodplains, categories: [] }]
`);
    await expectNothingToSend(portal, config);
  });

  it('sees a reordered or retitled tree as a change', async () => {
    const config = await portal.config(`${HEADER}organization:
  categorySchema:
    - title: Themes
      description: Subject areas of county content
      categories:
        - title: Hydrology
          categories: [{ title: Floodplains }]
        - title: Transportation
`);
    expect(planned(await portal.plan(config)).map((op) => op.address)).toEqual(['organization.categorySchema']);
  });
});

describe('organization.categorySchema (E2) request and comparison', () => {
  const schema = (value: JsonValue[]) => desired({ kind: 'organization.categorySchema', address: 'organization.categorySchema', ids: {}, value });

  it('wraps the trees in {"categorySchema": [...]} in the categorySchema field', () => {
    const change = organizationCategorySchema.change(schema([{ title: 'A', categories: [{ title: 'B' }] }]), null);
    expect(change).toEqual({
      action: 'update',
      before: null,
      after: [{ title: 'A', categories: [{ title: 'B' }] }],
      request: {
        method: 'POST',
        path: '/portals/self/assignCategorySchema',
        form: { categorySchema: '{"categorySchema":[{"title":"A","categories":[{"title":"B"}]}]}' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('compares descriptions and children with absent == "" and absent == []', () => {
    expect(organizationCategorySchema.inSync(schema([{ title: 'A', description: '' }]), [{ title: 'A' }])).toBe(true);
    expect(organizationCategorySchema.inSync(schema([{ title: 'A' }]), [{ title: 'A', description: '', categories: [] }])).toBe(true);
    expect(organizationCategorySchema.inSync(schema([{ title: 'A', description: 'x' }]), [{ title: 'A' }])).toBe(false);
    expect(organizationCategorySchema.inSync(schema([{ title: 'A' }]), null)).toBe(false);
  });
});
