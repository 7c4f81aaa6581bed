import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/server.js';
import { ORG_ID, control, errorOf, json, postForm, send, startTestEmulator } from './helpers.js';

let emulator: RunningEmulator;
let echo: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  echo = `${emulator.url}/test/echo`;
});
afterAll(() => emulator.close());
beforeEach(async () => {
  await control(emulator, 'POST', '/reset');
});

describe('tokens on routes', () => {
  it('answers 499 Token Required without a token', async () => {
    const response = await send(`${echo}?f=json`);
    expect(response.status).toBe(200);
    expect(errorOf(response)).toMatchObject({ code: 499, message: 'Token Required' });
  });

  it('answers 498 for an unknown token', async () => {
    expect(errorOf(await postForm(echo, { f: 'json', token: 'no-such-token' })).code).toBe(498);
  });

  it('answers 498 for an expired token', async () => {
    expect(errorOf(await postForm(echo, { f: 'json', token: 'expired-token' })).code).toBe(498);
  });

  it('accepts the token as a form field, a query parameter and a Bearer header', async () => {
    expect(json(await postForm(echo, { f: 'json', token: 'admin-token' }))['username']).toBe('admin');
    expect(json(await send(`${echo}?f=json&token=jsmith-token`))['username']).toBe('jsmith');
    const bearer = await send(`${echo}?f=json`, { headers: { authorization: 'Bearer steward-token' } });
    expect(json(bearer)['username']).toBe('steward');
  });

  it('removes f and token from the params given to routes', async () => {
    const body = json(await postForm(echo, { f: 'json', token: 'admin-token', a: '1', empty: '' }));
    expect(body['params']).toEqual({ a: '1', empty: '' });
  });

  it('refuses a replaced state whose token names a missing user', async () => {
    const state = json(await control(emulator, 'GET', '/state'));
    const response = await control(emulator, 'PUT', '/state', { ...state, tokens: [{ token: 'ghost-token', username: 'ghost' }] });
    expect(response.status).toBe(400);
    expect(errorOf(response).message).toContain('tokens[0].username');
  });
});

describe('callers', () => {
  it('gives org_admin every privilege', async () => {
    const body = json(await postForm(echo, { f: 'json', token: 'admin-token' }));
    expect(body).toMatchObject({ isDefaultAdmin: true, customRole: null });
    expect(body['privileges']).toEqual({ updateItems: true, viewOrgItems: true, createItem: true, shareToGroup: true });
  });

  it('gives a custom role exactly its privileges', async () => {
    const body = json(await postForm(echo, { f: 'json', token: 'steward-token' }));
    expect(body).toMatchObject({ isDefaultAdmin: false, customRole: 'cAt5Ad' });
    expect(body['privileges']).toEqual({ updateItems: true, viewOrgItems: true, createItem: false, shareToGroup: false });
  });

  it('disables the privileges of a level 1 user beyond the level 1 list', async () => {
    const state = json(await control(emulator, 'GET', '/state')) as { users: { username: string; level: number }[] };
    // viewer1's role vW3rLv only holds level-1 privileges; give jsmith (createItem, shareToGroup) level 1.
    state.users.find((u) => u.username === 'jsmith')!.level = 1;
    expect((await control(emulator, 'PUT', '/state', state)).status).toBe(200);
    const body = json(await postForm(echo, { f: 'json', token: 'jsmith-token' }));
    expect(body['privileges']).toEqual({ updateItems: false, viewOrgItems: true, createItem: false, shareToGroup: false });
  });
});

describe('referer-bound tokens', () => {
  it('accepts the token only with the Referer given at creation', async () => {
    const created = json(
      await postForm(`${emulator.url}/generateToken`, {
        username: 'admin',
        password: 'admin-password',
        client: 'referer',
        referer: 'https://ci.example.com',
        f: 'json',
      }),
    );
    const token = created['token'] as string;
    const ok = await postForm(echo, { f: 'json', token }, { referer: 'https://ci.example.com' });
    expect(json(ok)['username']).toBe('admin');
    expect(errorOf(await postForm(echo, { f: 'json', token }, { referer: 'https://evil.example.com' })).code).toBe(498);
    expect(errorOf(await postForm(echo, { f: 'json', token })).code).toBe(498);
  });
});

describe('POST /generateToken', () => {
  it('returns a working token that expires after `expiration` minutes', async () => {
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 });
    const created = json(await postForm(`${emulator.url}/generateToken`, { username: 'jsmith', password: 'jsmith-password', client: 'requestip', expiration: '5', f: 'json' }));
    expect(created).toEqual({ token: expect.any(String), expires: 1_800_000_000_000 + 5 * 60_000, ssl: false });
    const token = created['token'] as string;
    expect(json(await postForm(echo, { f: 'json', token }))['username']).toBe('jsmith');
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 + 5 * 60_000 - 1 });
    expect(json(await postForm(echo, { f: 'json', token }))['username']).toBe('jsmith');
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 + 5 * 60_000 });
    expect(errorOf(await postForm(echo, { f: 'json', token })).code).toBe(498);
  });

  it('defaults the expiration to 60 minutes', async () => {
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 });
    const created = json(await postForm(`${emulator.url}/generateToken`, { username: 'admin', password: 'admin-password', f: 'json' }));
    expect(created['expires']).toBe(1_800_000_000_000 + 60 * 60_000);
  });

  it('refuses bad credentials with "Unable to generate token."', async () => {
    for (const form of [
      { username: 'admin', password: 'wrong' },
      { username: 'nobody', password: 'admin-password' },
      { username: 'mlopez', password: '' }, // a user without a password never gets a token
    ]) {
      const error = errorOf(await postForm(`${emulator.url}/generateToken`, { ...form, f: 'json' }));
      expect(error).toMatchObject({ code: 400, message: 'Unable to generate token.' });
    }
  });

  it('refuses client=referer without a referer, and GET', async () => {
    const error = errorOf(await postForm(`${emulator.url}/generateToken`, { username: 'admin', password: 'admin-password', client: 'referer', f: 'json' }));
    expect(error.code).toBe(400);
    expect(error.details.join(' ')).toContain('referer');
    expect(errorOf(await send(`${emulator.url}/generateToken?username=admin&password=admin-password&f=json`)).code).toBe(405);
  });

  it('never logs the password or the token', async () => {
    await postForm(`${emulator.url}/generateToken`, { username: 'admin', password: 'admin-password', f: 'json' });
    await postForm(echo, { f: 'json', token: 'admin-token' });
    const log = await control(emulator, 'GET', '/requests');
    expect(log.text).not.toContain('admin-password');
    expect(log.text).not.toContain('admin-token');
  });
});

describe('POST /oauth2/token', () => {
  it('returns an access token acting as the app, with the privileges of the app', async () => {
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 });
    const created = json(
      await postForm(`${emulator.url}/oauth2/token`, { client_id: 'portalctl-ci', client_secret: 'ci-secret', grant_type: 'client_credentials', f: 'json' }),
    );
    expect(created).toEqual({ access_token: expect.any(String), expires_in: 7200 });
    const bearer = await send(`${echo}?f=json`, { headers: { authorization: `Bearer ${created['access_token'] as string}` } });
    // App tokens act as the app (documented appInfo), not as its owner.
    expect(json(bearer)['username']).toBe('portalctl-ci');
    expect(json(bearer)['isDefaultAdmin']).toBe(false);
    expect(json(bearer)['privileges']).toEqual({ updateItems: true, viewOrgItems: false, createItem: false, shareToGroup: false });
    await control(emulator, 'POST', '/clock', { now: 1_800_000_000_000 + 7200 * 1000 });
    const expired = await send(`${echo}?f=json`, { headers: { authorization: `Bearer ${created['access_token'] as string}` } });
    expect(errorOf(expired).code).toBe(498);
  });

  it('honours expiration in minutes', async () => {
    const created = json(
      await postForm(`${emulator.url}/oauth2/token`, { client_id: 'portalctl-ci', client_secret: 'ci-secret', grant_type: 'client_credentials', expiration: '10', f: 'json' }),
    );
    expect(created['expires_in']).toBe(600);
  });

  it('refuses an unknown client or a wrong secret with invalid_client', async () => {
    for (const form of [
      { client_id: 'nobody', client_secret: 'ci-secret' },
      { client_id: 'portalctl-ci', client_secret: 'wrong' },
    ]) {
      const error = errorOf(await postForm(`${emulator.url}/oauth2/token`, { ...form, grant_type: 'client_credentials', f: 'json' }));
      expect(error).toMatchObject({ code: 400, error: 'invalid_client' });
    }
    const grant = errorOf(await postForm(`${emulator.url}/oauth2/token`, { client_id: 'portalctl-ci', client_secret: 'ci-secret', grant_type: 'password', f: 'json' }));
    expect(grant).toMatchObject({ code: 400, error: 'unsupported_grant_type' });
  });
});

describe('portals/self', () => {
  it('describes the organization and the caller', async () => {
    const body = json(await postForm(`${emulator.url}/portals/self`, { f: 'json', token: 'steward-token' }));
    expect(body).toMatchObject({
      id: ORG_ID,
      name: 'Riverside County GIS',
      isPortal: true,
      access: 'public',
      isVerified: false,
      // The REST API version of the release played (11.3), not the release.
      currentVersion: '2024.1',
      portalHostname: 'gis.riverside.example.com',
      hasCategorySchema: true,
      hasMemberCategorySchema: true,
      user: { username: 'steward', fullName: 'Sam Steward', role: 'org_admin', roleId: 'cAt5Ad', level: '2' },
    });
    const user = body['user'] as { privileges: string[] };
    expect(user.privileges).toEqual(['portal:user:viewOrgItems', 'portal:admin:updateItemCategorySchema', 'portal:admin:updateItems']);
  });

  it('answers GET by organization id, with built-in roles as they are', async () => {
    const body = json(await send(`${emulator.url}/portals/${ORG_ID}?f=json&token=admin-token`));
    const user = body['user'] as { role: string; roleId?: string; privileges: string[] };
    expect(user.role).toBe('org_admin');
    // Documented: roleId is the built-in role's name for built-in roles.
    expect(user.roleId).toBe('org_admin');
    expect(user.privileges).toContain('portal:admin:updateUsers');
  });

  it('lists only level 1 privileges for a level 1 user', async () => {
    const body = json(await send(`${emulator.url}/portals/self?f=json&token=viewer-token`));
    expect(body['user']).toMatchObject({ username: 'viewer1', role: 'org_user', roleId: 'vW3rLv', level: '1' });
  });

  it('reflects the edition, the schemas and the version as strings', async () => {
    const state = json(await control(emulator, 'GET', '/state')) as { organization: Record<string, unknown> };
    Object.assign(state.organization, { edition: 'hosted', version: '2025.10', apiVersion: '2025.10', categorySchema: [], memberCategorySchema: null });
    await control(emulator, 'PUT', '/state', state);
    const body = json(await send(`${emulator.url}/portals/self?f=json&token=admin-token`));
    expect(body).toMatchObject({ isPortal: false, currentVersion: '2025.10', hasCategorySchema: false, hasMemberCategorySchema: false });
  });

  it('requires a token', async () => {
    expect(errorOf(await send(`${emulator.url}/portals/self?f=json`)).code).toBe(499);
    expect(errorOf(await send(`${emulator.url}/portals/self?f=json&token=expired-token`)).code).toBe(498);
  });
});
