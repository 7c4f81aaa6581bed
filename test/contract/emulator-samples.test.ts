/**
 * The emulator speaks the documented shapes: for every wire sample, the same request sent to a
 * running emulator over real HTTP with a plain fetch (an external client, not our API client)
 * answers with the sample's structure: the same keys at every level and the same JSON types
 * (values may differ; an array's structure is the merged structure of its elements).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { SAMPLES_DIR } from '../support/wire-samples.js';

/** The project's copy of shared/spec/wire-samples (the ground truth the CEO keeps beside the repository). */
const samplesDir = SAMPLES_DIR;
/** shared/ beside the checkout, as CI has it: the copy must not drift from it. */
const SHARED_SAMPLES = fileURLToPath(new URL('../../../shared/spec/wire-samples/', import.meta.url));

describe('the wire samples the tests use', () => {
  it.runIf(existsSync(SHARED_SAMPLES))('are the shared ground truth, file for file', () => {
    const names = readdirSync(SHARED_SAMPLES).sort();
    expect(readdirSync(samplesDir).sort()).toEqual(names);
    for (const name of names) expect(readFileSync(join(samplesDir, name), 'utf8'), name).toBe(readFileSync(join(SHARED_SAMPLES, name), 'utf8'));
  });
});

interface Sample {
  endpoint: string;
  documented: Record<string, unknown>;
}

function sample(name: string): Sample {
  return JSON.parse(readFileSync(join(samplesDir, name), 'utf8')) as Sample;
}

type Shape = string | { object: Record<string, Shape> } | { array: Shape | null };

/** The structure of a JSON value: its type, an object's keys, an array's merged element structure. */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return { array: value.reduce<Shape | null>((merged, element) => merge(merged, shapeOf(element)), null) };
  if (typeof value === 'object') {
    const object: Record<string, Shape> = {};
    for (const key of Object.keys(value).sort()) object[key] = shapeOf((value as Record<string, unknown>)[key]);
    return { object };
  }
  return typeof value;
}

function merge(a: Shape | null, b: Shape): Shape {
  if (a === null) return b;
  if (typeof a === 'object' && typeof b === 'object' && 'object' in a && 'object' in b) {
    const object: Record<string, Shape> = { ...a.object };
    for (const [key, shape] of Object.entries(b.object)) object[key] = key in object ? merge(object[key] ?? null, shape) : shape;
    return { object: Object.fromEntries(Object.entries(object).sort(([x], [y]) => x.localeCompare(y))) };
  }
  if (typeof a === 'object' && typeof b === 'object' && 'array' in a && 'array' in b) {
    return { array: b.array === null ? a.array : merge(a.array, b.array) };
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  return `${JSON.stringify(a)}|${JSON.stringify(b)}`;
}

/** Differences between the answer's structure and the sample's, as readable paths. */
function differences(expected: Shape, actual: Shape, path = '$'): string[] {
  if (typeof expected === 'string' || typeof actual === 'string') {
    return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if ('array' in expected) {
    if (!('array' in actual)) return [`${path}: expected an array`];
    // An empty documented array says nothing about its elements.
    if (expected.array === null) return [];
    if (actual.array === null) return [`${path}: the answer's array is empty, its element structure cannot be checked`];
    return differences(expected.array, actual.array, `${path}[]`);
  }
  if (!('object' in actual)) return [`${path}: expected an object`];
  const out: string[] = [];
  for (const key of Object.keys(expected.object)) {
    if (!(key in actual.object)) out.push(`${path}.${key}: missing`);
    else out.push(...differences(expected.object[key] ?? 'undefined', actual.object[key] ?? 'undefined', `${path}.${key}`));
  }
  for (const key of Object.keys(actual.object)) if (!(key in expected.object)) out.push(`${path}.${key}: not documented`);
  return out;
}

function expectSameStructure(actual: unknown, documented: unknown): void {
  expect(differences(shapeOf(documented), shapeOf(actual))).toEqual([]);
}

const ORG = 'AbCdEfGh01234567';
const SELF_GUID = '0000aaaa-1111-2222-3333-444455556666';
const GUEST_GUID = '9999bbbb-1111-2222-3333-444455556666';
const schema = [
  {
    title: 'Categories',
    description: 'Root',
    categories: [
      { title: 'Basemaps', description: 'B', categories: [{ title: 'Partner' }, { title: 'Vendor', description: 'V', categories: [{ title: 'Raster' }] }] },
    ],
  },
];

/** An organization that has something of everything the samples show. */
const state = {
  organization: {
    id: ORG,
    name: 'Example Org',
    edition: 'hosted',
    hostname: 'www.example.com',
    collaborationPortalId: SELF_GUID,
    categorySchema: schema,
    memberCategorySchema: [{ title: 'Location', categories: [{ title: 'Site A' }] }],
    securityPolicy: { minLength: 8, minLetter: 1, minDigit: 1 },
    resources: [{ key: 'thumbnail.png', size: 4096, created: 1700000000000 }],
  },
  roles: [{ id: 'c0ffeeRole000001', name: 'customViewer', description: 'Custom viewer', privileges: ['portal:user:viewOrgItems'] }],
  users: [
    { username: 'admin1', fullName: 'Admin One', role: 'org_admin', password: 'admin-password', tasks: [{ id: 'task1', title: 'Example task', itemId: 'c0ffee07000000000000000000000002', active: false }] },
    { username: 'member1', fullName: 'Member One', role: 'org_user', tags: ['example'] },
  ],
  tokens: [{ token: 'admin-token', username: 'admin1' }],
  oauthClients: [
    {
      clientId: 'exampleappid0001',
      clientSecret: 'app-secret',
      username: 'admin1',
      title: 'Example app',
      privileges: ['portal:user:viewOrgItems'],
      authorizationCodes: [{ code: 'signed-in-code', username: 'member1' }],
    },
  ],
  groups: [{ id: 'c0ffee03000000000000000000000001', title: 'Example group', owner: 'admin1', members: ['member1'], tags: ['example'], categorySchema: [{ title: 'Region', categories: [{ title: 'North', categories: [{ title: 'Coast', categories: [{ title: 'Bay' }] }] }] }] }],
  items: [
    { id: 'c0ffee07000000000000000000000001', title: 'Example item', owner: 'member1', access: 'org', contentStatus: 'org_authoritative', tags: ['example'], categories: ['/Categories/Basemaps'] },
  ],
  federation: {
    id: 'FedId0123456789A',
    name: 'Example SAML federation',
    discoveryServiceUrl: 'https://discovery.example.com',
    metadataServiceUrl: 'https://metadata.example.com',
    certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    entityId: 'org.example.com',
    roleId: 'org_user',
    userLicenseType: 'creatorUT',
    groups: ['c0ffee03000000000000000000000001'],
    signUpMode: 'Automatic',
  },
  collaborations: [
    {
      id: 'c0ffee01000000000000000000000001',
      name: 'Example collaboration',
      description: 'Example description',
      workspaces: [
        {
          id: 'ws1',
          name: 'Example workspace',
          description: 'Example workspace description',
          config: { maxItemSizeInMB: 512, maxReplicationPackageSizeInMB: 1024, copyByRefIfCopyFail: true },
          participantGroupLinks: [{ portalId: SELF_GUID, portalGroupId: 'c0ffee03000000000000000000000001', accessMode: 'sendAndReceive' }],
          participantsWithoutGroupLinks: [],
        },
      ],
      participants: [
        { portalId: SELF_GUID, url: 'https://www.example.com/portal', name: 'Example portal', role: 'Host' },
        { portalId: GUEST_GUID, url: 'https://guest.example.com/portal', name: 'Guest portal', role: 'Guest' },
      ],
      invitations: [{ id: 'inv1', guestPortalUrl: 'https://guest.example.com:7443/arcgis', workspaces: { ws1: 'send' }, expiration: 4102444800000 }],
    },
  ],
};

let emulator: RunningEmulator;
const COLLAB = '/portals/self/collaborations/c0ffee01000000000000000000000001';

beforeAll(async () => {
  emulator = await startEmulator({ data: state as never });
});
afterAll(async () => {
  await emulator.close();
});

const bearer = { 'X-Esri-Authorization': 'Bearer admin-token' };

async function get(path: string, headers: Record<string, string> = bearer): Promise<Record<string, unknown>> {
  const separator = path.includes('?') ? '&' : '?';
  const response = await fetch(`${emulator.url}${path}${separator}f=json`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = bearer): Promise<Response> {
  return fetch(`${emulator.url}${path}`, { method: 'POST', headers, body: new URLSearchParams({ f: 'json', ...form }) });
}

async function postJson(path: string, form: Record<string, string> = {}, headers: Record<string, string> = bearer): Promise<Record<string, unknown>> {
  const response = await post(path, form, headers);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function appToken(): Promise<string> {
  const answer = await postJson('/oauth2/token', { grant_type: 'client_credentials', client_id: 'exampleappid0001', client_secret: 'app-secret' }, {});
  return String(answer['access_token']);
}

/** Reads: sample file -> the request that the sample documents. */
const reads: [string, string][] = [
  ['portals-self-categorySchema.json', '/portals/self/categorySchema'],
  ['community-groups-categorySchema.json', '/community/groups/c0ffee03000000000000000000000001/categorySchema'],
  ['content-items-id.json', '/content/items/c0ffee07000000000000000000000001'],
  ['community-users-id.json', '/community/users/member1'],
  ['portals-self-memberCategorySchema.json', '/portals/self/memberCategorySchema'],
  ['community-users-tasks.json', '/community/users/admin1/tasks'],
  ['community-users-tasks-id.json', '/community/users/admin1/tasks/task1'],
  ['portals-self-securityPolicy.json', '/portals/self/securityPolicy'],
  ['portals-self-collaborations.json', '/portals/self/collaborations'],
  ['portals-self-collaborations-id.json', COLLAB],
  ['portals-self-collaborations-workspaces.json', `${COLLAB}/workspaces`],
  ['portals-self-collaborations-workspaces-id.json', `${COLLAB}/workspaces/ws1`],
  ['portals-self-collaborations-participants.json', `${COLLAB}/participants`],
  ['portals-self-collaborations-participants-id.json', `${COLLAB}/participants/${SELF_GUID}`],
  ['portals-self-collaborations-invitations.json', `${COLLAB}/invitations`],
  ['portals-self-collaborations-invitations-id.json', `${COLLAB}/invitations/inv1`],
  ['portals-self-roles.json', '/portals/self/roles?returnPrivileges=true'],
  ['portals-self-roles-id.json', '/portals/self/roles/c0ffeeRole000001'],
  ['portals-self-resources.json', '/portals/self/resources'],
  ['portals-self-users.json', '/portals/self/users'],
  ['community-groups-search.json', `/community/groups?q=orgid:${ORG}`],
  ['search.json', `/search?q=orgid:${ORG}&num=100`],
];

describe('the emulator answers every read with the documented structure', () => {
  it('covers every sample file', () => {
    const covered = new Set([...reads.map(([file]) => file), ...OTHER_SAMPLES]);
    expect(readdirSync(samplesDir ?? '').filter((file) => file.endsWith('.json')).sort()).toEqual([...covered].sort());
  });

  for (const [file, path] of reads) {
    it(`${file}: GET ${path}`, async () => {
      expectSameStructure(await get(path), sample(file).documented);
    });
  }

  it('portals-self.json: `user` for a signed-in user, `appInfo` for an app token', async () => {
    const { appInfo, user, ...common } = sample('portals-self.json').documented;
    expectSameStructure(await get('/portals/self'), { ...common, user });
    const asApp = await get('/portals/self', { 'X-Esri-Authorization': `Bearer ${await appToken()}` });
    expectSameStructure(asApp, { ...common, appInfo });
    expect(asApp['currentVersion']).toBe('2024.1');
    expect(asApp['isPortal']).toBe(false);
  });

  it('portals-self-collaborations-invitations.json: invitationString holds the invitation content', async () => {
    const answer = await get(`${COLLAB}/invitations`);
    const documented = sample('portals-self-collaborations-invitations.json').documented;
    const parse = (value: Record<string, unknown>): unknown => JSON.parse(String((value['collaborationInvitations'] as Record<string, unknown>[])[0]?.['invitationString']));
    expectSameStructure(parse(answer), parse(documented));
  });

  it('portals-self-idp-federation.json: GET and the update answer', async () => {
    const { update_response: updateResponse, ...documented } = sample('portals-self-idp-federation.json').documented;
    expectSameStructure(await get('/portals/self/idp/federation'), documented);
    expectSameStructure(await postJson('/portals/self/idp/federation/FedId0123456789A/update', { name: 'Renamed' }), updateResponse);
  });
});

const OTHER_SAMPLES = [
  'portals-self.json',
  'portals-self-idp-federation.json',
  'auth-generateToken.json',
  'auth-oauth2-token.json',
  'errors.json',
  'write-operations.json',
  'portals-self-collaborations-inviteParticipant.json',
];

describe('tokens and errors', () => {
  it('auth-generateToken.json', async () => {
    const answer = await postJson('/generateToken', { username: 'admin1', password: 'admin-password', client: 'requestip', expiration: '60' }, {});
    expectSameStructure(answer, sample('auth-generateToken.json').documented);
    expect(answer['expires']).toBeGreaterThan(1e12); // epoch milliseconds
  });

  it('auth-oauth2-token.json: the authorization_code answer has the documented structure (expires_in in seconds)', async () => {
    const documented = sample('auth-oauth2-token.json').documented;
    const answer = await postJson('/oauth2/token', { grant_type: 'authorization_code', client_id: 'exampleappid0001', code: 'signed-in-code', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' }, {});
    expectSameStructure(answer, documented);
    expect(answer).toMatchObject({ username: 'member1', expires_in: 7200 });
    // The code works once; the refresh token is no access token but buys a new one.
    expect(await postJson('/oauth2/token', { grant_type: 'authorization_code', client_id: 'exampleappid0001', code: 'signed-in-code' }, {})).toMatchObject({ error: { error: 'invalid_grant' } });
    expect(await get('/portals/self/roles', { 'X-Esri-Authorization': `Bearer ${String(answer['refresh_token'])}` })).toMatchObject({ error: { code: 498 } });
    const refreshed = await postJson('/oauth2/token', { grant_type: 'refresh_token', client_id: 'exampleappid0001', refresh_token: String(answer['refresh_token']) }, {});
    const { refresh_token: _refresh, refresh_token_expires_in: _refreshExpires, ...userTokenAnswer } = documented;
    expectSameStructure(refreshed, userTokenAnswer);
    expect(await get('/portals/self', { 'X-Esri-Authorization': `Bearer ${String(refreshed['access_token'])}` })).toMatchObject({ user: { username: 'member1' } });
    // The request log never shows the code or the refresh token.
    const log = await (await fetch(`${emulator.controlUrl}/requests`)).text();
    expect(log).toContain('/oauth2/token');
    expect(log).toContain('"code":"***"');
    expect(log).not.toContain('signed-in-code');
    expect(log).not.toContain(String(answer['refresh_token']));
  });

  it('auth-oauth2-token.json: a client-credentials answer is {access_token, expires_in} (seconds)', async () => {
    // The sample's notes: username and ssl come with user tokens, refresh_token(+_expires_in) only
    // with the authorization_code grants; client credentials answer essentially the first two.
    const { access_token: accessToken, expires_in: expiresIn } = sample('auth-oauth2-token.json').documented;
    const answer = await postJson('/oauth2/token', { grant_type: 'client_credentials', client_id: 'exampleappid0001', client_secret: 'app-secret' }, {});
    expectSameStructure(answer, { access_token: accessToken, expires_in: expiresIn });
    expect(answer['expires_in']).toBe(7200);
  });

  it('accepts the token as a form field, in X-Esri-Authorization and in Authorization, and nothing else', async () => {
    expect(await get('/portals/self/roles', {})).toMatchObject({ error: { code: 499 } });
    expect(await get('/portals/self/roles', { Authorization: 'Bearer admin-token' })).toHaveProperty('roles');
    expect(await postJson('/portals/self/roles', { token: 'admin-token' }, {})).toHaveProperty('roles');
    expect(await get('/portals/self/roles', { 'X-Esri-Authorization': 'admin-token' })).toMatchObject({ error: { code: 499 } });
    expect(await get('/portals/self/roles', { Authorization: 'Basic YWRtaW4xOmFkbWluLXBhc3N3b3Jk' })).toMatchObject({ error: { code: 499 } });
    expect(await get('/portals/self/roles', { Cookie: 'esri_auth=admin-token' })).toMatchObject({ error: { code: 499 } });
  });

  it('errors.json: every documented error envelope', async () => {
    const errors = sample('errors.json').documented as Record<string, Record<string, unknown>>;
    expectSameStructure(await get('/portals/self/roles', { 'X-Esri-Authorization': 'Bearer nope' }), errors['invalid_token_498']);
    expectSameStructure(await get('/portals/self/roles', {}), errors['token_required_499']);
    const asApp = { 'X-Esri-Authorization': `Bearer ${await appToken()}` };
    const forbidden = await postJson('/portals/self/securityPolicy/update', { minLength: '12' }, asApp);
    expect(forbidden).toMatchObject({ error: { code: 403, messageCode: 'GWM_0003' } });
    expectSameStructure(forbidden, errors['forbidden_403']);
    expectSameStructure(await get('/content/items/doesnotexist'), errors['not_found_400_item']);
    expectSameStructure(await get('/portals/self/roles/doesnotexist'), errors['not_found_404']);
    // No messageCode is documented for a user that does not exist: code 400 in the same envelope, inventing none.
    const noUser = await get('/community/users/doesnotexist');
    expect(noUser).toMatchObject({ error: { code: 400 } });
    expect(noUser).not.toHaveProperty('error.messageCode');
    expectSameStructure(noUser, errors['generateToken_failure']);
    expectSameStructure(await postJson('/portals/self/assignCategorySchema', { categorySchema: '{"categorySchema":[]}' }), errors['bad_request_400']);
    expectSameStructure(await postJson('/generateToken', { username: 'admin1', password: 'wrong' }, {}), errors['generateToken_failure']);
    expect(await get('/search')).toMatchObject({ error: { code: 400 } });
    expect(await get('/community/groups')).toMatchObject({ error: { code: 400, message: "'q' parameter is required" } });
  });
});

describe('write-operations.json and the file downloads', () => {
  const writes = (): Record<string, unknown> => sample('write-operations.json').documented;
  const documentedFor = (prefix: string): unknown => {
    const entry = Object.entries(writes()).find(([key]) => key.startsWith(prefix));
    if (!entry) throw new Error(`no documented answer for ${prefix}`);
    return entry[1];
  };
  const tree = '{"categorySchema":[{"title":"Themes"}]}';
  const cases: [string, string, Record<string, string>][] = [
    ['E1 ', '/community/groups/c0ffee03000000000000000000000001/assignCategorySchema', { categorySchema: tree }],
    ['E2 ', '/portals/self/assignCategorySchema', { categorySchema: tree }],
    ['E3 ', '/content/items/c0ffee07000000000000000000000001/setContentStatus', { status: 'deprecated' }],
    ['E6 ', '/portals/self/idp/federation/FedId0123456789A/update', { signUpMode: 'Invitation' }],
    ['E7 ', '/community/users/admin1/tasks/task1/enable', {}],
    ['E8 ', '/portals/self/securityPolicy/update', { minLength: '10' }],
    ['E9 ', `${COLLAB}/workspaces/ws1/updateInfo`, { description: 'Changed' }],
    ['E10 ', '/portals/self/roles/c0ffeeRole000001/update', { description: 'Changed' }],
    ['related updateParticipantAccessModes', `${COLLAB}/participants/${GUEST_GUID}/updateParticipantAccessModes`, { collaborationWorkspacesAccessJSON: '[{"ws1":"receive"}]' }],
    ['related (not in E1-E14) addWorkspace', `${COLLAB}/addWorkspace`, { name: 'Second workspace', description: 'More' }],
    ['E14 ', `${COLLAB}/workspaces/ws1/removePortalGroupLink`, {}],
    ['E11 ', `${COLLAB}/participants/${GUEST_GUID}/remove`, {}],
    ['E12 ', '/portals/self/removeResource', { key: 'thumbnail.png' }],
    ['E5 ', '/portals/self/deleteMemberCategorySchema', {}],
  ];
  for (const [prefix, path, form] of cases) {
    it(`${prefix.trim()}: POST ${path}`, async () => {
      expectSameStructure(await postJson(path, form), documentedFor(prefix));
    });
  }

  it('E4 updateUserLevel answers {success} on a self-managed 10.6.1 portal', async () => {
    const old = await startEmulator({ data: { ...state, organization: { ...state.organization, edition: 'self-managed', version: '10.6.1', apiVersion: '6.4' } } as never });
    try {
      const response = await fetch(`${old.url}/portals/self/updateUserLevel`, { method: 'POST', headers: bearer, body: new URLSearchParams({ f: 'json', user: 'member1', level: '2' }) });
      expectSameStructure(await response.json(), documentedFor('E4 '));
    } finally {
      await old.close();
    }
  });

  it('E13 inviteParticipant and invitations/{id}/refresh answer a file download named by Content-Disposition', async () => {
    const documented = sample('portals-self-collaborations-inviteParticipant.json').documented as Record<string, Record<string, unknown>>;
    const response = await post(`${COLLAB}/inviteParticipant`, {
      guestPortalUrl: 'https://guest.example.com/portal',
      collaborationWorkspacesParticipantConfigJSON: '[{"ws1":"send"}]',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(documented['http_headers']?.['Content-Disposition']);
    const content = JSON.parse(await response.text()) as unknown;
    expectSameStructure(content, documented['body_file_content_probable']);
    const invitations = (await get(`${COLLAB}/invitations`))['collaborationInvitations'] as Record<string, unknown>[];
    const created = invitations.find((invitation) => invitation['guestPortalUrl'] === 'https://guest.example.com/portal');
    expect(created).toMatchObject({ status: 'host_created', guestPortalId: 'unknown', config: { invitationRequestFilename: 'collaboration-guest.example.com.invite' } });
    expect(JSON.parse(String(created?.['invitationString']))).toEqual(content);
    const refreshed = await post(`${COLLAB}/invitations/${String(created?.['id'])}/refresh`, {});
    expect(refreshed.headers.get('content-disposition')).toBe('attachment; filename=collaboration-guest.example.com.invite');
    expect(JSON.parse(await refreshed.text())).toEqual(content);
  });
});
