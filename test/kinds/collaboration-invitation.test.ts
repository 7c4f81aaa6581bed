/**
 * E13 (invite collaboration participant) live half, end to end against the emulator: the
 * invitation is created once, its file saved; never repeated when the portal already takes part
 * or is invited with the same access; the version gate at plan time; the request without network.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/engine/config/index.js';
import { collaborationInvitation } from '../../src/kinds/collaboration-invitation.js';
import type { LiveReader } from '../../src/core/request.js';
import { buildPlan } from '../../src/engine/plan/plan.js';
import { renderPlanMarkdown } from '../../src/engine/render/markdown.js';
import { renderPlanText } from '../../src/engine/render/text.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const PARTNER_URL = 'https://partner.example.org/portal';
const PARTNER = `collaboration[c0ffee].invitation[${PARTNER_URL}]`;
const INVITE_PATH = '/portals/self/collaborations/c0ffee/inviteParticipant';
const W1 = 'collaboration[c0ffee].workspace[w1]';

const portal = portalPerTest();

const invitationsConfig = (participants: string, workspaces = ''): string =>
  HEADER + `collaborations:\n  - id: c0ffee\n${workspaces}    participants:\n${participants}`;

describe('collaboration invitation (E13) against the emulator', () => {
  it('invites once after the workspaces it names, saves the file, and never invites again', async () => {
    const config = await portal.config(
      invitationsConfig(
        `      - guestPortalUrl: ${PARTNER_URL}\n        workspaces: { w1: sendAndReceive, w2: receive }\n        expirationHours: 72\n`,
        '    workspaces:\n      - { id: w1, name: Shared basemaps }\n',
      ),
    );
    const prepared = await portal.plan(config);
    expect(planned(prepared)).toEqual([
      { address: W1, action: 'update', operation: 'E9', destructive: false, before: { name: 'Basemaps' }, after: { name: 'Shared basemaps' } },
      {
        address: PARTNER,
        action: 'create',
        operation: 'E13',
        destructive: false,
        before: null,
        after: { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'sendAndReceive', w2: 'receive' }, expirationHours: 72 },
      },
    ]);
    expect(prepared.plan.operations[1]?.dependsOn).toEqual([W1]);
    expect(prepared.plan.operations[1]?.request).toMatchObject({ response: 'file', idempotent: false });

    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const form = {
      guestPortalUrl: PARTNER_URL,
      collaborationWorkspacesParticipantConfigJSON: '[{"w1":"sendAndReceive"},{"w2":"receive"}]',
      expiration: '72',
    };
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: '/portals/self/collaborations/c0ffee/workspaces/w1/updateInfo', params: { name: 'Shared basemaps' } },
      { method: 'POST', path: INVITE_PATH, params: form },
    ]);
    expect(withoutToken(writes[1]?.rawBody ?? '')).toBe(formBody(form));
    expect(withoutToken(writes[1]?.rawBody ?? '')).toBe(
      'guestPortalUrl=https%3A%2F%2Fpartner.example.org%2Fportal' +
        '&collaborationWorkspacesParticipantConfigJSON=%5B%7B%22w1%22%3A%22sendAndReceive%22%7D%2C%7B%22w2%22%3A%22receive%22%7D%5D' +
        '&expiration=72&f=json',
    );

    // The invitation file is saved, owner-only.
    const file = report.invitations[PARTNER];
    if (!file) throw new Error('the invitation file was not saved');
    expect(basename(file)).toBe('collaboration-partner.example.org.invite');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The file holds the invitation's content, the same document as the list's `invitationString`.
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ invitationRequest: { guestPortalUrl: PARTNER_URL } });

    const invitations = (await portal.state()).collaborations[0]?.invitations ?? [];
    expect(invitations.map((i) => [i.guestPortalUrl, i.workspaces])).toEqual([[PARTNER_URL, { w1: 'sendAndReceive', w2: 'receive' }]]);
    await expectConverged(portal, config);
    expect((await portal.state()).collaborations[0]?.invitations).toHaveLength(1);
  });

  it('does not invite a portal that already takes part with the same access (URL case and trailing slash aside)', async () => {
    const config = await portal.config(
      invitationsConfig('      - guestPortalUrl: https://MAPS.neighbor.example.org/portal/\n        workspaces: { w1: sendAndReceive }\n'),
    );
    await expectNothingToDo(portal, config);
  });

  it('never invites a portal that already takes part with other access: no operation, a plan warning naming the difference', async () => {
    // The sample's neighbour takes part in w1 through a group link with sendAndReceive.
    const neighbourUrl = 'https://maps.neighbor.example.org/portal';
    const config = await portal.config(invitationsConfig(`      - guestPortalUrl: ${neighbourUrl}\n        workspaces: { w1: receive }\n`));
    const prepared = await portal.plan(config);
    expect(prepared.plan.operations).toEqual([]);
    expect(prepared.plan.warnings).toEqual([
      expect.objectContaining({
        address: `collaboration[c0ffee].invitation[${neighbourUrl}]`,
        kind: 'collaboration.invitation',
        message: expect.stringContaining('already takes part in the collaboration with access {w1: sendAndReceive}, but the config declares {w1: receive}'),
      }),
    ]);
    await portal.clearRequests();
    await portal.apply(config);
    expect(await sentWrites(portal)).toEqual([]);
    expect((await portal.state()).collaborations[0]?.invitations).toEqual([]);
  });

  it('does not invite again while an invitation with the same access is pending, but does for other access', async () => {
    const state = await portal.state();
    const collaboration = state.collaborations[0];
    if (!collaboration) throw new Error('the sample has a collaboration');
    const now = Date.now();
    collaboration.invitations = [
      { id: 'inv1', guestPortalUrl: PARTNER_URL, workspaces: { w2: 'send' }, expiration: now + 86_400_000 * 365, created: now },
    ];
    await portal.replaceState(state);
    await expectNothingToDo(portal, await portal.config(invitationsConfig(`      - guestPortalUrl: ${PARTNER_URL}\n        workspaces: { w2: send }\n`)));

    const otherAccess = await portal.config(invitationsConfig(`      - guestPortalUrl: ${PARTNER_URL}\n        workspaces: { w2: receive }\n`));
    expect(planned(await portal.plan(otherAccess))).toEqual([
      {
        address: PARTNER,
        action: 'create',
        operation: 'E13',
        destructive: false,
        before: { guestPortalUrl: PARTNER_URL, workspaces: { w2: 'send' }, standing: 'invited' },
        after: { guestPortalUrl: PARTNER_URL, workspaces: { w2: 'receive' } },
      },
    ]);
    await portal.clearRequests();
    await portal.apply(otherAccess);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([
      { path: INVITE_PATH, params: { guestPortalUrl: PARTNER_URL, collaborationWorkspacesParticipantConfigJSON: '[{"w2":"receive"}]' } },
    ]);
    await expectConverged(portal, otherAccess);
  });

  it('invites again when the earlier invitation has expired', async () => {
    const state = await portal.state();
    const collaboration = state.collaborations[0];
    if (!collaboration) throw new Error('the sample has a collaboration');
    collaboration.invitations = [{ id: 'old', guestPortalUrl: PARTNER_URL, workspaces: { w1: 'send' }, expiration: 1_000_000, created: 1 }];
    await portal.replaceState(state);
    const config = await portal.config(invitationsConfig(`      - guestPortalUrl: ${PARTNER_URL}\n        workspaces: { w1: send }\n`));
    expect(planned(await portal.plan(config))).toMatchObject([{ address: PARTNER, action: 'create', before: null }]);
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ path }) => path)).toEqual([INVITE_PATH]);
    await expectConverged(portal, config);
  });

  it('refuses at plan time on a live portal older than 10.5 when the config declares no version', async () => {
    const state = await portal.state();
    state.organization.version = '10.4';
    await portal.replaceState(state);
    const config = await portal.config(
      'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\ncollaborations:\n  - id: c0ffee\n    participants:\n' +
        `      - guestPortalUrl: ${PARTNER_URL}\n        workspaces: { w1: send }\n`,
    );
    const failure = await portal.plan(config).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).diagnostics.map((d) => [d.code, d.address])).toContainEqual(['version/collaboration', PARTNER]);
    expect(await sentWrites(portal)).toEqual([]);
  });
});

describe('collaboration invitation live half, without network', () => {
  const ids = { collaborationId: 'c0ffee', guestPortalUrl: PARTNER_URL };

  it('creates with the workspaces as one-key objects and the expiration in hours, as a file, never retried', () => {
    const value = { guestPortalUrl: PARTNER_URL, workspaces: { w2: 'send', w1: 'receive' }, expirationHours: 1.5 };
    const obj = declared('collaboration.invitation', PARTNER, ids, value);
    expect(collaborationInvitation.change(obj, null)).toEqual({
      action: 'create',
      before: null,
      after: value,
      request: {
        method: 'POST',
        path: INVITE_PATH,
        form: {
          guestPortalUrl: PARTNER_URL,
          collaborationWorkspacesParticipantConfigJSON: '[{"w2":"send"},{"w1":"receive"}]',
          expiration: '1.5',
        },
        response: 'file',
        idempotent: false,
      },
    });
  });

  it('is in sync only with the same access for every workspace', () => {
    const obj = declared('collaboration.invitation', PARTNER, ids, { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'send', w2: 'receive' } });
    expect(collaborationInvitation.inSync(obj, { guestPortalUrl: `${PARTNER_URL}/`, workspaces: { w2: 'receive', w1: 'send' } })).toBe(true);
    expect(collaborationInvitation.inSync(obj, { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'send' } })).toBe(false);
    expect(collaborationInvitation.inSync(obj, null)).toBe(false);
  });

  it('a joined participant is never invited again; differing access is a plan warning naming the difference', async () => {
    // Documented shapes: the participant has no access fields; its access is in the workspaces' group links.
    const reader: LiveReader = {
      get: async () => undefined,
      list: async (path) => {
        if (path.endsWith('/participants')) {
          return [
            { portalInfo: { id: 'HOST-GUID', url: 'https://host.example.com/portal' }, collaborationRole: 'Host', status: 'active' },
            { portalInfo: { id: 'PARTNER-GUID', url: PARTNER_URL }, collaborationRole: 'Guest', status: 'active' },
          ];
        }
        if (path.endsWith('/workspaces')) {
          return [
            { id: 'w1', participantGroupLinks: [{ portalId: 'PARTNER-GUID', accessMode: 'receive' }], participantsWithoutGroupLinks: [] },
            { id: 'w2', participantGroupLinks: [], participantsWithoutGroupLinks: [{ portalId: 'PARTNER-GUID', accessMode: 'send' }] },
          ];
        }
        return [];
      },
    };
    const obj = declared('collaboration.invitation', PARTNER, ids, { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'sendAndReceive', w2: 'send' } });
    const live = await collaborationInvitation.read(obj, reader);
    expect(live).toEqual({ guestPortalUrl: PARTNER_URL, workspaces: { w1: 'receive', w2: 'send' }, standing: 'participant' });
    expect(collaborationInvitation.inSync(obj, live)).toBe(true);
    const plan = buildPlan({
      objects: [obj],
      basis: new Map([[PARTNER, live]]),
      recorded: {},
      kinds: new Map([[collaborationInvitation.name, collaborationInvitation]]),
      portal: { url: 'https://host.example.com/portal/sharing/rest' },
      refreshed: true,
      state: null,
      targets: [],
    });
    expect(plan.operations).toEqual([]);
    expect(plan.warnings).toEqual([
      {
        address: PARTNER,
        kind: 'collaboration.invitation',
        message: `${PARTNER_URL} already takes part in the collaboration with access {w1: receive, w2: send}, but the config declares {w1: sendAndReceive, w2: send}. No planned operation changes a participant's access (it is not invited again): change it on the portal, or declare the access it has.`,
      },
    ]);
    expect(renderPlanText(plan, { color: false })).toContain(`Warnings (1):\n  ! ${PARTNER}: ${PARTNER_URL} already takes part`);
    expect(renderPlanMarkdown(plan)).toContain('⚠️ **Warnings (1):**');
    // The same access: no warning.
    expect(collaborationInvitation.warnings(declared('collaboration.invitation', PARTNER, ids, { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'receive', w2: 'send' } }), live)).toEqual([]);
  });

  it('waits only for the declared workspaces it names', () => {
    const obj = declared('collaboration.invitation', PARTNER, ids, { guestPortalUrl: PARTNER_URL, workspaces: { w1: 'send', w2: 'receive' } });
    const w2 = declared('collaboration.workspace', 'collaboration[c0ffee].workspace[w2]', {}, { name: 'x' });
    expect(collaborationInvitation.dependsOn(obj, [obj, w2])).toEqual(['collaboration[c0ffee].workspace[w2]']);
  });
});
