/**
 * E10 (custom role) live half, end to end against the emulator, and its request without network.
 */
import { describe, expect, it } from 'vitest';
import { role } from '../../src/kinds/role.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const portal = portalPerTest();

describe('role (E10) against the emulator', () => {
  it('plans the changed roles only, sends exactly their declared fields, then converges', async () => {
    const config = await portal.config(
      HEADER +
        `roles:
  - id: r7HkQ2
    name: Field Analyst & Editor
    description: Collects field data
  - id: vW3rLv
    name: Viewer
  - id: cAt5Ad
    description: Keeps the categories tidy
`,
    );
    expect(planned(await portal.plan(config))).toEqual([
      {
        address: 'role[cAt5Ad]',
        action: 'update',
        operation: 'E10',
        destructive: false,
        before: { description: "Maintains the organization's content categories" },
        after: { description: 'Keeps the categories tidy' },
      },
      {
        address: 'role[r7HkQ2]',
        action: 'update',
        operation: 'E10',
        destructive: false,
        before: { name: 'Field Analyst', description: 'Edits field data' },
        after: { name: 'Field Analyst & Editor', description: 'Collects field data' },
      },
    ]);

    await portal.clearRequests();
    const report = await portal.apply(config, { parallelism: 1 });
    expect(report.result.failed).toEqual([]);
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: '/portals/self/roles/cAt5Ad/update', params: { description: 'Keeps the categories tidy' } },
      { method: 'POST', path: '/portals/self/roles/r7HkQ2/update', params: { name: 'Field Analyst & Editor', description: 'Collects field data' } },
    ]);
    expect(withoutToken(writes[1]?.rawBody ?? '')).toBe('name=Field+Analyst+%26+Editor&description=Collects+field+data&f=json');
    expect(withoutToken(writes[0]?.rawBody ?? '')).toBe(formBody({ description: 'Keeps the categories tidy' }));
    const roles = (await portal.state()).roles;
    expect(roles.find((r) => r.id === 'r7HkQ2')).toMatchObject({ name: 'Field Analyst & Editor', description: 'Collects field data' });
    await expectConverged(portal, config);
  });

  it('plans nothing when the declared fields match', async () => {
    const config = await portal.config(HEADER + 'roles:\n  - { id: r7HkQ2, name: Field Analyst, description: Edits field data }\n  - { id: vW3rLv, name: Viewer }\n');
    await expectNothingToDo(portal, config);
  });

  it('clears a description with an empty one, and then treats empty as in sync', async () => {
    const config = await portal.config(HEADER + 'roles:\n  - { id: cAt5Ad, description: "" }\n');
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([
      { path: '/portals/self/roles/cAt5Ad/update', params: { description: '' } },
    ]);
    await expectConverged(portal, config);
  });
});

describe('role change() request, without network', () => {
  it('sends only the declared fields, as they are', () => {
    const obj = declared('role', 'role[r1]', { roleId: 'r1' }, { description: 'D' });
    expect(role.change(obj, { description: 'old' })).toEqual({
      action: 'update',
      before: { description: 'old' },
      after: { description: 'D' },
      request: { method: 'POST', path: '/portals/self/roles/r1/update', form: { description: 'D' }, response: 'json', idempotent: true },
    });
  });

  it('treats a missing description like an empty one', () => {
    const obj = declared('role', 'role[r1]', { roleId: 'r1' }, { description: '' });
    expect(role.inSync(obj, { description: null })).toBe(true);
    expect(role.inSync(obj, { description: 'x' })).toBe(false);
    expect(role.inSync(obj, null)).toBe(false);
  });
});

describe('role renames through each other, without network', () => {
  const analyst = declared('role', 'role[r1]', { roleId: 'r1' }, { name: 'Analysts' });
  const steward = declared('role', 'role[r2]', { roleId: 'r2' }, { name: 'field analyst' });
  const live = new Map([
    ['role[r1]', { name: 'Field Analyst' }],
    ['role[r2]', { name: 'Category Steward' }],
  ]);

  it('a rename onto the name another declared role has now waits for its rename, ignoring case; nothing else waits', () => {
    expect(role.dependsOn(steward, [analyst, steward], live)).toEqual(['role[r1]']);
    expect(role.dependsOn(analyst, [analyst, steward], live)).toEqual([]);
    // The holder keeping the name is a duplicate (validate), no order; unknown names order nothing.
    const keeper = declared('role', 'role[r1]', { roleId: 'r1' }, { name: 'FIELD ANALYST' });
    expect(role.dependsOn(steward, [keeper, steward], live)).toEqual([]);
    expect(role.dependsOn(steward, [analyst, steward], new Map())).toEqual([]);
  });

  it('a ring of renames is refused at the name, naming each role and the name it takes', () => {
    const swapped = declared('role', 'role[r1]', { roleId: 'r1' }, { name: 'Category Steward' });
    const refusal = role.ringRefusal?.(swapped, [swapped, steward]);
    expect(refusal).toMatchObject({ code: 'role/rename-cycle', at: ['name'] });
    expect(refusal?.message).toBe(
      'Role names are unique in the organization, ignoring case, and these renames go round in a ring: role[r1] takes "Category Steward" from role[r2] and role[r2] takes "field analyst" from role[r1]; whichever is sent first, the portal refuses it, as the other role still has the name.',
    );
  });
});
