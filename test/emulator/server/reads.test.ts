/**
 * What the public clients need besides the fourteen operations (the vendor's JavaScript client
 * drives these in test/clients/esri-rest-js.test.ts): the info resource, community/self, the
 * member list and its search, group users, settings and the profile update; operation names
 * without regard to case. Here: their refusals and edges, over HTTP with a plain client.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { generateTls, startEmulator } from '../../../src/emulator/index.js';
import { SAMPLE_DATA, emulatorPerFile, errorOf, json, postForm, send } from './helpers.js';

const emulator = emulatorPerFile(() => startEmulator({ data: SAMPLE_DATA }));

const get = async (path: string, token?: string): Promise<Record<string, unknown>> =>
  json(await send(`${emulator.url}${path}${path.includes('?') ? '&' : '?'}f=json`, { headers: token ? { 'x-esri-authorization': `Bearer ${token}` } : {} }));
const post = async (path: string, form: Record<string, string>, token = 'admin-token'): Promise<Record<string, unknown>> =>
  json(await postForm(`${emulator.url}${path}`, { f: 'json', token, ...form }));

describe('reads the public clients need', () => {
  it('sharing/rest/info answers without a token, naming the token service at the address the client used', async () => {
    const viaLocalhost = emulator.url.replace('127.0.0.1', 'localhost');
    const info = json(await send(`${viaLocalhost}/info?f=json`));
    expect(info).toEqual({ owningSystemUrl: viaLocalhost.replace('/sharing/rest', ''), authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${viaLocalhost}/generateToken` } });
  });

  it('over HTTPS the info resource names https URLs', async () => {
    const tls = await generateTls();
    const secure = await startEmulator({ data: SAMPLE_DATA, tls });
    const dispatcher = new Agent({ connect: { ca: tls.authority } });
    try {
      const info = (await (await undiciFetch(`${secure.url}/info?f=json`, { dispatcher })).json()) as Record<string, unknown>;
      expect(secure.url).toMatch(/^https:/);
      expect(info).toEqual({ owningSystemUrl: secure.url.replace('/sharing/rest', ''), authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${secure.url}/generateToken` } });
    } finally {
      await dispatcher.close();
      await secure.close();
    }
  });

  it('community/self is the caller, in full; without a token 499', async () => {
    expect(await get('/community/self', 'viewer-token')).toMatchObject({ username: 'viewer1', fullName: 'Val Viewer', level: '1', privileges: expect.any(Array) as unknown });
    expect(errorOf(await send(`${emulator.url}/community/self?f=json`))).toMatchObject({ code: 499 });
  });

  it('the member list: an app holding portal:admin:viewUsers may read it; each member has the documented fields', async () => {
    const app = json(await postForm(`${emulator.url}/oauth2/token`, { f: 'json', grant_type: 'client_credentials', client_id: 'portalctl-ci', client_secret: 'ci-secret' }));
    const members = await get('/portals/self/users?num=2', String(app['access_token']));
    expect(members).toMatchObject({ total: 6, start: 1, num: 2, nextStart: 3 });
    expect(Object.keys((members['users'] as Record<string, unknown>[])[0] ?? {}).sort()).toEqual(
      ['access', 'created', 'disabled', 'email', 'firstName', 'fullName', 'id', 'lastLogin', 'lastName', 'level', 'modified', 'orgId', 'privileges', 'provider', 'role', 'roleId', 'userLicenseTypeId', 'userType', 'username'].sort(),
    );
    const reporting = json(await postForm(`${emulator.url}/oauth2/token`, { f: 'json', grant_type: 'client_credentials', client_id: 'portalctl-viewer', client_secret: 'viewer-secret' }));
    expect(errorOf(await send(`${emulator.url}/portals/self/users?f=json`, { headers: { 'x-esri-authorization': `Bearer ${String(reporting['access_token'])}` } }))).toMatchObject({
      code: 403,
      messageCode: 'GWM_0003',
    });
  });

  it('group users of a group that does not exist: CONT_0006', async () => {
    expect(errorOf(await send(`${emulator.url}/community/groups/nope/users?f=json&token=admin-token`))).toMatchObject({ code: 400, messageCode: 'CONT_0006' });
  });

  it('the profile update refuses what it cannot keep, and another username; the user is unchanged', async () => {
    const refused = await post('/community/users/jsmith/update', { fullName: 'Jane', description: 'Surveys culverts' }, 'jsmith-token');
    expect(refused).toEqual({
      error: { code: 400, message: "The emulator cannot update the user's 'description'.", details: ['It keeps fullName, firstName, lastName, tags of a user profile.'] },
    });
    expect((await post('/community/users/jsmith/update', { username: 'mlopez', fullName: 'Jane' }))['error']).toMatchObject({ code: 400 });
    expect(await post('/community/users/jsmith/update', { lastName: 'Smythe' })).toEqual({ success: true, username: 'jsmith' });
    expect(emulator.state().users.find((user) => user.username === 'jsmith')?.fullName).toBe('Jane Smythe');
    expect(errorOf(await send(`${emulator.url}/community/users/jsmith/update?f=json&token=admin-token`))).toMatchObject({ code: 405 });
  });
});

describe('resource and operation names match without regard to case, as on the portal', () => {
  it('operations, reads, portals/SELF and the token endpoints; ids keep their case', async () => {
    expect(await post('/PORTALS/self/RemoveResource', { key: 'old-banner.png' })).toEqual({ success: true });
    expect(await get('/Portals/SELF/securitypolicy', 'admin-token')).toMatchObject({ passwordPolicy: { minLength: 8 } });
    expect(json(await postForm(`${emulator.url}/generatetoken`, { f: 'json', username: 'admin', password: 'admin-password' }))).toHaveProperty('token');
    expect(errorOf(await send(`${emulator.url}/content/items/1105A1562C9C4DD98E557595BF8A2617?f=json&token=admin-token`))).toMatchObject({ messageCode: 'CONT_0001' });
    expect(errorOf(await send(`${emulator.url}/portals/self/nosuchthing?f=json&token=admin-token`))).toEqual({ code: 400, message: 'Invalid URL', details: [] });
    expect(emulator.state().organization.resources.map((resource) => resource.key)).toEqual(['home-background.jpg', 'legacy-logo.png']);
  });
});
