/**
 * Property: for a random organization and a random desired state, one apply converges (the
 * plan after it is empty) and sends exactly one write per planned operation, none for an
 * object that already matched. In-process harness (real engine, HTTP to the emulator).
 */
import { rm } from 'node:fs/promises';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataFile, type EmulatorState } from '../../src/emulator/index.js';
import { HEADER, SAMPLE_ORG, startTestPortal, type TestPortal } from '../support/portal.js';

const ITEMS = ['9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e', '1105a1562c9c4dd98e557595bf8a2617', '668187ae19cd4cae9460087d0ef47e60', '996b4380b556465a8c2356cd4244b6d2'];
const TASKS = [
  { username: 'admin', id: 't0adm1' },
  { username: 'jsmith', id: 'a1b2c3' },
  { username: 'jsmith', id: 'd4e5f6' },
  { username: 'mlopez', id: '9f8e7d' },
];
const GROUPS = ['3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c', 'b4850fb244bf4fbc8b918c96f267b2cf'];

interface CategoryNode {
  title: string;
  categories?: CategoryNode[];
}
const SCHEMAS: CategoryNode[][] = [
  [{ title: 'Themes', categories: [{ title: 'Transportation' }, { title: 'Hydrology', categories: [{ title: 'Floodplains' }] }] }],
  [{ title: 'Audience', categories: [{ title: 'Public' }, { title: 'Internal' }] }],
  [{ title: 'Themes', categories: [{ title: 'Roads' }] }, { title: 'Audience', categories: [{ title: 'Public' }] }],
  [{ title: 'Field data', categories: [{ title: 'Inspections' }, { title: 'Work orders' }] }],
];

const nullableRule = fc.option(fc.integer({ min: 1, max: 4 }), { nil: null });
const policyRules = {
  minLength: fc.integer({ min: 8, max: 14 }),
  minUpper: nullableRule,
  minDigit: nullableRule,
  minOther: nullableRule,
  expirationInDays: fc.option(fc.constantFrom(30, 90, 180), { nil: null }),
  historySize: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
};

const organization = fc.record({
  policy: fc.record(policyRules, { requiredKeys: ['minLength'] }),
  statuses: fc.tuple(...ITEMS.map(() => fc.constantFrom(undefined, 'org_authoritative', 'deprecated'))),
  tasks: fc.tuple(...TASKS.map(() => fc.boolean())),
  groupSchemas: fc.tuple(...GROUPS.map(() => fc.constantFrom([], ...SCHEMAS))),
  orgSchema: fc.constantFrom(...SCHEMAS),
});

const desired = fc.record(
  {
    policy: fc.record(policyRules, { requiredKeys: [] }),
    items: fc.subarray(ITEMS).chain((ids) => fc.tuple(...ids.map((id) => fc.record({ id: fc.constant(id), status: fc.constantFrom('org_authoritative', 'deprecated', 'none') })))),
    // Only enabling exists (E7): a declared task is always enabled: true.
    tasks: fc.subarray(TASKS).chain((tasks) => fc.tuple(...tasks.map((task) => fc.record({ task: fc.constant(task), enabled: fc.constant(true) })))),
    groupSchemas: fc.subarray(GROUPS).chain((ids) => fc.tuple(...ids.map((id) => fc.record({ id: fc.constant(id), categorySchema: fc.constantFrom(...SCHEMAS) })))),
    orgSchema: fc.constantFrom(...SCHEMAS),
  },
  { requiredKeys: [] },
);

type Organization = typeof organization extends fc.Arbitrary<infer T> ? T : never;
type Desired = typeof desired extends fc.Arbitrary<infer T> ? T : never;

function emulatorState(base: EmulatorState, org: Organization): EmulatorState {
  const state = structuredClone(base);
  const { minLength, ...rest } = org.policy;
  state.organization.securityPolicy = { minLength, ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null && value !== undefined)) };
  state.organization.categorySchema = org.orgSchema;
  state.items = state.items.map((item) => {
    const status = org.statuses[ITEMS.indexOf(item.id)];
    const { contentStatus: _old, ...withoutStatus } = item;
    return status ? { ...withoutStatus, contentStatus: status } : withoutStatus;
  });
  for (const [index, task] of TASKS.entries()) {
    const user = state.users.find((candidate) => candidate.username === task.username);
    const record = user?.tasks.find((candidate) => candidate.id === task.id);
    if (record) record.active = org.tasks[index] as boolean;
  }
  for (const [index, id] of GROUPS.entries()) {
    const group = state.groups.find((candidate) => candidate.id === id);
    if (group) group.categorySchema = org.groupSchemas[index] as CategoryNode[];
  }
  return state;
}

function configText(wanted: Desired): string {
  const body: Record<string, unknown> = {};
  const organizationSection: Record<string, unknown> = {};
  if (wanted.policy && Object.keys(wanted.policy).length) organizationSection['securityPolicy'] = wanted.policy;
  if (wanted.orgSchema) organizationSection['categorySchema'] = wanted.orgSchema;
  if (Object.keys(organizationSection).length) body['organization'] = organizationSection;
  if (wanted.items?.length) body['items'] = wanted.items;
  if (wanted.groupSchemas?.length) body['groups'] = wanted.groupSchemas;
  if (wanted.tasks?.length) {
    const byUser = new Map<string, { id: string; enabled: boolean }[]>();
    for (const { task, enabled } of wanted.tasks) byUser.set(task.username, [...(byUser.get(task.username) ?? []), { id: task.id, enabled }]);
    body['users'] = [...byUser].map(([username, tasks]) => ({ username, tasks }));
  }
  return Object.keys(body).length ? `${HEADER}${stringify(body)}` : HEADER;
}

describe('convergence property', () => {
  let portal: TestPortal;
  let base: EmulatorState;
  beforeAll(async () => {
    portal = await startTestPortal();
    base = loadDataFile(SAMPLE_ORG);
  });
  afterAll(async () => {
    await portal.close();
    await rm(portal.dir, { recursive: true, force: true });
  });

  it('random desired states over random organizations converge in one apply, writing only what the plan says', async () => {
    await fc.assert(
      fc.asyncProperty(organization, desired, async (org, wanted) => {
        await portal.replaceState(emulatorState(base, org));
        await rm(portal.store.path, { force: true });
        await rm(`${portal.store.path}.backup`, { force: true });
        const config = await portal.config(configText(wanted));

        const before = await portal.plan(config);
        await portal.clearRequests();
        const report = await portal.apply(config);
        expect(report.result.failed.map(({ op, error }) => `${op.address}: ${String(error)}`)).toEqual([]);
        expect(report.after.plan.operations.map((op) => op.address)).toEqual([]);

        // One write per planned operation, to exactly the planned requests; nothing else.
        const writes = (await portal.requests({ writesOnly: true })).map((entry) => `${entry.method} ${entry.path}`).sort();
        expect(writes).toEqual(before.plan.operations.map((op) => `${op.request.method} ${op.request.path}`).sort());
        expect(report.result.applied.map((op) => op.address).sort()).toEqual(before.plan.operations.map((op) => op.address).sort());

        // And a fresh plan is empty.
        await portal.clearRequests();
        const again = await portal.plan(config);
        expect(again.plan.operations).toEqual([]);
        expect(await portal.requests({ writesOnly: true })).toEqual([]);
      }),
      { numRuns: 25, seed: 20260421, endOnFailure: true },
    );
  });
});
