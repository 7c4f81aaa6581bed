/**
 * E1 end to end against the emulator. Sample groups: 3f2a… (owner jsmith, no schema) and
 * b4850… (owner admin: Zoning > Residential, Commercial).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { groupCategorySchema } from '../../src/kinds/group-category-schema.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyConfigText, desired, expectNothingToSend, expectPlanRefused, HEADER_WITHOUT_VERSION, planned, sampleOrg } from './settings-support.js';

const EMPTY_GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const ZONING_GROUP = 'b4850fb244bf4fbc8b918c96f267b2cf';

const CHANGING = `${HEADER}groups:
  - id: ${EMPTY_GROUP}
    categorySchema:
      - title: Field data
        description: Collected in the field
        categories: [{ title: Culverts }, { title: Signs }]
  - id: ${ZONING_GROUP}
    categorySchema:
      - title: Zoning
        categories: [{ title: Residential }, { title: Commercial }]
`;
const FIELD_DATA = [{ title: 'Field data', description: 'Collected in the field', categories: [{ title: 'Culverts' }, { title: 'Signs' }] }];
const FIELD_DATA_TEXT =
  '{"categorySchema":[{"title":"Field data","description":"Collected in the field","categories":[{"title":"Culverts"},{"title":"Signs"}]}]}';

describe('group.categorySchema (E1) against the emulator', () => {
  const portal = portalPerTest();

  it('plans an assignment only for the group whose schema differs', async () => {
    const prepared = await portal.plan(await portal.config(CHANGING));
    expect(planned(prepared)).toEqual([
      { address: `group[${EMPTY_GROUP}].categorySchema`, action: 'update', operation: 'E1', before: null, after: FIELD_DATA },
    ]);
    expect(prepared.plan.operations[0]?.request).toEqual({
      method: 'POST',
      path: `/community/groups/${EMPTY_GROUP}/assignCategorySchema`,
      form: { categorySchema: FIELD_DATA_TEXT },
      response: 'json',
      idempotent: true,
    });
  });

  it('sends exactly the planned write, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent).toEqual([
      {
        method: 'POST',
        path: `/community/groups/${EMPTY_GROUP}/assignCategorySchema`,
        params: { categorySchema: FIELD_DATA_TEXT },
        rawBody: `${new URLSearchParams({ categorySchema: FIELD_DATA_TEXT }).toString()}&f=json`,
      },
    ]);
    const groups = (await portal.state()).groups;
    expect(groups.find((group) => group.id === EMPTY_GROUP)?.categorySchema).toEqual(FIELD_DATA);

    await expectNothingToSend(portal, config);
  });

  it('plans nothing and sends nothing when the declared schema matches', async () => {
    const config = await portal.config(`${HEADER}groups:
  - id: ${ZONING_GROUP}
    categorySchema:
      - title: Zoning
        description: ""
        categories: [{ title: Residential, categories: [] }, { title: Commercial }]
`);
    await expectNothingToSend(portal, config);
  });

  it("refuses the plan when the live portal's version is older than 10.6.1", async () => {
    await portal.restart({ data: sampleOrg((state) => void (state.organization.version = '10.6')) });
    const config = await portal.config(`${HEADER_WITHOUT_VERSION}groups:\n  - id: ${EMPTY_GROUP}\n    categorySchema: [{ title: Parks }]\n`);
    const error = await expectPlanRefused(portal, config, 'version/group-category-schema', `group[${EMPTY_GROUP}].categorySchema`);
    expect(error.message).toMatch(/10\.6\.1/);
  });
});

describe('group.categorySchema (E1) request and comparison', () => {
  const schema = (value: JsonValue[]) =>
    desired({ kind: 'group.categorySchema', address: 'group[g/1].categorySchema', ids: { groupId: 'g/1' }, value });

  it("posts the wrapped trees to the group's assignCategorySchema, the id as one path segment", () => {
    const change = groupCategorySchema.change(schema([{ title: 'A', description: 'd' }]), [{ title: 'B' }]);
    expect(change).toEqual({
      action: 'update',
      before: [{ title: 'B' }],
      after: [{ title: 'A', description: 'd' }],
      request: {
        method: 'POST',
        path: '/community/groups/g%2F1/assignCategorySchema',
        form: { categorySchema: '{"categorySchema":[{"title":"A","description":"d"}]}' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('is not in sync with a group that has no schema', () => {
    expect(groupCategorySchema.inSync(schema([{ title: 'A' }]), null)).toBe(false);
    expect(groupCategorySchema.inSync(schema([{ title: 'A', categories: [] }]), [{ title: 'A' }])).toBe(true);
  });
});
