/** Every operation over HTTP: one success and one error each, through the real server (port 0). */
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { EmulatorState } from '../../../src/emulator/state/model.js';
import { emulatorPerFile, SAMPLE_DATA } from '../server/helpers.js';

const GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617';
const ROAD = '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e';
const COLLAB = '/portals/self/collaborations/c0ffee';

const emulator = emulatorPerFile(() => startEmulator({ port: 0, host: '127.0.0.1', data: SAMPLE_DATA }));

async function post(path: string, params: Record<string, string> = {}, token = 'admin-token'): Promise<Response> {
  return fetch(`${emulator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ f: 'json', token, ...params }).toString(),
  });
}
async function postJson(path: string, params: Record<string, string> = {}, token = 'admin-token'): Promise<Record<string, unknown>> {
  return (await (await post(path, params, token)).json()) as Record<string, unknown>;
}
async function getJson(path: string, query: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const url = `${emulator.url}${path}?${new URLSearchParams({ f: 'json', ...query }).toString()}`;
  return (await (await fetch(url, { headers: { authorization: 'Bearer admin-token' } })).json()) as Record<string, unknown>;
}
const errorOf = (answer: Record<string, unknown>) => answer.error as { code: number; messageCode?: string; message: string; details: string[] };
/** Code 400 without a messageCode: none is documented for the condition; its message and details say which it was. */
function expectRefused(answer: Record<string, unknown>, says: RegExp): void {
  const error = errorOf(answer);
  expect(error).toMatchObject({ code: 400 });
  expect(error.messageCode).toBeUndefined();
  expect([error.message, ...error.details].join('\n')).toMatch(says);
}

async function replaceState(change: (state: EmulatorState) => void): Promise<void> {
  const state = emulator.state();
  change(state);
  const response = await fetch(`${emulator.controlUrl}/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) });
  expect(response.ok).toBe(true);
}

const schema = (title: string) => JSON.stringify({ categorySchema: [{ title }] });

describe('operations over HTTP', () => {
  it('E1 group assignCategorySchema', async () => {
    expect(await postJson(`/community/groups/${GROUP}/assignCategorySchema`, { categorySchema: schema('Assets') })).toEqual({ success: true });
    expect(await getJson(`/community/groups/${GROUP}/categorySchema`)).toEqual({ categorySchema: [{ title: 'Assets' }] });
    expect(errorOf(await postJson('/community/groups/nope/assignCategorySchema', { categorySchema: schema('A') }))).toMatchObject({
      code: 400,
      messageCode: 'CONT_0006',
    });
  });

  it('E2 organization assignCategorySchema, as a parameter and as a raw JSON body', async () => {
    expect(await postJson('/portals/self/assignCategorySchema', { categorySchema: schema('Themes') })).toEqual({ success: true });
    const raw = await fetch(`${emulator.url}/portals/self/assignCategorySchema?f=json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer admin-token' },
      body: schema('Raw'),
    });
    expect(await raw.json()).toEqual({ success: true });
    expect(await getJson('/portals/self/categorySchema')).toEqual({ categorySchema: [{ title: 'Raw' }] });
    expect(errorOf(await postJson('/portals/self/assignCategorySchema', { categorySchema: '{"categorySchema":[]}' }))).toMatchObject({
      code: 400,
      messageCode: 'ORG_1132',
      details: ['schema exceeds maximum tree size or is empty'],
    });
  });

  it('E3 setContentStatus', async () => {
    expect(await postJson(`/content/items/${PARCELS}/setContentStatus`, { status: 'deprecated', clearEmptyFields: 'false' })).toEqual({
      success: true,
      itemId: PARCELS,
    });
    expect((await getJson(`/content/items/${PARCELS}`)).contentStatus).toBe('deprecated');
    expect(errorOf(await postJson(`/content/items/${PARCELS}/setContentStatus`, { status: 'public_authoritative' }))).toMatchObject({
      code: 400,
      messageCode: 'CONT_0163',
    });
  });

  it('E3 automatic transitions follow a state replaced through the control API', async () => {
    await replaceState((state) => {
      state.organization.isVerified = true;
    });
    expect((await getJson(`/content/items/${ROAD}`)).contentStatus).toBe('public_authoritative');
    await replaceState((state) => {
      state.items[0]!.access = 'org';
    });
    expect((await getJson(`/content/items/${ROAD}`)).contentStatus).toBe('org_authoritative');
  });

  it('E4 updateUserLevel', async () => {
    expectRefused(await postJson('/portals/self/updateUserLevel', { user: 'mlopez', level: '1' }), /^Invalid URL/);
    await replaceState((state) => {
      state.organization.version = '10.6.1';
    });
    expect(await postJson('/portals/self/updateUserLevel', { userName: 'mlopez', level: '1' })).toEqual({ success: true });
    expect((await getJson('/community/users/mlopez')).level).toBe('1');
  });

  it('E5 deleteMemberCategorySchema', async () => {
    expect(await postJson('/portals/self/deleteMemberCategorySchema')).toEqual({ success: true });
    expect(errorOf(await postJson('/portals/self/deleteMemberCategorySchema'))).toMatchObject({ code: 404 });
  });

  it('E6 federation update', async () => {
    const federation = await getJson('/portals/self/idp/federation');
    expect(await postJson(`/portals/self/idp/federation/${String(federation.id)}/update`, { signUpMode: 'Automatic' })).toEqual({
      success: true,
      federationId: federation.id,
    });
    expect((await getJson('/portals/self/idp/federation')).signUpMode).toBe('Automatic');
    expectRefused(await postJson(`/portals/self/idp/federation/${String(federation.id)}/update`, { signUpMode: 'Sometimes' }), /must be one of/);
  });

  it('E7 enable task', async () => {
    expect(await postJson('/community/users/jsmith/tasks/a1b2c3/enable')).toEqual({ success: true, taskId: 'a1b2c3' });
    expect(await getJson('/community/users/jsmith/tasks/a1b2c3')).toMatchObject({ active: true, taskState: 'active' });
    expect(errorOf(await postJson('/community/users/jsmith/tasks/a1b2c3/enable', {}, 'viewer-token'))).toMatchObject({ code: 403, messageCode: 'GWM_0003' });
  });

  it('E8 securityPolicy update', async () => {
    expect(await postJson('/portals/self/securityPolicy/update', { minLength: '14', minUpper: '' })).toEqual({ success: true });
    expect(await getJson('/portals/self/securityPolicy')).toEqual({
      passwordPolicy: { minLength: 14, minDigit: 1, expirationInDays: 180, type: 'custom', created: expect.any(Number) as unknown, modified: expect.any(Number) as unknown },
    });
    expectRefused(await postJson('/portals/self/securityPolicy/update', { historySize: '25' }), /must be between 1 and 24/);
  });

  it('E9 workspace updateInfo', async () => {
    expect(await postJson(`${COLLAB}/workspaces/w1/updateInfo`, { name: 'Basemaps 2', maxItemSizeInMB: '256' })).toEqual({ success: true });
    expect(await getJson(`${COLLAB}/workspaces/w1`)).toMatchObject({ name: 'Basemaps 2', config: { maxItemSizeInMB: 256 } });
    expectRefused(await postJson(`${COLLAB}/workspaces/w1/updateInfo`, { description: 'x'.repeat(251) }), /too long/);
  });

  it('E10 role update', async () => {
    expect(await postJson('/portals/self/roles/cAt5Ad/update', { name: 'Readers', description: 'Reads' })).toEqual({ success: true });
    expect(await getJson('/portals/self/roles/cAt5Ad')).toMatchObject({ name: 'Readers', description: 'Reads' });
    expect(errorOf(await postJson('/portals/self/roles/cAt5Ad/update', { name: 'x' }, 'steward-token'))).toMatchObject({ code: 403, messageCode: 'GWM_0003' });
    // The pre-built Viewer is not updated.
    expect(errorOf(await postJson('/portals/self/roles/vW3rLv/update', { description: 'Reads' }))).toMatchObject({ code: 400, message: "The pre-built role 'Viewer' cannot be updated." });
    expect(await getJson('/portals/self/roles/vW3rLv')).toMatchObject({ name: 'Viewer', description: 'Views organization content' });
  });

  it('E11 remove participant', async () => {
    expect(await postJson(`${COLLAB}/participants/7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b/remove`)).toEqual({ success: true });
    // The host itself stays a participant (documented participants list shows the Host).
    expect(await getJson(`${COLLAB}/participants`)).toMatchObject({ total: 2, nextStart: -1 });
    expect(errorOf(await postJson(`${COLLAB}/participants/7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b/remove`))).toMatchObject({ code: 404 });
  });

  it('E12 remove resource', async () => {
    expect(await postJson('/portals/self/removeResource', { key: 'old-banner.png' })).toEqual({ success: true });
    expect(await getJson('/portals/self/resources', { num: '1' })).toMatchObject({ total: 2, num: 1, nextStart: 2 });
    expect(errorOf(await postJson('/portals/self/removeResource', { key: 'old-banner.png' }))).toMatchObject({ code: 404 });
  });

  it('E13 invite participant answers a file download', async () => {
    const response = await post(`${COLLAB}/inviteParticipant`, {
      guestPortalUrl: 'https://maps.guest.example.org/portal',
      collaborationWorkspacesParticipantConfigJSON: '[{"w1":"receive"}]',
      expiration: '24',
    });
    expect(response.headers.get('content-type')).toContain('application/octet-stream');
    expect(response.headers.get('content-disposition')).toContain('collaboration-maps.guest.example.org.invite');
    expect(JSON.parse(await response.text())).toMatchObject({ invitationRequest: { guestPortalUrl: 'https://maps.guest.example.org/portal' } });
    const invitations = (await getJson(`${COLLAB}/invitations`)).collaborationInvitations as { status: string }[];
    expect(invitations.map((invitation) => invitation.status)).toEqual(['host_created']);
    const error = await postJson(`${COLLAB}/inviteParticipant`, {
      guestPortalUrl: 'http://maps.guest.example.org/portal',
      collaborationWorkspacesParticipantConfigJSON: '[{"w1":"receive"}]',
    });
    expectRefused(error, /https:\/\/ URL/);
  });

  it('E14 remove portal group link', async () => {
    expect(await postJson(`${COLLAB}/workspaces/w1/removePortalGroupLink`)).toEqual({
      collaborationId: 'c0ffee',
      collaborationWorkspaceId: 'w1',
      success: true,
    });
    expect(errorOf(await postJson(`${COLLAB}/workspaces/w1/removePortalGroupLink`))).toMatchObject({ code: 404 });
  });

  it('reads answer POST as well as GET, and list endpoints page', async () => {
    expect(await postJson('/portals/self/users', { num: '4' })).toMatchObject({ total: 6, num: 4, nextStart: 5 });
    expect(await getJson('/community/groups', { q: 'orgid:0123456789ABCDEF' })).toMatchObject({ total: 2, nextStart: -1 });
    expect(await getJson('/search', { q: '*' })).toMatchObject({ total: 4 });
    expect(await getJson('/portals/self/roles')).toMatchObject({ total: 3 });
    expect(await getJson('/portals/self/collaborations')).toMatchObject({ total: 1, nextStart: -1, collaborations: [{ id: 'c0ffee' }] });
  });
});
