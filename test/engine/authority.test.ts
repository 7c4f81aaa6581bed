/** Who may call an operation: the spec's Authentication table as data on the kinds, checked against portals/self. */
import { describe, expect, it } from 'vitest';
import { callerFromSelf, mayCall, missingAuthority } from '../../src/engine/read/authority.js';
import { kinds } from '../../src/kinds/index.js';

const authorityOf = (operationId: string) => kinds.find((kind) => kind.operation.id === operationId)?.authority;

describe('authority', () => {
  it('declares the Authentication table per kind (none where the spec states nothing or names no role)', () => {
    // The spec's fourteen operations; a kind added later declares its own (the kind set conformance suite checks it).
    expect(Object.fromEntries(kinds.map((kind) => [kind.operation.id, kind.authority ? [kind.authority.role, kind.authority.privilege ?? null] : null]))).toMatchObject({
      E1: null,
      E2: ['defaultAdministrator', 'portal:admin:updateItemCategorySchema'],
      E3: ['administrator', 'portal:admin:updateItems'],
      E4: ['administrator', null],
      E5: ['defaultAdministrator', 'portal:admin:updateUsers'],
      E6: ['administrator', null],
      E7: null,
      E8: null,
      E9: ['administrator', null],
      E10: ['defaultAdministrator', null],
      E11: ['administrator', null],
      E12: ['administrator', null],
      E13: ['administrator', null],
      E14: ['administrator', null],
    });
  });

  it('a default administrator may call everything; a custom administrator role only what needs no default administrator or whose privilege it holds', () => {
    const admin = callerFromSelf({ user: { username: 'a', role: 'org_admin', roleId: 'org_admin', privileges: [] } });
    const customAdmin = callerFromSelf({ user: { username: 'c', role: 'org_admin', roleId: 'c0ffeeRole000009', privileges: ['portal:admin:updateItemCategorySchema'] } });
    if (!admin || !customAdmin) throw new Error('callers expected');
    for (const kind of kinds) if (kind.authority) expect(mayCall(admin, kind.authority)).toBe(true);
    expect(mayCall(customAdmin, authorityOf('E2')!)).toBe(true);
    expect(mayCall(customAdmin, authorityOf('E10')!)).toBe(false);
    expect(mayCall(customAdmin, authorityOf('E4')!)).toBe(true);
  });

  it('an app token acts with its app privileges only, never as an administrator', () => {
    const app = callerFromSelf({ appInfo: { appTitle: 'Sync', privileges: ['portal:admin:updateItems'] }, user: { role: 'org_admin', roleId: 'org_admin' } });
    if (!app) throw new Error('caller expected');
    expect(app).toEqual({ description: 'app Sync (app token)', privileges: ['portal:admin:updateItems'] });
    expect(mayCall(app, authorityOf('E3')!)).toBe(true);
    expect(authorityOf('E8')).toBeUndefined();
    expect(mayCall(app, authorityOf('E12')!)).toBe(false);
    expect(missingAuthority(app, authorityOf('E12')!, { id: 'E12', name: 'Remove portal resource' })).toBe(
      'E12 Remove portal resource may be called by the administrator; the credentials act as app Sync (app token), which does not qualify: the portal will refuse it (403 GWM_0003).',
    );
  });

  it('an anonymous portals/self names no caller (no check)', () => {
    expect(callerFromSelf({ id: 'x' })).toBeUndefined();
  });
});
