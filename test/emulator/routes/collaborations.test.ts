import { describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../../src/emulator/state/model.js';
import { body, call, expectApiError, NOW, ORG_ID, sampleState } from './helpers.js';

const UPDATE_INFO = '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId/updateInfo';
const REMOVE_PARTICIPANT = '/portals/:portalId/collaborations/:collabId/participants/:participantId/remove';
const INVITE = '/portals/:portalId/collaborations/:collabId/inviteParticipant';
const REMOVE_LINK = '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId/removePortalGroupLink';
const WORKSPACE = '/portals/:portalId/collaborations/:collabId/workspaces/:workspaceId';
/** Collaboration portal ids (GUID form) of the sample organization and its partners. */
const SELF = '0c1d2e3f-4a5b-4c6d-8e9f-0123456789ab';
const NEIGHBOR = '02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f';
const FORMER = '7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b';

const updateInfo = (params: Record<string, string>, state = sampleState(), workspaceId = 'w1', as = 'admin') =>
  call(state, UPDATE_INFO, { params, pathParams: { collabId: 'c0ffee', workspaceId }, as });
const invite = (params: Record<string, string>, state = sampleState()) => call(state, INVITE, { params, pathParams: { collabId: 'c0ffee' } });
const readWorkspace = (state: EmulatorState, workspaceId: string) => body(call(state, WORKSPACE, { pathParams: { collabId: 'c0ffee', workspaceId } }));
const notHost = (): EmulatorState => {
  const state = sampleState();
  state.collaborations[0]!.hostPortalId = '02c2cef9';
  return state;
};
const atVersion = (version: string): EmulatorState => {
  const state = sampleState();
  state.organization.version = version;
  return state;
};

describe('E9 workspace updateInfo', () => {
  it('updates name, description and config fields (10.6+) and reads back', () => {
    const state = sampleState();
    const params = { name: 'N'.repeat(100), description: 'D'.repeat(250), maxItemSizeInMB: '100', maxReplicationPackageSizeInMB: '', copyByRefIfCopyFail: 'true' };
    expect(body(updateInfo(params, state))).toEqual({ success: true });
    expect(readWorkspace(state, 'w1')).toMatchObject({
      id: 'w1',
      name: 'N'.repeat(100),
      description: 'D'.repeat(250),
      collaborationId: 'c0ffee',
      config: { maxItemSizeInMB: 100, copyByRefIfCopyFail: true, bidirectionalSyncCapable: false },
      participantGroupLinks: [
        { portalId: SELF, portalGroupId: 'b4850fb244bf4fbc8b918c96f267b2cf', portalGroupName: 'Planning Department', accessMode: 'sendAndReceive' },
        { portalId: NEIGHBOR, accessMode: 'sendAndReceive' },
      ],
      participantsWithoutGroupLinks: [],
    });
    expect(readWorkspace(state, 'w1')['config']).not.toHaveProperty('maxReplicationPackageSizeInMB');
    // The group id and name are returned for this portal's own link only (documented).
    const neighbourLink = (readWorkspace(state, 'w1')['participantGroupLinks'] as Record<string, unknown>[]).find((link) => link['portalId'] === NEIGHBOR);
    expect(Object.keys(neighbourLink ?? {}).sort()).toEqual(['accessMode', 'config', 'portalId']);
  });

  it('limits name to 100 and description to 250 characters', () => {
    expectApiError(() => updateInfo({ name: 'N'.repeat(101) }), { code: 400, says: /too long/ });
    expectApiError(() => updateInfo({ description: 'D'.repeat(251) }), { code: 400, says: /too long/ });
    expectApiError(() => updateInfo({ name: '' }), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => updateInfo({ maxItemSizeInMB: '1.5' }), { code: 400, says: /must be an integer|must be a number/ });
    expectApiError(() => updateInfo({ maxItemSizeInMB: '0' }), { code: 400, says: /must be at least 1/ });
    expectApiError(() => updateInfo({ copyByRefIfCopyFail: 'maybe' }), { code: 400, says: /must be true or false/ });
  });

  it('ignores the config parameter from 10.6 and the size fields before it', () => {
    const current = sampleState();
    updateInfo({ config: '{"maxItemSizeInMB": 1}' }, current);
    expect(current.collaborations[0]!.workspaces[0]!.config.maxItemSizeInMB).toBe(512);
    const old = atVersion('10.5.1');
    updateInfo({ maxItemSizeInMB: '1', config: '{"maxReplicationPackageSizeInMB": 64, "copyByRefIfCopyFail": null, "other": 1}' }, old);
    expect(old.collaborations[0]!.workspaces[0]!.config).toEqual({ maxItemSizeInMB: 512, maxReplicationPackageSizeInMB: 64 });
    expectApiError(() => updateInfo({ config: '[1]' }, atVersion('10.5')), { code: 400, says: /not valid JSON|wrong shape/ });
    expectApiError(() => updateInfo({ config: '{' }, atVersion('10.5')), { code: 400, says: /not valid JSON|wrong shape/ });
  });

  it('needs a default admin of the host portal, 10.5+, an existing collaboration and workspace', () => {
    expectApiError(() => updateInfo({ name: 'x' }, sampleState(), 'w1', 'steward'), { code: 403, messageCode: 'GWM_0003' });
    expectApiError(() => updateInfo({ name: 'x' }, notHost()), { code: 403, messageCode: 'GWM_0003', detail: 'host' });
    expectApiError(() => updateInfo({ name: 'x' }, atVersion('10.4')), { code: 400, says: /^Invalid URL/, detail: '10.5' });
    expectApiError(() => updateInfo({ name: 'x' }, sampleState(), 'w9'), { code: 404, messageCode: undefined });
    expectApiError(() => call(sampleState(), UPDATE_INFO, { params: {}, pathParams: { collabId: 'nope', workspaceId: 'w1' } }), {
      code: 404,
      messageCode: undefined,
    });
  });
});

describe('E11 remove participant', () => {
  it('removes the participant, its group links and its entries without links', () => {
    const state = sampleState();
    state.collaborations[0]!.workspaces[1]!.participantsWithoutGroupLinks.push({ portalId: NEIGHBOR, accessMode: 'send' });
    expect(body(call(state, REMOVE_PARTICIPANT, { pathParams: { collabId: 'c0ffee', participantId: NEIGHBOR } }))).toEqual({ success: true });
    const collaboration = state.collaborations[0]!;
    expect(collaboration.participants.map((participant) => participant.portalId)).toEqual([SELF, FORMER]);
    expect(collaboration.workspaces[0]!.participantGroupLinks).toEqual([{ portalId: SELF, portalGroupId: 'b4850fb244bf4fbc8b918c96f267b2cf', accessMode: 'sendAndReceive' }]);
    expect(collaboration.workspaces[1]!.participantsWithoutGroupLinks).toEqual([
      { portalId: SELF, accessMode: 'sendAndReceive' },
      { portalId: FORMER, accessMode: 'receive' },
    ]);
    const page = body(call(state, '/portals/:portalId/collaborations/:collabId/participants', { pathParams: { collabId: 'c0ffee' } }));
    // Documented participants carry no workspaces: access is read from the workspaces.
    expect(page).toMatchObject({
      total: 2,
      start: 1,
      num: 10,
      nextStart: -1,
      participants: [
        { collaborationRole: 'Host', portalInfo: { id: SELF } },
        { collaborationId: 'c0ffee', collaborationRole: 'Guest', status: 'active', portalInfo: { id: FORMER, url: 'https://old-partner.example.net/portal', name: 'Former partner' } },
      ],
    });
    expect((page['participants'] as Record<string, unknown>[])[1]).not.toHaveProperty('workspaces');
  });

  it('answers 404 for an unknown participant, GWM_0003 off the host or for non admins, Invalid URL before 10.5', () => {
    const remove = (state: EmulatorState, participantId = NEIGHBOR, as = 'admin') =>
      call(state, REMOVE_PARTICIPANT, { pathParams: { collabId: 'c0ffee', participantId }, as });
    expectApiError(() => remove(sampleState(), 'nope'), { code: 404, messageCode: undefined });
    expectApiError(() => remove(notHost()), { code: 403, messageCode: 'GWM_0003' });
    expectApiError(() => remove(sampleState(), NEIGHBOR, 'steward'), { code: 403, messageCode: 'GWM_0003' });
    expectApiError(() => remove(atVersion('10.4.1')), { code: 400, says: /^Invalid URL/ });
  });
});

describe('E13 invite participant', () => {
  const config = JSON.stringify([{ w1: 'sendAndReceive' }, { w2: 'receive' }]);

  it('answers an invitation file and records a pending invitation (default 24 hours)', () => {
    const state = sampleState();
    const result = invite({ guestPortalUrl: 'https://maps.other.example.org/portal', collaborationWorkspacesParticipantConfigJSON: config }, state);
    if (result.type !== 'file') throw new Error('expected a file');
    expect(result.filename).toBe('collaboration-maps.other.example.org.invite');
    expect(result.contentType).toBe('application/octet-stream');
    const file = JSON.parse(Buffer.from(result.body).toString('utf8')) as Record<string, unknown>;
    const invitation = state.collaborations[0]!.invitations[0]!;
    expect(invitation).toEqual({
      id: expect.any(String) as unknown,
      guestPortalUrl: 'https://maps.other.example.org/portal',
      workspaces: { w1: 'sendAndReceive', w2: 'receive' },
      expiration: NOW + 24 * 3_600_000,
      created: NOW,
    });
    // The file carries the documented invitation content, the same JSON as invitationString.
    expect(file).toMatchObject({
      invitationRequest: {
        id: invitation.id,
        collaborationId: 'c0ffee',
        guestPortalUrl: 'https://maps.other.example.org/portal',
        collaborationWorkspaceConfigs: {
          accessMode: [
            { collaborationWorkspaceId: 'w1', accessMode: 'sendAndReceive' },
            { collaborationWorkspaceId: 'w2', accessMode: 'receive' },
          ],
        },
      },
    });
    const list = body(call(state, '/portals/:portalId/collaborations/:collabId/invitations', { pathParams: { collabId: 'c0ffee' } }));
    expect(list.collaborationInvitations).toEqual([
      {
        id: invitation.id,
        collaborationId: 'c0ffee',
        hostPortalId: SELF,
        guestPortalId: 'unknown',
        guestPortalUrl: 'https://maps.other.example.org/portal',
        status: 'host_created',
        config: { invitationRequestFilename: 'collaboration-maps.other.example.org.invite' },
        invitationString: result.body,
      },
    ]);
    const later = body(call(state, '/portals/:portalId/collaborations/:collabId/invitations', { pathParams: { collabId: 'c0ffee' }, now: NOW + 25 * 3_600_000 }));
    expect((later.collaborationInvitations as { status: string }[])[0]!.status).toBe('expired');
  });

  it('takes expiration in hours, or as a future epoch-milliseconds timestamp', () => {
    const state = sampleState();
    const base = { guestPortalUrl: 'https://a.example.org/portal', collaborationWorkspacesParticipantConfigJSON: config };
    invite({ ...base, expiration: '48' }, state);
    invite({ ...base, expiration: String(NOW + 1000) }, state);
    expect(state.collaborations[0]!.invitations.map((invitation) => invitation.expiration)).toEqual([NOW + 48 * 3_600_000, NOW + 1000]);
    expectApiError(() => invite({ ...base, expiration: '0' }), { code: 400, says: /positive number of hours/ });
    expectApiError(() => invite({ ...base, expiration: String(NOW - 1) }), { code: 400, says: /must lie in the future/ });
    expectApiError(() => invite({ ...base, expiration: 'soon' }), { code: 400, says: /must be an integer|must be a number/ });
  });

  it('validates the guest URL and the workspace configuration', () => {
    const base = { guestPortalUrl: 'https://a.example.org/portal', collaborationWorkspacesParticipantConfigJSON: config };
    expectApiError(() => invite({ ...base, guestPortalUrl: 'http://a.example.org/portal' }), { code: 400, says: /https:\/\/ URL/ });
    expectApiError(() => invite({ ...base, guestPortalUrl: 'a.example.org' }), { code: 400, says: /https:\/\/ URL/ });
    expectApiError(() => invite({ collaborationWorkspacesParticipantConfigJSON: config }), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => invite({ guestPortalUrl: base.guestPortalUrl }), { code: 400, says: /is required|cannot be empty/ });
    const withConfig = (value: string) => invite({ ...base, collaborationWorkspacesParticipantConfigJSON: value });
    expectApiError(() => withConfig('[{"w9":"send"}]'), { code: 400, says: /Unknown workspace/ });
    expectApiError(() => withConfig('[{"w1":"write"}]'), { code: 400, says: /must be one of/ });
    expectApiError(() => withConfig('[{"w1":"send","w2":"send"}]'), { code: 400, says: /not valid JSON|wrong shape/ });
    expectApiError(() => withConfig('[]'), { code: 400, says: /not valid JSON|wrong shape/ });
    expectApiError(() => withConfig('{"w1":"send"}'), { code: 400, says: /not valid JSON|wrong shape/ });
    expectApiError(() => withConfig('[{"w1":"send"},{"w1":"receive"}]'), { code: 400, says: /listed twice/ });
  });

  it('is for default admins of the host portal, from 10.5', () => {
    const params = { guestPortalUrl: 'https://a.example.org/portal', collaborationWorkspacesParticipantConfigJSON: config };
    expectApiError(() => invite(params, notHost()), { code: 403, messageCode: 'GWM_0003' });
    expectApiError(() => call(sampleState(), INVITE, { params, pathParams: { collabId: 'c0ffee' }, as: 'steward' }), { code: 403, messageCode: 'GWM_0003' });
    expectApiError(() => invite(params, atVersion('10.4')), { code: 400, says: /^Invalid URL/ });
    const exact = atVersion('10.5');
    expect(invite(params, exact).type).toBe('file');
  });
});

describe('E14 remove portal group link', () => {
  it("removes this portal's link and lists it without a link", () => {
    const state = sampleState();
    expect(body(call(state, REMOVE_LINK, { pathParams: { collabId: 'c0ffee', workspaceId: 'w1' } }))).toEqual({
      collaborationId: 'c0ffee',
      collaborationWorkspaceId: 'w1',
      success: true,
    });
    // Another portal's link shows no group id or name (documented: those are shown for self only).
    expect(readWorkspace(state, 'w1')).toMatchObject({
      participantGroupLinks: [{ portalId: NEIGHBOR, accessMode: 'sendAndReceive' }],
      participantsWithoutGroupLinks: [{ portalId: SELF, accessMode: 'sendAndReceive' }],
    });
    expect(state.collaborations[0]!.workspaces[0]!.participantGroupLinks).toEqual([
      { portalId: NEIGHBOR, portalGroupId: '5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e', accessMode: 'sendAndReceive' },
    ]);
  });

  it('answers 404 when this portal has no link, and works for a non-host admin', () => {
    expectApiError(() => call(sampleState(), REMOVE_LINK, { pathParams: { collabId: 'c0ffee', workspaceId: 'w2' } }), {
      code: 404,
      messageCode: undefined,
      detail: 'w2',
    });
    expect(body(call(notHost(), REMOVE_LINK, { pathParams: { collabId: 'c0ffee', workspaceId: 'w1' } }))).toMatchObject({ success: true });
    expectApiError(() => call(sampleState(), REMOVE_LINK, { pathParams: { collabId: 'c0ffee', workspaceId: 'w1' }, as: 'steward' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
    expectApiError(() => call(atVersion('10.4'), REMOVE_LINK, { pathParams: { collabId: 'c0ffee', workspaceId: 'w1' } }), {
      code: 400,
      says: /^Invalid URL/,
    });
  });
});

describe('collaboration reads', () => {
  it('lists collaborations and workspaces', () => {
    const state = sampleState();
    const collaboration = {
      id: 'c0ffee',
      name: 'Regional basemap exchange',
      description: 'Basemaps and incident layers shared with neighbouring counties',
      collaborationHostPortalId: SELF,
      config: { ownerUsername: 'admin' },
      created: 0,
      modified: 0,
    };
    expect(body(call(state, '/portals/:portalId/collaborations'))).toEqual({ total: 1, start: 1, num: 10, nextStart: -1, collaborations: [collaboration] });
    expect(body(call(state, '/portals/:portalId/collaborations/:collabId', { pathParams: { collabId: 'c0ffee' } }))).toEqual(collaboration);
    // The collaboration portal id is not the short organization id.
    expect(SELF).not.toBe(ORG_ID);
    const workspaces = body(call(state, '/portals/:portalId/collaborations/:collabId/workspaces', { pathParams: { collabId: 'c0ffee' } }));
    expect((workspaces.workspaces as { id: string }[]).map((workspace) => workspace.id)).toEqual(['w1', 'w2']);
    expectApiError(() => call(state, '/portals/:portalId/collaborations/:collabId', { pathParams: { collabId: 'x' } }), { code: 404, messageCode: undefined });
  });
});
