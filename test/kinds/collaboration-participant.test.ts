/**
 * E11 (remove collaboration participant) live half, end to end against the emulator: declared
 * removals, `pruneParticipants` (destructive, refused without allowDestructive), the version
 * gate at plan time, and the request without network.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/engine/config/index.js';
import type { LiveReader } from '../../src/core/request.js';
import { DestructiveRefusedError } from '../../src/engine/apply/apply.js';
import { collaborationParticipant } from '../../src/kinds/collaboration-participant.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const HOST_ID = '0c1d2e3f-4a5b-4c6d-8e9f-0123456789ab';
const NEIGHBOR_ID = '02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f';
const FORMER_ID = '7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const FORMER = 'collaboration[c0ffee].participant[7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b]';
const FORMER_LIVE = { portalId: FORMER_ID, url: 'https://old-partner.example.net/portal' };
const REMOVE_FORMER = '/portals/self/collaborations/c0ffee/participants/7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b/remove';

const portal = portalPerTest();

const participantIds = async (): Promise<string[]> => ((await portal.state()).collaborations[0]?.participants ?? []).map((p) => p.portalId);

describe('collaboration participant (E11) against the emulator', () => {
  it('plans a declared removal, sends it, then converges', async () => {
    const config = await portal.config(HEADER + 'collaborations:\n  - id: c0ffee\n    participants:\n      - { portalId: 7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b, absent: true }\n');
    expect(planned(await portal.plan(config))).toEqual([
      { address: FORMER, action: 'delete', operation: 'E11', destructive: false, before: FORMER_LIVE, after: null },
    ]);
    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([{ method: 'POST', path: REMOVE_FORMER, params: {} }]);
    expect(withoutToken(writes[0]?.rawBody ?? '')).toBe(formBody({}));
    expect(await participantIds()).toEqual([HOST_ID, NEIGHBOR_ID]);
    await expectConverged(portal, config);
  });

  it('plans nothing for a participant that is already gone', async () => {
    const config = await portal.config(HEADER + 'collaborations:\n  - id: c0ffee\n    participants:\n      - { portalId: "9e9e9e9e", absent: true }\n');
    await expectNothingToDo(portal, config);
  });

  it('prunes undeclared participants as destructive removals, refused without allowDestructive', async () => {
    const config = await portal.config(
      HEADER + 'collaborations:\n  - id: c0ffee\n    pruneParticipants: true\n    participants:\n      - { portalId: 02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f }\n',
    );
    expect(planned(await portal.plan(config))).toEqual([
      { address: FORMER, action: 'delete', operation: 'E11', destructive: true, before: FORMER_LIVE, after: null },
    ]);

    await portal.clearRequests();
    await expect(portal.apply(config)).rejects.toBeInstanceOf(DestructiveRefusedError);
    expect(await sentWrites(portal)).toEqual([]);
    expect(await participantIds()).toEqual([HOST_ID, NEIGHBOR_ID, FORMER_ID]);

    const report = await portal.apply(config, { allowDestructive: true });
    expect(report.result.failed).toEqual([]);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([{ path: REMOVE_FORMER, params: {} }]);
    expect(await participantIds()).toEqual([HOST_ID, NEIGHBOR_ID]);
    await expectConverged(portal, config, { allowDestructive: true });
  });

  it('keeps on prune the participants declared by portal id or by guest portal URL', async () => {
    const config = await portal.config(
      HEADER +
        `collaborations:
  - id: c0ffee
    pruneParticipants: true
    participants:
      - { portalId: 7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b }
      - guestPortalUrl: HTTPS://maps.neighbor.example.org/portal/
        workspaces: { w1: sendAndReceive }
`,
    );
    await expectNothingToDo(portal, config);
  });

  it('refuses at plan time on a live portal older than 10.5 when the config declares no version', async () => {
    const state = await portal.state();
    state.organization.version = '10.4';
    await portal.replaceState(state);
    const config = await portal.config(
      'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\ncollaborations:\n  - id: c0ffee\n    participants:\n      - { portalId: 7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b, absent: true }\n',
    );
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => [d.code, d.address])).toContainEqual(['version/collaboration', FORMER]);
  });
  it('checks the removals a prune implies against the live version too', async () => {
    const state = await portal.state();
    state.organization.version = '10.4';
    await portal.replaceState(state);
    const config = await portal.config(
      'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\ncollaborations:\n  - id: c0ffee\n    pruneParticipants: true\n    participants:\n      - { portalId: 02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f }\n',
    );
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => [d.code, d.address])).toContainEqual(['version/collaboration', FORMER]);
  });
});

describe('collaboration participant live half, without network', () => {
  it('removes with no parameter; a participant that is gone is in sync', () => {
    const obj = declared('collaboration.participant', FORMER, { collaborationId: 'c0ffee', participantPortalId: FORMER_ID }, null);
    expect(collaborationParticipant.change(obj, FORMER_LIVE)).toEqual({
      action: 'delete',
      before: FORMER_LIVE,
      after: null,
      request: { method: 'POST', path: REMOVE_FORMER, form: {}, response: 'json', idempotent: true },
    });
    expect(collaborationParticipant.inSync(obj, null)).toBe(true);
    expect(collaborationParticipant.inSync(obj, FORMER_LIVE)).toBe(false);
  });

  it('never prunes this portal itself, even when the participants list includes it', async () => {
    // The documented list names the host by `collaborationRole: Host`; its GUID-style id is never
    // compared with the short portals/self id (here deliberately different).
    const reader: LiveReader = {
      get: async (path) => (path === '/portals/self' ? { id: 'AbCdEfGh01234567' } : undefined),
      list: async () => [
        { portalInfo: { id: 'HOST', url: 'https://host.example.com/portal' }, collaborationRole: 'Host', status: 'active' },
        { portalInfo: { id: 'P2', url: 'https://p2.example.com/portal' }, collaborationRole: 'Guest', status: 'active' },
      ],
    };
    const source = { file: 'unit.yaml', line: 1, column: 1 };
    const pruned = await collaborationParticipant.prune!(
      { collection: 'collaboration[c1].participant', kind: 'collaboration.participant', ids: { collaborationId: 'c1' }, keys: [], source },
      reader,
    );
    expect(pruned).toEqual([
      {
        kind: 'collaboration.participant',
        address: 'collaboration[c1].participant[P2]',
        ids: { collaborationId: 'c1', participantPortalId: 'P2' },
        value: null,
        absent: true,
        destructive: true,
        source,
      },
    ]);
  });
});
