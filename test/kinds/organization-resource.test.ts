/**
 * E12 (remove portal resource) live half, end to end against the emulator: declared removals,
 * `prune: true` (destructive, refused without allowDestructive), paging, and the request
 * without network.
 */
import { describe, expect, it } from 'vitest';
import { DestructiveRefusedError } from '../../src/engine/apply/apply.js';
import { organizationResource } from '../../src/kinds/organization-resource.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const BANNER = { key: 'old-banner.png', size: 48213, created: 1690000000000 };
const LOGO = { key: 'legacy-logo.png', size: 10242, created: 1650000000000 };

const portal = portalPerTest();

const resourceKeys = async (): Promise<string[]> => (await portal.state()).organization.resources.map((r) => r.key);

describe('organization resource (E12) against the emulator', () => {
  it('plans a declared removal (not destructive), sends it, then converges', async () => {
    const config = await portal.config(HEADER + 'organization:\n  resources:\n    absent: [old-banner.png]\n');
    expect(planned(await portal.plan(config))).toEqual([
      { address: 'organization.resource[old-banner.png]', action: 'delete', operation: 'E12', destructive: false, before: BANNER, after: null },
    ]);
    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: '/portals/self/removeResource', params: { key: 'old-banner.png' } },
    ]);
    expect(withoutToken(writes[0]?.rawBody ?? '')).toBe('key=old-banner.png&f=json');
    expect(await resourceKeys()).toEqual(['home-background.jpg', 'legacy-logo.png']);
    await expectConverged(portal, config);
  });

  it('plans nothing for a resource that is already gone', async () => {
    const config = await portal.config(HEADER + 'organization:\n  resources:\n    absent: [never-there.png]\n');
    await expectNothingToDo(portal, config);
  });

  it('prunes what is neither kept nor declared absent, as destructive removals refused without allowDestructive', async () => {
    const config = await portal.config(
      HEADER + 'organization:\n  resources:\n    prune: true\n    keep: [home-background.jpg]\n    absent: [old-banner.png]\n',
    );
    expect(planned(await portal.plan(config))).toEqual([
      { address: 'organization.resource[legacy-logo.png]', action: 'delete', operation: 'E12', destructive: true, before: LOGO, after: null },
      { address: 'organization.resource[old-banner.png]', action: 'delete', operation: 'E12', destructive: false, before: BANNER, after: null },
    ]);

    await portal.clearRequests();
    await expect(portal.apply(config)).rejects.toBeInstanceOf(DestructiveRefusedError);
    expect(await sentWrites(portal)).toEqual([]);
    expect(await resourceKeys()).toEqual(['old-banner.png', 'home-background.jpg', 'legacy-logo.png']);

    const report = await portal.apply(config, { allowDestructive: true, parallelism: 1 });
    expect(report.result.failed).toEqual([]);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([
      { path: '/portals/self/removeResource', params: { key: 'legacy-logo.png' } },
      { path: '/portals/self/removeResource', params: { key: 'old-banner.png' } },
    ]);
    expect(await resourceKeys()).toEqual(['home-background.jpg']);
    await expectConverged(portal, config, { allowDestructive: true });
  });

  it('reads every page of the resources when pruning', async () => {
    const state = await portal.state();
    state.organization.resources = Array.from({ length: 230 }, (_, index) => ({ key: `r${String(index).padStart(3, '0')}.png`, size: index, created: 1 }));
    await portal.replaceState(state);
    const kept = state.organization.resources.slice(0, 229).map((r) => r.key);
    const config = await portal.config(HEADER + `organization:\n  resources:\n    prune: true\n    keep: [${kept.join(', ')}]\n`);
    expect(planned(await portal.plan(config))).toEqual([
      { address: 'organization.resource[r229.png]', action: 'delete', operation: 'E12', destructive: true, before: { key: 'r229.png', size: 229, created: 1 }, after: null },
    ]);
  });
});

describe('organization resource change() request, without network', () => {
  it('sends the key as the only parameter', () => {
    const obj = declared('organization.resource', 'organization.resource[a b&c.png]', { key: 'a b&c.png' }, null);
    expect(organizationResource.change(obj, { key: 'a b&c.png' })).toEqual({
      action: 'delete',
      before: { key: 'a b&c.png' },
      after: null,
      request: { method: 'POST', path: '/portals/self/removeResource', form: { key: 'a b&c.png' }, response: 'json', idempotent: true },
    });
    expect(organizationResource.inSync(obj, null)).toBe(true);
    expect(organizationResource.inSync(obj, { key: 'a b&c.png' })).toBe(false);
  });
});
