/** The pure half of import: placing discovered objects and notes, and the kinds' gates on live facts. */
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { DiscoveredObject, PortalFacts } from '../../src/kinds/toolkit/contract.js';
import type { JsonObject } from '../../src/core/json.js';
import type { LiveReader } from '../../src/core/request.js';
import { composeImport, ImportPlacementError } from '../../src/engine/import/import-portal.js';
import { containers } from '../../src/kinds/index.js';
import { federation } from '../../src/kinds/federation.js';
import { itemStatus } from '../../src/kinds/item-status.js';
import { organizationSecurityPolicy } from '../../src/kinds/organization-security-policy.js';
import { userLevel } from '../../src/kinds/user-level.js';
import { userTask } from '../../src/kinds/user-task.js';

const PORTAL: PortalFacts = { edition: 'self-managed', version: '11.3', access: 'public', isVerified: false };

function compose(found: DiscoveredObject[]): string {
  return composeImport({ url: 'https://gis.example.com/portal/sharing/rest', portal: PORTAL, organization: { name: 'Org', id: 'abc' }, found, containers }).text;
}

/** A reader over fixed answers: `get` by path, `list` by path (every page at once). */
function fakeReader(gets: Record<string, JsonObject>, lists: Record<string, JsonObject[]> = {}): LiveReader {
  return {
    get: async (path) => gets[path],
    list: async (path) => lists[path],
  };
}

describe('composeImport', () => {
  it('merges objects into one entry, sorts entries by key and puts notes where the config has room', () => {
    const text = compose([
      { path: [{ container: 'user', key: 'zed', comment: 'Zed Z' }], fields: { level: 2 } },
      { path: [{ container: 'user', key: 'amy', comment: 'Amy A' }], fields: { level: 1 } },
      {
        path: [{ container: 'user', key: 'amy' }],
        fields: { tasks: [{ id: 't1', enabled: true }] },
        comments: [{ at: ['tasks', 0], text: 'First\ntask' }],
        notes: ['amy: task t2 is disabled'],
      },
      { path: [{ container: 'user', key: 'nobody' }], fields: {}, notes: ['nobody: nothing to declare'] },
      { path: [{ container: 'role' }], fields: {}, notes: ['no section for this'] },
    ]);
    const data = parseDocument(text).toJS() as Record<string, unknown>;
    expect(data['users']).toEqual([
      { username: 'amy', level: 1, tasks: [{ id: 't1', enabled: true }] },
      { username: 'zed', level: 2 },
    ]);
    expect(text).toContain('# nobody: nothing to declare\nusers:\n  # Amy A\n  # amy: task t2 is disabled\n  - username: amy\n');
    expect(text).toContain('    tasks:\n      # First task\n      - id: t1\n');
    // No roles section exists: the note goes to the end of the document.
    expect(text.trimEnd().endsWith('# no section for this')).toBe(true);
    expect(data['roles']).toBeUndefined();
  });

  it('leaves out a value portalctl would read as a ${...} reference, with a comment', () => {
    const text = compose([
      { path: [{ container: 'role', key: 'r1', comment: 'Ok' }], fields: { name: 'Ok' } },
      { path: [{ container: 'role', key: 'r2', comment: 'Costly' }], fields: { name: 'Costly', description: 'costs ${env:HOME}' } },
    ]);
    expect(text).not.toContain('${env:HOME}');
    expect(text).toContain('# role r2 Costly: not imported; its live value contains ${...} text');
    expect((parseDocument(text).toJS() as { roles: unknown[] }).roles).toEqual([{ id: 'r1', name: 'Ok' }]);
  });

  it('refuses a place the containers do not have', () => {
    expect(() => compose([{ path: [{ container: 'workspace', key: 'w1' }], fields: { name: 'x' } }])).toThrow(ImportPlacementError);
    expect(() => compose([{ path: [{ container: 'user' }], fields: { level: 1 } }])).toThrow(ImportPlacementError);
  });
});

describe('discover gates on the live portal', () => {
  it('user levels only on self-managed 10.6.1 or earlier', async () => {
    const reader = fakeReader({}, { '/portals/self/users': [{ username: 'a', fullName: 'A', level: '1' }] });
    expect(await userLevel.discover!(reader, PORTAL)).toEqual([]);
    expect(await userLevel.discover!(reader, { edition: 'hosted', version: '2025.1' })).toEqual([]);
    expect(await userLevel.discover!(reader, { edition: 'self-managed', version: '10.6.1' })).toEqual([
      { path: [{ container: 'user', key: 'a', comment: 'A' }], fields: { level: 1 } },
    ]);
  });

  it('tasks only from 10.8.1', async () => {
    const reader = fakeReader({}, { '/portals/self/users': [{ username: 'a' }], '/community/users/a/tasks': [{ id: 't', title: 'T', active: true }] });
    expect(await userTask.discover!(reader, { edition: 'self-managed', version: '10.8' })).toEqual([]);
    const found = await userTask.discover!(reader, PORTAL);
    expect(found.map((obj) => obj.fields)).toEqual([{ tasks: [{ id: 't', enabled: true }] }]);
  });

  it('federation: userType only on hosted, level only before 10.7, unreported fields left out', async () => {
    const live = { id: 'F1', name: 'Fed', userType: 'both', level: '2', signUpMode: 'Automatic', groups: 'g1,g2', encryptionSupported: 'true', roleId: null };
    const reader = fakeReader({ '/portals/self/idp/federation': live });
    const [selfManaged] = await federation.discover!(reader, PORTAL);
    expect(selfManaged?.fields).toEqual({ name: 'Fed', groups: ['g1', 'g2'], encryptionSupported: true, signUpMode: 'Automatic' });
    const [hosted] = await federation.discover!(reader, { edition: 'hosted', version: '2025.1' });
    expect(hosted?.fields).toEqual({ name: 'Fed', groups: ['g1', 'g2'], encryptionSupported: true, signUpMode: 'Automatic', userType: 'both' });
    const [old] = await federation.discover!(reader, { edition: 'self-managed', version: '10.6' });
    expect(old?.fields['level']).toBe('2');
  });

  it('public_authoritative in a private or unverified organization is only named', async () => {
    // The organization's items: `q=orgid:<portals/self id>`, each result with its contentStatus.
    const reader = fakeReader({ '/portals/self': { id: 'abc' } }, { '/search?q=orgid%3Aabc': [{ id: 'i1', title: 'T', owner: 'o', contentStatus: 'public_authoritative' }] });
    const [found] = await itemStatus.discover!(reader, PORTAL);
    expect(found?.fields).toEqual({});
    expect(found?.notes?.[0]).toContain('item i1 T (owner o): status public_authoritative');
    const [verified] = await itemStatus.discover!(reader, { ...PORTAL, isVerified: true });
    expect(verified?.fields).toEqual({ status: 'public_authoritative' });
  });

  it('security policy: only set rules within bounds, nothing before 10.4', async () => {
    const reader = fakeReader({ '/portals/self/securityPolicy': { passwordPolicy: { minLength: 9, minUpper: null, historySize: 99, type: 'custom' } } });
    const [found] = await organizationSecurityPolicy.discover!(reader, PORTAL);
    expect(found?.fields).toEqual({ securityPolicy: { minLength: 9 } });
    expect(await organizationSecurityPolicy.discover!(reader, { edition: 'self-managed', version: '10.3' })).toEqual([]);
  });
});
