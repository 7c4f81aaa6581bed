/**
 * E14 (remove this portal's workspace group link) live half, end to end against the emulator,
 * and its request without network.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/engine/config/index.js';
import { workspacePortalGroupLink } from '../../src/kinds/workspace-portal-group-link.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const LINK = 'collaboration[c0ffee].workspace[w1].portalGroupLink';
const W1_PATH = '/portals/self/collaborations/c0ffee/workspaces/w1';
const OWN_PORTAL = '0c1d2e3f-4a5b-4c6d-8e9f-0123456789ab';
const NEIGHBOR_PORTAL = '02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f';
const PLANNING_GROUP = 'b4850fb244bf4fbc8b918c96f267b2cf';

const portal = portalPerTest();

describe('workspace portal-group link (E14) against the emulator', () => {
  it("plans the removal of this portal's link only, sends it, then converges", async () => {
    const config = await portal.config(HEADER + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, portalGroupLink: absent }\n');
    expect(planned(await portal.plan(config))).toEqual([
      {
        address: LINK,
        action: 'delete',
        operation: 'E14',
        destructive: false,
        before: { portalId: OWN_PORTAL, portalGroupId: PLANNING_GROUP },
        after: null,
      },
    ]);
    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: `${W1_PATH}/removePortalGroupLink`, params: {} },
    ]);
    expect(withoutToken(writes[0]?.rawBody ?? '')).toBe(formBody({}));
    // The neighbour's link stays: only this portal's link was ours to remove.
    const w1 = (await portal.state()).collaborations[0]?.workspaces.find((w) => w.id === 'w1');
    expect(w1?.participantGroupLinks).toEqual([{ portalId: NEIGHBOR_PORTAL, portalGroupId: '5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e', accessMode: 'sendAndReceive' }]);
    // This portal still takes part in the workspace, now without a group link, with its access.
    expect(w1?.participantsWithoutGroupLinks).toEqual([{ portalId: OWN_PORTAL, accessMode: 'sendAndReceive' }]);
    await expectConverged(portal, config);
  });

  it('plans nothing when the link is already gone (w2 has none; another portal still has one)', async () => {
    const state = await portal.state();
    const w2 = state.collaborations[0]?.workspaces.find((w) => w.id === 'w2');
    if (!w2) throw new Error('the sample has w2');
    w2.participantGroupLinks = [{ portalId: NEIGHBOR_PORTAL, portalGroupId: '5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e', accessMode: 'receive' }];
    await portal.replaceState(state);
    const config = await portal.config(HEADER + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w2, portalGroupLink: absent }\n');
    await expectNothingToDo(portal, config);
  });

  it('refuses at plan time on a live portal older than 10.5 when the config declares no version', async () => {
    const state = await portal.state();
    state.organization.version = '10.4';
    await portal.replaceState(state);
    const config = await portal.config(
      'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\ncollaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, portalGroupLink: absent }\n',
    );
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => [d.code, d.address])).toContainEqual(['version/collaboration', LINK]);
  });
});

describe('workspace portal-group link change() request, without network', () => {
  it('is a removal with no parameter', () => {
    const obj = declared('collaboration.workspace.portalGroupLink', LINK, { collaborationId: 'c0ffee', workspaceId: 'w1' }, null);
    const live = { portalId: OWN_PORTAL, portalGroupId: 'g' };
    expect(workspacePortalGroupLink.change(obj, live)).toEqual({
      action: 'delete',
      before: live,
      after: null,
      request: { method: 'POST', path: `${W1_PATH}/removePortalGroupLink`, form: {}, response: 'json', idempotent: true },
    });
    expect(workspacePortalGroupLink.inSync(obj, null)).toBe(true);
    expect(workspacePortalGroupLink.inSync(obj, live)).toBe(false);
  });
});
