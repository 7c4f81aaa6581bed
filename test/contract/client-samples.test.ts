/**
 * One contract test per documented wire sample: the sample's `documented` body is served over
 * real HTTP (test/support/wire-samples.ts) and read through our API client and the kinds'
 * parsing; each test states the live value that must come out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  createApiClient,
  createLiveReader,
  isMissingPrivilege,
  isNotFound,
  isTokenError,
  type ApiClient,
  type Credentials,
} from '../../src/api/index.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import type { LiveReader } from '../../src/core/request.js';
import { NotOnPortalError, type DesiredObject, type Kind } from '../../src/kinds/toolkit/contract.js';
import { kinds } from '../../src/kinds/index.js';
import { callerFromSelf } from '../../src/engine/read/authority.js';
import {
  INVITATIONS_FIELD,
  invitationAccess,
  invitationGuestUrl,
  ownCollaborationPortalId,
  participantAccess,
} from '../../src/kinds/toolkit/collaboration-live.js';
import { collaborationsSeen } from '../../src/kinds/toolkit/discover.js';
import { factsFromSelf } from '../../src/engine/plan/prepare.js';
import { IDS, documented, sampleFiles, startReplayServer, type ReplayServer } from '../support/wire-samples.js';

let server: ReplayServer;
let client: ApiClient;
let reader: LiveReader;

const C = `/portals/self/collaborations/${IDS.collaboration}`;
const kind = (name: string): Kind => {
  const found = kinds.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no kind ${name}`);
  return found;
};
const declared = (kindName: string, address: string, ids: Record<string, string>, value: JsonValue, absent = false): DesiredObject => ({
  kind: kindName,
  address,
  ids,
  value,
  absent,
  destructive: false,
  source: { file: 'contract.yaml', line: 1, column: 1 },
});
const clientWith = (credentials: Credentials): ApiClient => createApiClient({ url: server.url, credentials, maxRetries: 0 });

beforeAll(async () => {
  server = await startReplayServer();
  client = clientWith({ type: 'token', token: IDS.userToken });
  reader = createLiveReader(client);
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** Every sample has its case below (the file names are the test names). */
const covered = new Set<string>();
function sampleCase(file: string, title: string, body: () => Promise<void>): void {
  covered.add(file);
  it(`${file}: ${title}`, body);
}

describe('the client and the kinds read every documented sample', () => {
  sampleCase('portals-self.json', 'facts (hosted, currentVersion a string) and the caller (user or app)', async () => {
    const self = await client.get('/portals/self');
    // Hosted: the dated API version is the (dated) release.
    expect(factsFromSelf(self)).toMatchObject({ facts: { edition: 'hosted', version: '2024.1', access: 'public', isVerified: false }, id: IDS.org });
    expect(callerFromSelf(self)).toEqual({
      description: 'user admin1 (org_admin)',
      role: 'org_admin',
      roleId: 'org_admin',
      privileges: (documented('portals-self.json')['user'] as JsonObject)['privileges'],
    });
    const app = clientWith({ type: 'token', token: IDS.appToken });
    try {
      expect(callerFromSelf(await app.get('/portals/self'))).toEqual({ description: 'app Example app (app token)', privileges: ['portal:user:viewOrgItems'] });
    } finally {
      await app.close();
    }
  });

  sampleCase('portals-self-categorySchema.json', 'E2 live trees, descriptions kept, leaves without categories', async () => {
    const live = await kind('organization.categorySchema').read(declared('organization.categorySchema', 'organization.categorySchema', {}, []), reader);
    expect(live).toEqual(documented('portals-self-categorySchema.json')['categorySchema']);
  });

  sampleCase('community-groups-categorySchema.json', 'E1 live trees of the group', async () => {
    const live = await kind('group.categorySchema').read(declared('group.categorySchema', `group[${IDS.group}].categorySchema`, { groupId: IDS.group }, []), reader);
    expect(live).toEqual(documented('community-groups-categorySchema.json')['categorySchema']);
  });

  sampleCase('community-groups-search.json', 'groups listed with q=orgid:<id>; each group schema discovered', async () => {
    const found = await kind('group.categorySchema').discover?.(reader, { edition: 'hosted', version: '2024.1' });
    expect(found?.map((entry) => entry.path)).toEqual([[{ container: 'group', key: IDS.group, comment: 'Example group (owner admin1)' }]]);
    const listing = server.requests.find((request) => request.path === '/community/groups');
    expect(listing?.query.get('q')).toBe(`orgid:${IDS.org}`);
  });

  sampleCase('search.json', 'items listed with q=orgid:<id>; contentStatus read from each result', async () => {
    const found = await kind('item.status').discover?.(reader, { edition: 'hosted', version: '2024.1', access: 'public', isVerified: false });
    expect(found).toEqual([{ path: [{ container: 'item', key: IDS.item, comment: 'Example item (owner member1)' }], fields: { status: 'org_authoritative' } }]);
    expect(server.requests.find((request) => request.path === '/search')?.query.get('q')).toBe(`orgid:${IDS.org}`);
  });

  sampleCase('content-items-id.json', 'E3 live status', async () => {
    expect(await kind('item.status').read(declared('item.status', `item[${IDS.item}].status`, { itemId: IDS.item }, 'org_authoritative'), reader)).toBe('org_authoritative');
  });

  sampleCase('community-users-id.json', 'E4 level "2" (a string) reads as 2', async () => {
    expect(await kind('user.level').read(declared('user.level', `user[${IDS.user}].level`, { username: IDS.user }, 2), reader)).toBe(2);
  });

  sampleCase('portals-self-memberCategorySchema.json', 'E5 the member schema exists (key memberCategorySchema)', async () => {
    const live = await kind('organization.memberCategorySchema').read(declared('organization.memberCategorySchema', 'organization.memberCategorySchema', {}, null, true), reader);
    expect(live).toEqual(documented('portals-self-memberCategorySchema.json')['memberCategorySchema']);
  });

  sampleCase('portals-self-idp-federation.json', 'E6 flat fields; the license type read from userLicenseTypeId', async () => {
    const { updateGroupsAtSignin, ...reported } = { name: 'Example SAML federation', signUpMode: 'Automatic', groups: [IDS.group], userLicenseType: 'creatorUT', encryptionSupported: false, updateGroupsAtSignin: false };
    const value = { ...reported, updateGroupsAtSignin };
    const federation = kind('federation');
    const object = declared('federation', `federation[${IDS.federation}]`, { federationId: IDS.federation }, value);
    const live = await federation.read(object, reader);
    // updateGroupsAtSignin is not in the documented GET: left out, unknown; what portalctl recorded stands for it.
    expect(live).toEqual(reported);
    const known = federation.withUnreported?.(object, live, value);
    expect(known).toEqual(value);
    expect(federation.inSync(object, known ?? null)).toBe(true);
  });

  sampleCase('community-users-tasks.json', 'E7 task state from `active` (false)', async () => {
    const live = await kind('user.task').read(declared('user.task', `user[${IDS.user}].task[${IDS.task}]`, { username: IDS.user, taskId: IDS.task }, { active: true }), reader);
    expect(live).toEqual({ active: false });
  });

  sampleCase('community-users-tasks-id.json', 'the single task is the list element (the kind reads the list)', async () => {
    const single = await client.get(`/community/users/${IDS.user}/tasks/${IDS.task}`);
    const listed = await client.list(`/community/users/${IDS.user}/tasks`, 'tasks');
    expect(listed).toEqual([single]);
  });

  sampleCase('portals-self-securityPolicy.json', 'E8 rules under passwordPolicy', async () => {
    const live = await kind('organization.securityPolicy').read(declared('organization.securityPolicy', 'organization.securityPolicy', {}, { minLength: 8, minDigit: 1, minUpper: 1 }), reader);
    expect(live).toEqual({ minLength: 8, minDigit: 1, minUpper: null });
  });

  sampleCase('portals-self-collaborations.json', 'collaborations listed; the GUID host id matched only with our own link GUID', async () => {
    const seen = await collaborationsSeen(reader);
    expect(seen).toEqual({ hosted: [{ id: IDS.collaboration, name: 'Example collaboration', ids: { collaborationId: IDS.collaboration } }], guestNotes: [] });
  });

  sampleCase('portals-self-collaborations-id.json', 'the collaboration is the list element', async () => {
    const [listed] = await client.list('/portals/self/collaborations', 'collaborations');
    expect(await client.get(C)).toEqual(listed);
  });

  sampleCase('portals-self-collaborations-workspaces.json', 'access per participant from participantGroupLinks; our GUID from our own link', async () => {
    const workspaces = await client.list(`${C}/workspaces`, 'workspaces');
    expect(ownCollaborationPortalId(workspaces)).toBe(IDS.hostPortal);
    expect(participantAccess(workspaces, IDS.hostPortal)).toEqual({ [IDS.workspace]: 'sendAndReceive' });
    expect(participantAccess(workspaces, 'some-other-portal')).toEqual({});
    const found = await kind('collaboration.workspace').discover?.(reader, { edition: 'hosted', version: '2024.1' });
    expect(found?.map((entry) => entry.fields)).toEqual([
      { name: 'Example workspace', description: 'Example workspace description', maxItemSizeInMB: 512, maxReplicationPackageSizeInMB: 1024, copyByRefIfCopyFail: true },
    ]);
  });

  sampleCase('portals-self-collaborations-workspaces-id.json', 'E9 settings from config; E14 our link is the one with a group id', async () => {
    const ids = { collaborationId: IDS.collaboration, workspaceId: IDS.workspace };
    const value = { name: 'Example workspace', maxItemSizeInMB: 512, copyByRefIfCopyFail: true };
    expect(await kind('collaboration.workspace').read(declared('collaboration.workspace', 'w', ids, value), reader)).toEqual(value);
    const link = await kind('collaboration.workspace.portalGroupLink').read(declared('collaboration.workspace.portalGroupLink', 'l', ids, null, true), reader);
    expect(link).toEqual({ portalId: IDS.hostPortal, portalGroupId: IDS.group });
  });

  sampleCase('portals-self-collaborations-participants.json', 'E11 participant by portalInfo.id; the host is never pruned, nor removed when named', async () => {
    const ids = { collaborationId: IDS.collaboration, participantPortalId: IDS.hostPortal };
    // Found by its portalInfo.id (the sample's one participant), and refused as the host (collaborationRole Host).
    await expect(kind('collaboration.participant').read(declared('collaboration.participant', 'p', ids, null, true), reader)).rejects.toMatchObject({ code: 'participant/host' });
    const source = { file: 'contract.yaml', line: 1, column: 1 };
    const pruned = await kind('collaboration.participant').prune?.({ collection: `collaboration[${IDS.collaboration}].participant`, kind: 'collaboration.participant', ids: { collaborationId: IDS.collaboration }, keys: [], source }, reader);
    expect(pruned).toEqual([]);
  });

  sampleCase('portals-self-collaborations-participants-id.json', 'the participant is the list element', async () => {
    const [listed] = await client.list(`${C}/participants`, 'participants');
    expect(await client.get(`${C}/participants/${IDS.hostPortal}`)).toEqual(listed);
  });

  sampleCase('portals-self-collaborations-invitations.json', 'E13 key collaborationInvitations, no paging fields; access from invitationString', async () => {
    const invitations = await client.list(`${C}/invitations`, INVITATIONS_FIELD);
    expect(invitations).toHaveLength(1);
    const ids = { collaborationId: IDS.collaboration, guestPortalUrl: IDS.guestUrl };
    const value = { guestPortalUrl: IDS.guestUrl, workspaces: { [IDS.workspace]: 'send' } };
    const obj = declared('collaboration.invitation', 'i', ids, value);
    const live = await kind('collaboration.invitation').read(obj, reader);
    expect(live).toEqual({ guestPortalUrl: IDS.guestUrl, workspaces: { [IDS.workspace]: 'send' }, standing: 'invited' });
    expect(kind('collaboration.invitation').inSync(obj, live)).toBe(true);
    expect(kind('collaboration.invitation').inSync({ ...obj, value: { ...value, workspaces: { [IDS.workspace]: 'receive' } } }, live)).toBe(false);
  });

  sampleCase('portals-self-collaborations-invitations-id.json', 'the invitation string parsed a second time', async () => {
    const invitation = await client.get(`${C}/invitations/${IDS.invitation}`);
    expect(invitationAccess(invitation)).toEqual({ [IDS.workspace]: 'send' });
    expect(invitationGuestUrl(invitation)).toBe(IDS.guestUrl);
    expect(invitation['guestPortalId']).toBe('unknown');
  });

  sampleCase('portals-self-collaborations-inviteParticipant.json', 'E13 answers a file named by Content-Disposition', async () => {
    const change = kind('collaboration.invitation').change(
      declared('collaboration.invitation', 'i', { collaborationId: IDS.collaboration, guestPortalUrl: IDS.guestUrl }, { guestPortalUrl: IDS.guestUrl, workspaces: { [IDS.workspace]: 'send' } }),
      null,
    );
    const result = await client.send(change.request);
    expect(result.type).toBe('file');
    if (result.type !== 'file') return;
    expect(result.filename).toBe('collaboration-guest.example.com.invite');
    expect(JSON.parse(result.content.toString('utf8'))).toEqual(documented('portals-self-collaborations-inviteParticipant.json')['body_file_content_probable']);
  });

  sampleCase('portals-self-roles.json', 'E10 roles from the list (custom roles only, paged)', async () => {
    const live = await kind('role').read(declared('role', 'role[c0ffeeRole000002]', { roleId: 'c0ffeeRole000002' }, { name: 'x', description: 'y' }), reader);
    expect(live).toEqual({ name: 'customPublisher', description: 'Custom publisher' });
  });

  sampleCase('portals-self-roles-id.json', 'a role resource has no privileges; the kind reads the list', async () => {
    const role = await client.get(`/portals/self/roles/${IDS.role}`);
    expect(Object.keys(role).sort()).toEqual(['created', 'description', 'id', 'modified', 'name']);
  });

  sampleCase('portals-self-resources.json', 'E12 resources by key', async () => {
    const live = await kind('organization.resource').read(declared('organization.resource', 'organization.resource[thumbnail.png]', { key: 'thumbnail.png' }, null, true), reader);
    expect(live).not.toBeNull();
    expect(await kind('organization.resource').read(declared('organization.resource', 'organization.resource[gone.png]', { key: 'gone.png' }, null, true), reader)).toBeNull();
  });

  sampleCase('portals-self-users.json', 'E4 levels of the members from the organization list ("1"/"2" strings), paged to nextStart -1', async () => {
    const members = await client.list('/portals/self/users', 'users');
    expect(members.map((member) => [member['username'], member['level']])).toEqual([
      ['admin1', '2'],
      ['viewer1', '1'],
    ]);
    // One list read serves the declared users (the list is one page); one missing from it is looked up on its own.
    const before = server.requests.length;
    const listReader = createLiveReader(client);
    expect(await kind('user.level').read(declared('user.level', 'user[viewer1].level', { username: 'viewer1' }, 2), listReader)).toBe(1);
    expect(await kind('user.level').read(declared('user.level', 'user[admin1].level', { username: 'admin1' }, 2), listReader)).toBe(2);
    await expect(kind('user.level').read(declared('user.level', 'user[ghost].level', { username: 'ghost' }, 2), listReader)).rejects.toThrow(new NotOnPortalError('user ghost', { container: 'user', address: 'user[ghost]' }));
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/portals/self/users', '/community/users/ghost']);
  });

  sampleCase('errors.json', 'every documented envelope (HTTP 200) becomes a typed ApiError', async () => {
    const envelopes = documented('errors.json');
    const { startServer, sendJson } = await import('../api/helpers.js');
    const errorServer = await startServer((req, res) => sendJson(res, envelopes[req.pathname.slice(1)]));
    const errorClient = createApiClient({ url: errorServer.url, credentials: { type: 'token', token: IDS.userToken }, maxRetries: 0 });
    const failure = async (name: string): Promise<ApiError> => {
      const error = await errorClient.get(`/${name}`).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      if (!(error instanceof ApiError)) throw new Error(`${name} did not fail with an ApiError`);
      return error;
    };
    try {
      expect(isTokenError(await failure('invalid_token_498'))).toBe(true);
      expect(isTokenError(await failure('token_required_499'))).toBe(true);
      const forbidden = await failure('forbidden_403');
      expect([forbidden.code, forbidden.messageCode, isMissingPrivilege(forbidden), isTokenError(forbidden)]).toEqual([403, 'GWM_0003', true, false]);
      expect(isNotFound(await failure('not_found_400_item'))).toBe(true);
      expect(isNotFound(await failure('not_found_404'))).toBe(true);
      const bad = await failure('bad_request_400');
      expect([bad.code, bad.messageCode, bad.details]).toEqual([400, 'ORG_1132', ['Category schema exceeds maximum tree size or is empty.']]);
      expect((await failure('generateToken_failure')).details).toEqual(['Invalid username or password.']);
    } finally {
      await errorClient.close();
      await errorServer.close();
    }
  });

  sampleCase('auth-generateToken.json', 'the token (expires in epoch ms) travels in X-Esri-Authorization, never in the URL', async () => {
    const signedIn = clientWith({ type: 'password', username: 'admin1', password: 'example-password' });
    try {
      const before = server.requests.length;
      await signedIn.get('/portals/self');
      const [tokenRequest, read] = server.requests.slice(before);
      expect([tokenRequest?.method, tokenRequest?.path, tokenRequest?.form.get('client')]).toEqual(['POST', '/generateToken', 'referer']);
      expect(read?.headers['x-esri-authorization']).toBe(`Bearer ${IDS.userToken}`);
      expect(read?.query.get('token')).toBeNull();
    } finally {
      await signedIn.close();
    }
  });

  sampleCase('auth-oauth2-token.json', 'client credentials: access_token in X-Esri-Authorization', async () => {
    const app = clientWith({ type: 'client', clientId: 'exampleappid0001', clientSecret: 'example-secret' });
    try {
      const before = server.requests.length;
      await app.get('/portals/self');
      const [tokenRequest, read] = server.requests.slice(before);
      expect([tokenRequest?.path, tokenRequest?.form.get('grant_type')]).toEqual(['/oauth2/token', 'client_credentials']);
      expect(read?.headers['x-esri-authorization']).toBe(`Bearer ${IDS.appToken}`);
      expect(read?.headers['authorization']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  sampleCase('write-operations.json', 'each JSON write (E1-E12, E14) is sent as planned and its documented answer accepted', async () => {
    const answers = documented('write-operations.json');
    const ws = { collaborationId: IDS.collaboration, workspaceId: IDS.workspace };
    const changes: [string, DesiredObject, JsonValue][] = [
      ['E1', declared('group.categorySchema', 'g', { groupId: IDS.group }, [{ title: 'A' }]), null],
      ['E2', declared('organization.categorySchema', 'o', {}, [{ title: 'A' }]), null],
      ['E3', declared('item.status', 'i', { itemId: IDS.item }, 'deprecated'), 'org_authoritative'],
      ['E4', declared('user.level', 'u', { username: IDS.user }, 1), 2],
      ['E5', declared('organization.memberCategorySchema', 'm', {}, null, true), [{ title: 'Location' }]],
      ['E6', declared('federation', 'f', { federationId: IDS.federation }, { name: 'Renamed' }), { name: 'Example SAML federation' }],
      ['E7', declared('user.task', 't', { username: IDS.user, taskId: IDS.task }, { active: true }), { active: false }],
      ['E8', declared('organization.securityPolicy', 's', {}, { minLength: 12 }), { minLength: 8 }],
      ['E9', declared('collaboration.workspace', 'w', ws, { name: 'Renamed' }), { name: 'Example workspace' }],
      ['E10', declared('role', 'r', { roleId: IDS.role }, { name: 'Renamed' }), { name: 'customViewer' }],
      ['E11', declared('collaboration.participant', 'p', { collaborationId: IDS.collaboration, participantPortalId: IDS.hostPortal }, null, true), { portalId: IDS.hostPortal }],
      ['E12', declared('organization.resource', 'r', { key: 'thumbnail.png' }, null, true), { key: 'thumbnail.png' }],
      ['E14', declared('collaboration.workspace.portalGroupLink', 'l', ws, null, true), { portalId: IDS.hostPortal, portalGroupId: IDS.group }],
    ];
    for (const [id, obj, live] of changes) {
      const chosen = kind(obj.kind);
      expect(chosen.operation.id).toBe(id);
      const result = await client.send(chosen.change(obj, live).request);
      const key = Object.keys(answers).find((name) => name.startsWith(`${id} `));
      expect(result, id).toEqual({ type: 'json', body: answers[key ?? ''] });
    }
    expect(await client.send(kind('federation').change(declared('federation', 'f', { federationId: IDS.federation }, { name: 'Renamed' }), null).request)).toEqual({
      type: 'json',
      body: { success: true, federationId: IDS.federation },
    });
  });

  it('has a case for every sample file', () => {
    expect([...covered].sort()).toEqual(sampleFiles());
  });
});
