/**
 * E9 (workspace info) live half, end to end against the emulator: plan, exact writes,
 * convergence, the shared workspace read with E14, the version gates at plan time, and the
 * request without network.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/engine/config/index.js';
import { workspace } from '../../src/kinds/workspace.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const W1 = 'collaboration[c0ffee].workspace[w1]';
const W1_PATH = '/portals/self/collaborations/c0ffee/workspaces/w1';
/** A header that declares no version: the gates must use the live portal's. */
const HEADER_WITHOUT_VERSION = 'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\n';

const portal = portalPerTest();

async function setPortalVersion(version: string): Promise<void> {
  const state = await portal.state();
  state.organization.version = version;
  await portal.replaceState(state);
}

describe('collaboration workspace (E9) against the emulator', () => {
  it('plans one update with the declared fields, sends exactly those, then converges', async () => {
    const config = await portal.config(
      HEADER +
        `collaborations:
  - id: c0ffee
    workspaces:
      - id: w1
        name: Shared basemaps
        description: Shared county basemaps
        maxItemSizeInMB: 1024
        copyByRefIfCopyFail: true
`,
    );
    expect(planned(await portal.plan(config))).toEqual([
      {
        address: W1,
        action: 'update',
        operation: 'E9',
        destructive: false,
        before: { name: 'Basemaps', description: 'Shared county basemaps', maxItemSizeInMB: 512, copyByRefIfCopyFail: false },
        after: { name: 'Shared basemaps', description: 'Shared county basemaps', maxItemSizeInMB: 1024, copyByRefIfCopyFail: true },
      },
    ]);

    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const form = { name: 'Shared basemaps', description: 'Shared county basemaps', maxItemSizeInMB: '1024', copyByRefIfCopyFail: 'true' };
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([{ method: 'POST', path: `${W1_PATH}/updateInfo`, params: form }]);
    expect(withoutToken(writes[0]?.rawBody ?? '')).toBe(formBody(form));
    const w1 = (await portal.state()).collaborations[0]?.workspaces.find((w) => w.id === 'w1');
    expect(w1).toMatchObject({ name: 'Shared basemaps', config: { maxItemSizeInMB: 1024, maxReplicationPackageSizeInMB: 2048, copyByRefIfCopyFail: true } });
    await expectConverged(portal, config);
  });

  it('plans nothing when the declared fields match', async () => {
    const config = await portal.config(
      HEADER +
        `collaborations:
  - id: c0ffee
    workspaces:
      - { id: w1, name: Basemaps, maxReplicationPackageSizeInMB: 2048, copyByRefIfCopyFail: false }
      - { id: w2, description: Incident layers shared during emergencies }
`,
    );
    await expectNothingToDo(portal, config);
  });

  it('sets a setting the workspace does not have yet', async () => {
    const config = await portal.config(HEADER + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w2, maxReplicationPackageSizeInMB: 100 }\n');
    expect(planned(await portal.plan(config))).toMatchObject([
      { address: 'collaboration[c0ffee].workspace[w2]', before: { maxReplicationPackageSizeInMB: null }, after: { maxReplicationPackageSizeInMB: 100 } },
    ]);
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([
      { path: '/portals/self/collaborations/c0ffee/workspaces/w2/updateInfo', params: { maxReplicationPackageSizeInMB: '100' } },
    ]);
    await expectConverged(portal, config);
  });

  it('reads the workspace once for its info (E9) and its group link (E14)', async () => {
    const config = await portal.config(
      HEADER + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, name: Renamed, portalGroupLink: absent }\n',
    );
    await portal.clearRequests();
    const prepared = await portal.plan(config);
    expect(planned(prepared).map((op) => op.address)).toEqual([W1, `${W1}.portalGroupLink`]);
    const workspaceReads = (await portal.requests()).filter((request) => request.path === W1_PATH);
    expect(workspaceReads).toHaveLength(1);
  });

  it('refuses at plan time a collaboration operation on a live portal older than 10.5', async () => {
    await setPortalVersion('10.4');
    const config = await portal.config(HEADER_WITHOUT_VERSION + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, name: Renamed }\n');
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => [d.code, d.address])).toContainEqual(['version/collaboration', W1]);
  });

  it('refuses at plan time the size settings on a live portal older than 10.6', async () => {
    await setPortalVersion('10.5');
    const config = await portal.config(HEADER_WITHOUT_VERSION + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, maxItemSizeInMB: 10 }\n');
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => d.code)).toContain('version/workspace-size-settings');

    // Name and description remain possible at 10.5.
    const renamed = await portal.config(HEADER_WITHOUT_VERSION + 'collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, name: Renamed }\n');
    await portal.clearRequests();
    await portal.apply(renamed);
    expect((await sentWrites(portal)).map(({ params }) => params)).toEqual([{ name: 'Renamed' }]);
  });
});

describe('workspace change() request, without network', () => {
  it('encodes the declared fields in the spec order, numbers and flags as text', () => {
    const obj = declared('collaboration.workspace', W1, { collaborationId: 'c0ffee', workspaceId: 'w1' }, {
      description: 'D',
      maxReplicationPackageSizeInMB: 5,
      copyByRefIfCopyFail: false,
    });
    expect(workspace.change(obj, null)).toEqual({
      action: 'update',
      before: null,
      after: obj.value,
      request: {
        method: 'POST',
        path: `${W1_PATH}/updateInfo`,
        form: { description: 'D', maxReplicationPackageSizeInMB: '5', copyByRefIfCopyFail: 'false' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('treats a missing description like an empty one, and typed text values like their types', () => {
    const obj = declared('collaboration.workspace', W1, {}, { description: '', maxItemSizeInMB: 5 });
    expect(workspace.inSync(obj, { description: null, maxItemSizeInMB: '5' })).toBe(true);
    expect(workspace.inSync(obj, { description: null, maxItemSizeInMB: 6 })).toBe(false);
  });
});
