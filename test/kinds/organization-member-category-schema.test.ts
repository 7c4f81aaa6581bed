/**
 * E5 end to end against the emulator. The sample organization has a member category schema:
 * Departments > Planning, Public Works.
 */
import { describe, expect, it } from 'vitest';
import { organizationMemberCategorySchema } from '../../src/kinds/organization-member-category-schema.js';
import { applyPlan } from '../../src/engine/apply/apply.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyAndConverge, desired, expectNothingToSend, planned, sampleOrg, writes } from './settings-support.js';

const ABSENT = `${HEADER}organization:\n  memberCategorySchema: absent\n`;
const DEPARTMENTS = [{ title: 'Departments', categories: [{ title: 'Planning' }, { title: 'Public Works' }] }];

describe('organization.memberCategorySchema (E5) against the emulator', () => {
  const portal = portalPerTest();

  it('a removal whose target disappeared between plan and apply succeeds and is recorded absent', async () => {
    const prepared = await portal.plan(await portal.config(ABSENT));
    const state = await portal.state();
    state.organization.memberCategorySchema = null;
    await portal.replaceState(state);
    const report = await applyPlan({ prepared, client: portal.client, store: portal.store, url: portal.url, parallelism: 1 });
    expect(report.result.failed).toEqual([]);
    expect(report.result.applied.map((op) => op.address)).toEqual(['organization.memberCategorySchema']);
    expect(report.after.plan.operations).toEqual([]);
    expect((await portal.store.read())?.resources['organization.memberCategorySchema']).toMatchObject({ value: null, status: 'absent' });
  });

  it('plans the removal of the existing schema', async () => {
    const prepared = await portal.plan(await portal.config(ABSENT));
    expect(planned(prepared)).toEqual([
      { address: 'organization.memberCategorySchema', action: 'delete', operation: 'E5', before: DEPARTMENTS, after: null },
    ]);
    expect(prepared.plan.operations[0]?.request).toEqual({
      method: 'POST',
      path: '/portals/self/deleteMemberCategorySchema',
      form: {},
      response: 'json',
      idempotent: true,
    });
  });

  it('sends exactly the planned write, converges, and a second apply sends nothing', async () => {
    const config = await portal.config(ABSENT);
    await portal.clearRequests();
    await applyAndConverge(portal, config);

    expect(await writes(portal)).toEqual([{ method: 'POST', path: '/portals/self/deleteMemberCategorySchema', params: {}, rawBody: 'f=json' }]);
    expect((await portal.state()).organization.memberCategorySchema).toBeNull();

    await expectNothingToSend(portal, config);
  });

  it('plans nothing and sends nothing when the organization has no member category schema', async () => {
    await portal.restart({ data: sampleOrg((state) => void (state.organization.memberCategorySchema = null)) });
    const config = await portal.config(ABSENT);
    await expectNothingToSend(portal, config);
  });

  it('takes a 404 from the read as already absent', async () => {
    await portal.fault({
      path: '/portals/self/memberCategorySchema',
      method: 'GET',
      count: 0,
      status: 404,
      error: { code: 404, message: 'Resource does not exist or is inaccessible.', details: [] },
    });
    const config = await portal.config(ABSENT);
    await expectNothingToSend(portal, config);
  });

  it('does not manage the schema when the config does not declare it', async () => {
    const config = await portal.config(`${HEADER}organization:\n  securityPolicy: { minLength: 8 }\n`);
    expect((await portal.plan(config)).plan.operations).toEqual([]);
  });
});

describe('organization.memberCategorySchema (E5) request and comparison', () => {
  const absent = desired({
    kind: 'organization.memberCategorySchema',
    address: 'organization.memberCategorySchema',
    ids: {},
    value: null,
    absent: true,
  });

  it('deletes with no parameter but f', () => {
    expect(organizationMemberCategorySchema.change(absent, [{ title: 'A' }])).toEqual({
      action: 'delete',
      before: [{ title: 'A' }],
      after: null,
      request: { method: 'POST', path: '/portals/self/deleteMemberCategorySchema', form: {}, response: 'json', idempotent: true },
    });
  });

  it('is in sync exactly when there is no schema', () => {
    expect(organizationMemberCategorySchema.inSync(absent, null)).toBe(true);
    expect(organizationMemberCategorySchema.inSync(absent, [])).toBe(false);
  });

  it('reads a missing property, an empty list and a 404 (undefined) as absent', async () => {
    const answers: Record<string, { memberCategorySchema?: never[] } | undefined> = { empty: {}, emptyList: { memberCategorySchema: [] }, missing: undefined };
    for (const answer of Object.values(answers)) {
      const reader = { get: async () => answer, list: async () => undefined };
      expect(await organizationMemberCategorySchema.read(absent, reader)).toBeNull();
    }
  });
});
