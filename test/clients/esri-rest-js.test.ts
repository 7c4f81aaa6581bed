/**
 * The vendor's public JavaScript clients, @esri/arcgis-rest-request and @esri/arcgis-rest-portal
 * (devDependencies), driving the bundled emulator over real HTTP on loopback, as a user of a
 * real portal would: signing in (a token, an API key, a user name and password, through the info
 * resource, an app's client credentials), the reads admin tools use, and every one of the
 * fourteen operations, each checked by its answer and by reading it back. The packages send the
 * token as the `token` field (query or form), GET for reads, POST forms for operations, and the
 * Referer `@esri/arcgis-rest-js` in Node.
 */
import {
  ApiKeyManager,
  ApplicationCredentialsManager,
  ArcGISAuthError,
  ArcGISIdentityManager,
  ArcGISRequestError,
  request,
  type IAuthenticationManager,
  type IRequestOptions,
} from '@esri/arcgis-rest-request';
import {
  SearchQueryBuilder,
  getGroup,
  getGroupCategorySchema,
  getGroupUsers,
  getItem,
  getPortalSettings,
  getSelf,
  getUser,
  searchCommunityUsers,
  searchGroups,
  searchItems,
  searchUsers,
  updateUser,
} from '@esri/arcgis-rest-portal';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type LoggedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { emulatorPerFile } from '../emulator/server/helpers.js';

const SAMPLE = fileURLToPath(new URL('../../examples/emulator/portal.yaml', import.meta.url));
const LEGACY = fileURLToPath(new URL('../../examples/emulator/legacy-portal.yaml', import.meta.url));
const ORG = '0123456789ABCDEF';
const PLANNING = 'b4850fb244bf4fbc8b918c96f267b2cf';
const FIELD_DATA = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617';
const COLLAB = 'c0ffee';
const FORMER_PARTNER = '7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const ROLE = 'r7HkQ2';

const emulator = emulatorPerFile(() => startEmulator({ data: SAMPLE }));

async function logged(): Promise<LoggedRequest[]> {
  const response = await fetch(`${emulator.controlUrl}/requests`);
  return ((await response.json()) as { requests: LoggedRequest[] }).requests;
}

/** A signed-in administrator, as most tests use it. */
function admin(): Promise<ArcGISIdentityManager> {
  return ArcGISIdentityManager.fromToken({ token: 'admin-token', portal: emulator.url });
}

/** POST an operation with the packages' own `request` (none of the fourteen has a helper of its own in them). */
function operation(path: string, authentication: IAuthenticationManager, params: IRequestOptions['params'] = {}): Promise<Record<string, unknown>> {
  return request(`${emulator.url}${path}`, { authentication, httpMethod: 'POST', params });
}

/** A GET read back with the packages' `request`. */
function read(path: string, authentication: IAuthenticationManager, params: IRequestOptions['params'] = {}): Promise<Record<string, unknown>> {
  return request(`${emulator.url}${path}`, { authentication, httpMethod: 'GET', params });
}

describe('@esri/arcgis-rest-request signs in against the emulator', () => {
  it('ArcGISIdentityManager.fromToken asks community/self who the token is', async () => {
    const manager = await admin();
    expect(manager.username).toBe('admin');
    expect((await manager.getUser()).fullName).toBe('Portal Administrator');
    const self = (await logged()).find((entry) => entry.path === '/community/self');
    expect(self).toMatchObject({ method: 'GET', params: { token: '***' }, referer: '@esri/arcgis-rest-js', response: { status: 200 } });
  });

  it('an API key (ApiKeyManager) reads with the key as its token', async () => {
    const key = ApiKeyManager.fromKey({ key: 'jsmith-token', portal: emulator.url });
    const self = await getSelf({ authentication: key, portal: emulator.url });
    expect(self).toMatchObject({ id: ORG, isPortal: true, user: { username: 'jsmith' } });
  });

  it('a user name and password (ArcGISIdentityManager.signIn): a referer-bound token from generateToken', async () => {
    const manager = await ArcGISIdentityManager.signIn({ username: 'jsmith', password: 'jsmith-password', portal: emulator.url });
    expect(manager.username).toBe('jsmith');
    expect(manager.tokenExpires.getTime()).toBeGreaterThan(Date.now());
    const paths = (await logged()).map((entry) => [entry.path, entry.params['client'] ?? '', entry.response?.status]);
    expect(paths).toEqual([
      ['/generateToken', 'referer', 200],
      ['/community/self', '', 200],
    ]);
  });

  it('through sharing/rest/info, which names the token service, when signing in to a `server`', async () => {
    const info = await request(`${emulator.url}/info`, { httpMethod: 'GET' });
    const origin = new URL(emulator.url).origin;
    expect(info).toEqual({ owningSystemUrl: `${origin}/portal`, authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${emulator.url}/generateToken` } });
    // What signIn does, with a `server` (its options type leaves `server` out): the first read asks for a token.
    const manager = new ArcGISIdentityManager({ username: 'admin', password: 'admin-password', portal: emulator.url, server: `${origin}/portal/sharing` });
    expect((await manager.getUser()).username).toBe('admin');
    expect((await logged()).map((entry) => entry.path)).toEqual(['/info', '/info', '/generateToken', '/community/self']);
  });

  it("an app's client credentials (ApplicationCredentialsManager): portals/self shows the app, community/self has no user", async () => {
    const app = ApplicationCredentialsManager.fromCredentials({ clientId: 'portalctl-viewer', clientSecret: 'viewer-secret', portal: emulator.url });
    const self = await getSelf({ authentication: app, portal: emulator.url });
    expect(self['appInfo']).toMatchObject({ appId: 'portalctl-viewer', privileges: ['portal:user:viewOrgItems'] });
    expect(self['user']).toBeUndefined();
    const noUser = await request(`${emulator.url}/community/self`, { authentication: app, httpMethod: 'GET' }).catch((error: unknown) => error);
    expect(noUser).toBeInstanceOf(ArcGISRequestError);
    expect(noUser).toMatchObject({ code: 'GWM_0003' });
  });

  it('refusals carry the documented codes the package keys on: 498 is an ArcGISAuthError, 403 GWM_0003 a request error', async () => {
    const invalid = await ArcGISIdentityManager.fromToken({ token: 'not-a-token', portal: emulator.url }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ArcGISAuthError);
    expect(invalid).toMatchObject({ code: 498 });
    const viewer = await ArcGISIdentityManager.fromToken({ token: 'viewer-token', portal: emulator.url });
    const forbidden = await operation('/portals/self/securityPolicy/update', viewer, { minLength: 12 }).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(ArcGISRequestError);
    expect(forbidden).not.toBeInstanceOf(ArcGISAuthError);
    expect(forbidden).toMatchObject({ code: 'GWM_0003' });
  });
});

describe('@esri/arcgis-rest-portal reads what admin tools read', () => {
  it('the organization (getSelf, portals/self/settings)', async () => {
    const authentication = await admin();
    const self = await getSelf({ authentication });
    expect(self).toMatchObject({ id: ORG, name: 'Riverside County GIS', isPortal: true, user: { username: 'admin', role: 'org_admin' } });
    expect(typeof self['currentVersion']).toBe('string');
    const settings = await getPortalSettings(undefined, { authentication });
    expect(settings).toMatchObject({ allowedRedirectUris: [], authorizedCrossOriginDomains: [], helperServices: {} });
    expect(settings.defaultExtent).toMatchObject({ spatialReference: { wkid: 102100 } });
  });

  it('items: searchItems with the documented query syntax, paging with nextPage, getItem', async () => {
    const authentication = await admin();
    const byOwner = await searchItems({ q: new SearchQueryBuilder().match(ORG).in('orgid').and().match('jsmith').in('owner'), authentication });
    expect(byOwner.results.map((item) => item.title).sort()).toEqual(['Culvert Inspections', 'Flood Zones']);
    const either = await searchItems({ q: 'accountid:0123456789ABCDEF AND (title:"Road Centerlines" OR title:parcels)', authentication });
    expect(either.results.map((item) => item.id).sort()).toEqual([PARCELS, '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e'].sort());
    const notDeprecated = await searchItems({ q: `orgid:${ORG} AND NOT contentstatus:deprecated AND access:org`, authentication });
    expect(notDeprecated.results.map((item) => item.id)).toEqual([PARCELS]);
    const firstPage = await searchItems({ q: `orgid:${ORG}`, num: 3, authentication });
    expect([firstPage.total, firstPage.results.length, firstPage.nextStart]).toEqual([4, 3, 4]);
    const secondPage = await firstPage.nextPage?.();
    expect(secondPage?.results.map((item) => item.title)).toEqual(['Culvert Inspections']);
    expect(await getItem(PARCELS, { authentication })).toMatchObject({ id: PARCELS, title: 'Parcels 2019', owner: 'publisher1', access: 'org' });
  });

  it('the same query syntax on groups; a field the emulator does not search is a clear 400 on both routes', async () => {
    const authentication = await admin();
    const owned = await searchGroups({ q: new SearchQueryBuilder().match(ORG).in('orgid').and().match('jsmith').in('owner'), authentication });
    expect(owned.results.map((group) => group.id)).toEqual([FIELD_DATA]);
    const titled = await searchGroups({ q: 'accountid:0123456789ABCDEF AND title:planning', authentication });
    expect(titled.results.map((group) => group.id)).toEqual([PLANNING]);
    for (const search of [searchItems, searchGroups]) {
      const refused = await search({ q: `orgid:${ORG} AND numviews:7`, authentication }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ArcGISRequestError);
      expect(refused).toMatchObject({ code: 400, message: "400: Unsupported search field 'numviews'." });
    }
  });

  it('groups: getGroup, getGroupUsers, getGroupCategorySchema', async () => {
    const authentication = await admin();
    expect(await getGroup(FIELD_DATA, { authentication })).toMatchObject({ id: FIELD_DATA, title: 'Public Works Field Data', owner: 'jsmith' });
    expect(await getGroupUsers(FIELD_DATA, { authentication })).toEqual({ owner: 'jsmith', admins: ['jsmith', 'admin'], users: [] });
    expect(await getGroupCategorySchema(PLANNING, { authentication })).toEqual({
      categorySchema: [{ title: 'Zoning', categories: [{ title: 'Residential' }, { title: 'Commercial' }] }],
    });
  });

  it('users: searchUsers (portals/self/users/search), searchCommunityUsers (community/users), getUser, updateUser', async () => {
    const authentication = await admin();
    // steward's custom role holds admin privileges, so the portal reports it as org_admin.
    const admins = await searchUsers({ q: 'role:org_admin', authentication });
    expect(admins.results.map((user) => user.username)).toEqual(['admin', 'steward']);
    const viewers = await searchUsers({ q: 'role:vW3rLv', sortField: 'username', sortOrder: 'desc', authentication });
    expect(viewers.results.map((user) => [user.username, user.level])).toEqual([
      ['viewer1', '1'],
      ['mlopez', '2'],
    ]);
    const found = await searchCommunityUsers({ q: 'fullname:"Jane Smith" OR username:steward', authentication });
    expect(found.results.map((user) => user.username).sort()).toEqual(['jsmith', 'steward']);
    expect(await getUser({ username: 'jsmith', authentication })).toMatchObject({ username: 'jsmith', fullName: 'Jane Smith', role: 'org_user', roleId: 'r7HkQ2', level: '2' });
    // A member updates their own profile; an administrator may too.
    const jsmith = await ArcGISIdentityManager.fromToken({ token: 'jsmith-token', portal: emulator.url });
    expect(await updateUser({ user: { username: 'jsmith', fullName: 'Jane Q. Smith', tags: ['field', 'roads'] }, authentication: jsmith })).toEqual({ success: true, username: 'jsmith' });
    expect(await getUser({ username: 'jsmith', authentication })).toMatchObject({ fullName: 'Jane Q. Smith', tags: ['field', 'roads'] });
    const someoneElse = await updateUser({ user: { username: 'mlopez', fullName: 'X' }, authentication: jsmith }).catch((error: unknown) => error);
    expect(someoneElse).toMatchObject({ code: 'GWM_0003' });
  });

  it('the organization member list needs an administrator (403 GWM_0003 for a viewer)', async () => {
    const viewer = await ArcGISIdentityManager.fromToken({ token: 'viewer-token', portal: emulator.url });
    expect(await searchUsers({ q: 'username:viewer1', authentication: viewer }).catch((error: unknown) => error)).toMatchObject({ code: 'GWM_0003' });
    expect(await read('/portals/self/users', viewer).catch((error: unknown) => error)).toMatchObject({ code: 'GWM_0003' });
    const members = await read('/portals/self/users', await admin(), { num: 100 });
    expect(members).toMatchObject({ total: 6, nextStart: -1 });
  });
});

describe('the fourteen operations through @esri/arcgis-rest-request, each read back', () => {
  it('E1 assign a group category schema', async () => {
    const authentication = await admin();
    const trees = [{ title: 'Districts', categories: [{ title: 'North' }, { title: 'South' }] }];
    expect(await operation(`/community/groups/${FIELD_DATA}/assignCategorySchema`, authentication, { categorySchema: { categorySchema: trees } })).toEqual({ success: true });
    expect(await getGroupCategorySchema(FIELD_DATA, { authentication })).toEqual({ categorySchema: trees });
  });

  it('E2 assign the organization category schema', async () => {
    const authentication = await admin();
    const trees = [{ title: 'Themes', description: 'Subject areas', categories: [{ title: 'Utilities' }] }];
    expect(await operation('/portals/self/assignCategorySchema', authentication, { categorySchema: { categorySchema: trees } })).toEqual({ success: true });
    expect(await read('/portals/self/categorySchema', authentication)).toEqual({ categorySchema: trees });
  });

  it('E3 set content status', async () => {
    const authentication = await admin();
    expect(await operation(`/content/items/${PARCELS}/setContentStatus`, authentication, { status: 'org_authoritative' })).toEqual({ success: true, itemId: PARCELS });
    expect(await getItem(PARCELS, { authentication })).toMatchObject({ contentStatus: 'org_authoritative', protected: true });
    expect(await operation(`/content/items/${PARCELS}/setContentStatus`, authentication, { status: '', clearEmptyFields: true })).toEqual({ success: true, itemId: PARCELS });
    expect(await getItem(PARCELS, { authentication })).toMatchObject({ contentStatus: '' });
  });

  describe('on a self-managed 10.6.1 portal', () => {
    let legacy: RunningEmulator;
    beforeAll(async () => {
      legacy = await startEmulator({ data: LEGACY });
    });
    afterAll(async () => {
      await legacy.close();
    });

    it('E4 update a user level, after checking with searches that the user owns nothing', async () => {
      const authentication = await ArcGISIdentityManager.fromToken({ token: 'admin-token', portal: legacy.url });
      const owned = await Promise.all([searchItems({ q: 'owner:fieldtech', authentication }), searchGroups({ q: 'owner:fieldtech', authentication })]);
      expect(owned.map((result) => result.total)).toEqual([0, 0]);
      const answer = await request(`${legacy.url}/portals/self/updateUserLevel`, { authentication, params: { user: 'fieldtech', level: 1 } });
      expect(answer).toEqual({ success: true });
      expect(await getUser({ username: 'fieldtech', authentication })).toMatchObject({ level: '1' });
    });
  });

  it('E5 delete the member category schema', async () => {
    const authentication = await admin();
    expect(await operation('/portals/self/deleteMemberCategorySchema', authentication)).toEqual({ success: true });
    expect(await read('/portals/self/memberCategorySchema', authentication)).toEqual({});
    expect(await getSelf({ authentication })).toMatchObject({ hasMemberCategorySchema: false });
  });

  it('E6 update the SAML federation', async () => {
    const authentication = await admin();
    const answer = await operation('/portals/self/idp/federation/J55ajJJ7MsY1QoQs/update', authentication, { name: 'Campus SSO', signUpMode: 'Automatic', roleId: 'r7HkQ2', groups: [PLANNING] });
    expect(answer).toEqual({ success: true, federationId: 'J55ajJJ7MsY1QoQs' });
    expect(await read('/portals/self/idp/federation', authentication)).toMatchObject({ name: 'Campus SSO', signUpMode: 'Automatic', roleId: 'r7HkQ2', groups: [PLANNING] });
  });

  it('E7 enable a task', async () => {
    const authentication = await admin();
    expect(await operation('/community/users/jsmith/tasks/a1b2c3/enable', authentication)).toEqual({ success: true, taskId: 'a1b2c3' });
    expect(await read('/community/users/jsmith/tasks/a1b2c3', authentication)).toMatchObject({ id: 'a1b2c3', active: true });
  });

  it('E8 update the password policy (an empty value clears a rule)', async () => {
    const authentication = await admin();
    expect(await operation('/portals/self/securityPolicy/update', authentication, { minLength: 12, historySize: 5, minUpper: '' })).toEqual({ success: true });
    const { passwordPolicy } = await read('/portals/self/securityPolicy', authentication);
    expect(passwordPolicy).toMatchObject({ type: 'custom', minLength: 12, historySize: 5, minDigit: 1 });
    expect(passwordPolicy).not.toHaveProperty('minUpper');
  });

  it('E9 update a collaboration workspace', async () => {
    const authentication = await admin();
    const path = `/portals/self/collaborations/${COLLAB}/workspaces/w1`;
    expect(await operation(`${path}/updateInfo`, authentication, { name: 'County basemaps', maxItemSizeInMB: 1024, copyByRefIfCopyFail: true })).toEqual({ success: true });
    expect(await read(path, authentication)).toMatchObject({ name: 'County basemaps', config: { maxItemSizeInMB: 1024, copyByRefIfCopyFail: true } });
  });

  it('E10 update a role', async () => {
    const authentication = await admin();
    expect(await operation('/portals/self/roles/r7HkQ2/update', authentication, { description: 'Edits and inspects field data' })).toEqual({ success: true });
    expect(await read('/portals/self/roles/r7HkQ2', authentication)).toMatchObject({ id: 'r7HkQ2', name: 'Field Analyst', description: 'Edits and inspects field data' });
  });

  it('E11 remove a collaboration participant', async () => {
    const authentication = await admin();
    const path = `/portals/self/collaborations/${COLLAB}/participants`;
    expect(await operation(`${path}/${FORMER_PARTNER}/remove`, authentication)).toEqual({ success: true });
    const { participants } = await read(path, authentication, { num: 100 });
    expect(JSON.stringify(participants)).not.toContain(FORMER_PARTNER);
  });

  it('E12 remove a portal resource, the operation named in lower case as real portals accept it', async () => {
    const authentication = await admin();
    expect(await operation('/portals/self/removeresource', authentication, { key: 'old-banner.png' })).toEqual({ success: true });
    const { resources } = await read('/portals/self/resources', authentication, { num: 100 });
    expect(resources).toEqual([
      { key: 'home-background.jpg', size: 912344, created: 1700000000000 },
      { key: 'legacy-logo.png', size: 10242, created: 1650000000000 },
    ]);
  });

  it('E13 invite a participant: the answer is the invitation file', async () => {
    const authentication = await admin();
    const path = `/portals/self/collaborations/${COLLAB}`;
    const guestPortalUrl = 'https://maps.guest.example.org/portal';
    const invitation = await operation(`${path}/inviteParticipant`, authentication, { guestPortalUrl, collaborationWorkspacesParticipantConfigJSON: [{ w1: 'send' }], expiration: 48 });
    expect(invitation).toMatchObject({ invitationRequest: { guestPortalUrl } });
    const { collaborationInvitations } = await read(`${path}/invitations`, authentication);
    expect(collaborationInvitations).toEqual([expect.objectContaining({ guestPortalUrl, status: 'host_created' })]);
  });

  it('E14 remove the portal group link of a workspace', async () => {
    const authentication = await admin();
    const path = `/portals/self/collaborations/${COLLAB}/workspaces/w1`;
    expect(await operation(`${path}/removePortalGroupLink`, authentication)).toEqual({ collaborationId: COLLAB, collaborationWorkspaceId: 'w1', success: true });
    const workspace = await read(path, authentication);
    expect(JSON.stringify(workspace['participantGroupLinks'])).not.toContain(PLANNING);
  });
});

/** A file part of another FormData implementation than Node's. */
interface FilePartLike {
  name: string;
  type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * The FormData the packages build in Node (formdata-node, through @esri/arcgis-rest-form-data
 * 4.10) when this Node's fetch would not send it as multipart: Node 20 and 22 do, Node 24's fetch
 * sends it as the text "[object FormData]" (text/plain) to any server, so that the packages
 * cannot upload a file there at all.
 */
function unsentForm(body: RequestInit['body']): body is RequestInit['body'] & Iterable<[string, string | FilePartLike]> {
  if (typeof body !== 'object' || body === null || body instanceof FormData || Object.prototype.toString.call(body) !== '[object FormData]') return false;
  const type = new Request('http://localhost/', { method: 'POST', body }).headers.get('content-type') ?? '';
  return !type.startsWith('multipart/form-data');
}

const nodeFetch = globalThis.fetch;

/** fetch, with such a form handed over as Node's own FormData: the same parts in the same order, so the bytes Node 20 and 22 send. */
async function fetchSendingPackagesForm(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const body = init?.body;
  if (!unsentForm(body)) return nodeFetch(input, init);
  const form = new FormData();
  for (const [name, value] of body) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([await value.arrayBuffer()], { type: value.type }), value.name);
  }
  return nodeFetch(input, { ...init, body: form });
}

describe('file uploads: the packages send multipart/form-data whenever a parameter is a file', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchSendingPackagesForm);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  // A PNG signature and bytes that are not UTF-8: what a real upload carries, kept byte for byte.
  const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80, 0x41, 0x42]);

  it('addResource (the documented portal resource upload) with a Blob, listed and read back byte for byte', async () => {
    const authentication = await admin();
    // No helper of @esri/arcgis-rest-portal adds a portal resource (addItemResource is an item's), so its `request`, as for the fourteen.
    const answer = await operation('/portals/self/addResource', authentication, { key: 'logo.png', file: new Blob([LOGO], { type: 'image/png' }), access: 'org' });
    expect(answer).toEqual({ success: true });
    const upload = (await logged()).find((entry) => entry.path === '/portals/self/addResource');
    expect(upload?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    // The token travelled as a form part: the log shows neither it nor a way to find it.
    expect(upload?.params).toMatchObject({ key: 'logo.png', token: '***' });
    expect(upload?.rawBody).not.toContain('admin-token');
    expect(upload?.response).toEqual({ status: 200 });

    const { resources } = await read('/portals/self/resources', authentication, { num: 100 });
    expect(resources).toContainEqual({ key: 'logo.png', size: LOGO.length, created: expect.any(Number) as unknown });
    const file = await fetch(`${emulator.url}/portals/self/resources/logo.png`, { headers: { 'X-Esri-Authorization': 'Bearer admin-token' } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(LOGO);
  });

  it('a text resource goes as a form (no file, no multipart), and E12 removes what was uploaded', async () => {
    const authentication = await admin();
    expect(await operation('/portals/self/addResource', authentication, { key: 'banner.json', text: '{"text":"Welcome"}' })).toEqual({ success: true });
    expect((await logged()).find((entry) => entry.path === '/portals/self/addResource')?.contentType).toBe('application/x-www-form-urlencoded');
    const file = await fetch(`${emulator.url}/portals/self/resources/banner.json?token=admin-token`);
    expect(await file.text()).toBe('{"text":"Welcome"}');
    expect(await operation('/portals/self/removeResource', authentication, { key: 'banner.json' })).toEqual({ success: true });
    const { resources } = await read('/portals/self/resources', authentication, { num: 100 });
    expect(resources).not.toContainEqual(expect.objectContaining({ key: 'banner.json' }));
  });

  it('any operation takes its fields as multipart: E10 with its description sent as a file', async () => {
    const authentication = await admin();
    const description = 'Edits field data\u00a0– written in a file';
    const answer = await operation(`/portals/self/roles/${ROLE}/update`, authentication, { name: 'Field Editor', description: new Blob([description], { type: 'text/plain' }) });
    expect(answer).toEqual({ success: true });
    expect((await logged()).find((entry) => entry.path === `/portals/self/roles/${ROLE}/update`)?.contentType).toMatch(/^multipart\/form-data/);
    expect(await read(`/portals/self/roles/${ROLE}`, authentication)).toMatchObject({ name: 'Field Editor', description });
  });
});
