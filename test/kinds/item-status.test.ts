/**
 * E3 end to end against the emulator. Sample items (the organization is public, not verified):
 * 9b1c… public, org_authoritative; 1105… org, no status; 6681… org, deprecated.
 */
import { describe, expect, it } from 'vitest';
import { itemStatus } from '../../src/kinds/item-status.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyAndConverge, applyConfigText, desired, expectNothingToSend, expectPlanRefused, HEADER_WITHOUT_VERSION, planned, writes } from './settings-support.js';

const ROADS = '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e';
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617';
const FLOODS = '668187ae19cd4cae9460087d0ef47e60';

const CHANGING = `${HEADER}items:
  - { id: ${ROADS}, status: org_authoritative }
  - { id: ${PARCELS}, status: deprecated }
  - { id: ${FLOODS}, status: none }
`;

describe('item.status (E3) against the emulator', () => {
  const portal = portalPerTest();

  it('plans a set and a clear, and nothing for the matching item', async () => {
    const prepared = await portal.plan(await portal.config(CHANGING));
    expect(planned(prepared)).toEqual([
      { address: `item[${PARCELS}].status`, action: 'update', operation: 'E3', before: null, after: 'deprecated' },
      { address: `item[${FLOODS}].status`, action: 'delete', operation: 'E3', before: 'deprecated', after: null },
    ]);
    expect(prepared.plan.operations.map((op) => op.request)).toEqual([
      {
        method: 'POST',
        path: `/content/items/${PARCELS}/setContentStatus`,
        form: { status: 'deprecated', clearEmptyFields: 'false' },
        response: 'json',
        idempotent: true,
      },
      {
        method: 'POST',
        path: `/content/items/${FLOODS}/setContentStatus`,
        form: { status: '', clearEmptyFields: 'true' },
        response: 'json',
        idempotent: true,
      },
    ]);
  });

  it('sends exactly the planned writes, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      {
        method: 'POST',
        path: `/content/items/${PARCELS}/setContentStatus`,
        params: { status: 'deprecated', clearEmptyFields: 'false' },
        rawBody: 'status=deprecated&clearEmptyFields=false&f=json',
      },
      {
        method: 'POST',
        path: `/content/items/${FLOODS}/setContentStatus`,
        params: { status: '', clearEmptyFields: 'true' },
        rawBody: 'status=&clearEmptyFields=true&f=json',
      },
    ]);
    const items = (await portal.state()).items;
    expect(items.find((item) => item.id === PARCELS)?.contentStatus).toBe('deprecated');
    expect(items.find((item) => item.id === FLOODS)?.contentStatus).toBeUndefined();

    await expectNothingToSend(portal, config);
  });

  it('plans nothing and sends nothing when every status already matches', async () => {
    const config = await portal.config(`${HEADER}items:
  - { id: ${ROADS}, status: org_authoritative }
  - { id: ${PARCELS}, status: none }
  - { id: ${FLOODS}, status: deprecated }
`);
    await expectNothingToSend(portal, config);
  });

  it("does not call the portal's automatic authoritative transitions a change", async () => {
    // Verifying the organization flips the public, org_authoritative item to public_authoritative.
    const verified = await portal.state();
    verified.organization.isVerified = true;
    await portal.replaceState(verified);
    expect((await portal.state()).items.find((item) => item.id === ROADS)?.contentStatus).toBe('public_authoritative');

    const orgAuthoritative = await portal.config(`${HEADER}items:\n  - { id: ${ROADS}, status: org_authoritative }\n`);
    expect((await portal.plan(orgAuthoritative)).plan.operations).toEqual([]);

    // Unsharing it from the public flips it back to org_authoritative.
    const unshared = await portal.state();
    const roads = unshared.items.find((item) => item.id === ROADS);
    if (roads) roads.access = 'org';
    await portal.replaceState(unshared);
    expect((await portal.state()).items.find((item) => item.id === ROADS)?.contentStatus).toBe('org_authoritative');

    const publicAuthoritative = await portal.config(`${HEADER}items:\n  - { id: ${ROADS}, status: public_authoritative }\n`);
    expect((await portal.plan(publicAuthoritative)).plan.operations).toEqual([]);

    await portal.clearRequests();
    await applyAndConverge(portal, orgAuthoritative);
    await applyAndConverge(portal, publicAuthoritative);
    expect(await writes(portal)).toEqual([]);

    // A real difference is still one.
    const deprecated = await portal.config(`${HEADER}items:\n  - { id: ${ROADS}, status: deprecated }\n`);
    expect(planned(await portal.plan(deprecated))).toEqual([
      { address: `item[${ROADS}].status`, action: 'update', operation: 'E3', before: 'org_authoritative', after: 'deprecated' },
    ]);
  });

  it('refuses public_authoritative when the live organization is not verified', async () => {
    const config = await portal.config(`${HEADER_WITHOUT_VERSION}items:\n  - { id: ${PARCELS}, status: public_authoritative }\n`);
    await expectPlanRefused(portal, config, 'item-status/public-authoritative-unavailable', `item[${PARCELS}].status`);
  });
});

describe('item.status (E3) request and comparison', () => {
  const status = (value: string | null) => desired({ kind: 'item.status', address: 'item[i1].status', ids: { itemId: 'i1' }, value });

  it('sets a status with clearEmptyFields=false', () => {
    expect(itemStatus.change(status('org_authoritative'), 'deprecated')).toEqual({
      action: 'update',
      before: 'deprecated',
      after: 'org_authoritative',
      request: {
        method: 'POST',
        path: '/content/items/i1/setContentStatus',
        form: { status: 'org_authoritative', clearEmptyFields: 'false' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('clears with an empty status and clearEmptyFields=true, as a delete', () => {
    expect(itemStatus.change(status(null), 'public_authoritative')).toEqual({
      action: 'delete',
      before: 'public_authoritative',
      after: null,
      request: {
        method: 'POST',
        path: '/content/items/i1/setContentStatus',
        form: { status: '', clearEmptyFields: 'true' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('treats the two authoritative values alike, and absent like "" (no status)', () => {
    expect(itemStatus.inSync(status('org_authoritative'), 'public_authoritative')).toBe(true);
    expect(itemStatus.inSync(status('public_authoritative'), 'org_authoritative')).toBe(true);
    expect(itemStatus.inSync(status('deprecated'), 'org_authoritative')).toBe(false);
    expect(itemStatus.inSync(status(null), '')).toBe(true);
    expect(itemStatus.inSync(status(null), 'deprecated')).toBe(false);
    expect(itemStatus.inSync(status('org_authoritative'), null)).toBe(false);
  });
});
