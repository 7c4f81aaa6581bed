/**
 * Across kinds, against the emulator: every planned operation names its object as a person
 * knows it (issue 16), from the reads the plan makes anyway; the plan reads a list once where
 * that costs fewer requests than one read per object (issue 14); an apply reads again only what
 * it wrote.
 */
import { describe, expect, it } from 'vitest';
import { HEADER, portalPerTest, type TestPortal } from '../support/portal.js';

const ROADS = '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e';
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617';
const FLOODS = '668187ae19cd4cae9460087d0ef47e60';
const GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';

const CONFIG = `${HEADER}organization:
  securityPolicy: { minLength: 8 }
groups:
  - id: ${GROUP}
    categorySchema: [{ title: Assets }]
items:
  - { id: ${ROADS}, status: org_authoritative }
  - { id: ${PARCELS}, status: deprecated }
  - { id: ${FLOODS}, status: none }
roles:
  - { id: r7HkQ2, description: Edits field data and reviews it }
users:
  - { username: jsmith, tasks: [{ id: a1b2c3, enabled: true }] }
`;

const reads = async (portal: TestPortal): Promise<string[]> =>
  (await portal.requests()).filter((entry) => entry.access !== 'write').map((entry) => entry.path);

describe('labels and request economy against the emulator', () => {
  const portal = portalPerTest();

  it('labels each operation with the title and owner, group title, role name or task and full name, and puts it in the plan value', async () => {
    const prepared = await portal.plan(await portal.config(CONFIG));
    expect(prepared.plan.operations.map((op) => [op.address, op.label])).toEqual([
      [`group[${GROUP}].categorySchema`, 'Public Works Field Data (owner jsmith)'],
      [`item[${PARCELS}].status`, 'Parcels 2019 (owner publisher1)'],
      [`item[${FLOODS}].status`, 'Flood Zones (owner jsmith)'],
      ['role[r7HkQ2]', 'Field Analyst'],
      ['user[jsmith].task[a1b2c3]', 'Survey culverts (Jane Smith)'],
    ]);
    expect(JSON.parse(JSON.stringify(prepared.plan)).operations[1]).toMatchObject({ label: 'Parcels 2019 (owner publisher1)' });
  });

  it("labels a member's task without the full name when the token may not list the members (administrators only)", async () => {
    await portal.restart({ token: 'jsmith-token' });
    const prepared = await portal.plan(await portal.config(`${HEADER}users:\n  - { username: jsmith, tasks: [{ id: a1b2c3, enabled: true }] }\n`));
    expect(prepared.plan.operations.map((op) => [op.address, op.label])).toEqual([['user[jsmith].task[a1b2c3]', 'Survey culverts']]);
    expect((await portal.requests()).find((entry) => entry.path === '/portals/self/users')?.response).toMatchObject({ code: 403 });
  });

  it("reads the organization's items through one search page instead of one read per item", async () => {
    const config = await portal.config(CONFIG);
    await portal.clearRequests();
    await portal.plan(config);
    const paths = await reads(portal);
    expect(paths.filter((path) => path === '/search')).toHaveLength(1);
    expect(paths.filter((path) => path.startsWith('/content/items/'))).toEqual([]);
  });

  it('reads a single declared item by itself when its list would cost more', async () => {
    const config = await portal.config(`${HEADER}items:\n  - { id: ${PARCELS}, status: deprecated }\n`);
    // 250 more items: the list is 3 pages, one declared item is 1 read.
    const state = await portal.state();
    const extra = Array.from({ length: 250 }, (_, index) => ({ ...state.items[1], id: `feed${String(index).padStart(28, '0')}`, title: `Extra ${index}` }));
    await portal.replaceState({ ...state, items: [...state.items, ...extra] } as typeof state);
    await portal.clearRequests();
    const prepared = await portal.plan(config);
    const paths = await reads(portal);
    expect(paths.filter((path) => path === `/content/items/${PARCELS}`)).toHaveLength(1);
    expect(paths.filter((path) => path === '/search')).toHaveLength(1);
    expect(prepared.plan.operations.map((op) => op.label)).toEqual(['Parcels 2019 (owner publisher1)']);
  });

  it('after an apply reads again only what it wrote', async () => {
    const config = await portal.config(CONFIG);
    await portal.clearRequests();
    const applied = await portal.apply(config);
    expect(applied.after.plan.operations).toEqual([]);
    const paths = await reads(portal);
    // The security policy was in sync: read once, before the writes, and not again.
    expect(paths.filter((path) => path === '/portals/self/securityPolicy')).toHaveLength(1);
    // The group's schema was written: read before and after.
    expect(paths.filter((path) => path === `/community/groups/${GROUP}/categorySchema`)).toHaveLength(2);
  });
});
