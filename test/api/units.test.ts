import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiNetworkError,
  CredentialsError,
  createLiveReader,
  credentialsFromEnv,
  credentialsFromVariables,
  encodeForm,
  filenameFromDisposition,
  isLoopbackHost,
  isNotFound,
  parseRetryAfter,
  toFormValue,
  type ApiClient,
} from '../../src/api/index.js';
import type { JsonObject } from '../../src/core/json.js';
import { certificateProblem } from '../../src/api/transport.js';
import type { Params } from '../../src/api/encoding.js';

describe('form encoding', () => {
  it('encodes values per wire-facts and keeps absent distinct from empty', () => {
    expect(toFormValue('x')).toBe('x');
    expect(toFormValue('')).toBe('');
    expect(toFormValue(null)).toBe('');
    expect(toFormValue(undefined)).toBeUndefined();
    expect(toFormValue(12.5)).toBe('12.5');
    expect(toFormValue(false)).toBe('false');
    expect(toFormValue(new Date(1700000000000))).toBe('1700000000000');
    expect(toFormValue([{ w1: 'sendAndReceive' }])).toBe('[{"w1":"sendAndReceive"}]');
    expect(() => toFormValue(Number.NaN)).toThrow(TypeError);
    expect(encodeForm({ a: 'b', gone: undefined, empty: '', f: 'html' }).toString()).toBe('a=b&empty=&f=json');
  });
});

describe('credentials from the environment', () => {
  it('prefers a token, then user/password, then client credentials', () => {
    expect(credentialsFromEnv({ PORTALCTL_TOKEN: 't', PORTALCTL_USERNAME: 'u', PORTALCTL_PASSWORD: 'p' })).toEqual({ type: 'token', token: 't' });
    expect(credentialsFromEnv({ PORTALCTL_USERNAME: 'u', PORTALCTL_PASSWORD: 'p' })).toEqual({ type: 'password', username: 'u', password: 'p' });
    expect(credentialsFromEnv({ PORTALCTL_CLIENT_ID: 'i', PORTALCTL_CLIENT_SECRET: 's' })).toEqual({ type: 'client', clientId: 'i', clientSecret: 's' });
  });

  it('a token copied with its line break works; one no header can carry is said at once, never shown', () => {
    expect(credentialsFromEnv({ PORTALCTL_TOKEN: 'abc.DEF-123_=\n' })).toEqual({ type: 'token', token: 'abc.DEF-123_=' });
    expect(credentialsFromEnv({ PORTALCTL_TOKEN: ' abc\r\n' })).toEqual({ type: 'token', token: 'abc' });
    expect(credentialsFromVariables({ token: 'PROD_TOKEN' }, { PROD_TOKEN: 'abc\n' }, 'Environment production')).toEqual({ type: 'token', token: 'abc', from: 'PROD_TOKEN' });
    expect(() => credentialsFromEnv({ PORTALCTL_TOKEN: 'secret part\u0001two' })).toThrow(
      new CredentialsError('PORTALCTL_TOKEN holds a character no token has (a space, a control character or a letter outside ASCII): set it to the token alone.'),
    );
    expect(() => credentialsFromVariables({ token: 'PROD_TOKEN' }, { PROD_TOKEN: '  ' }, 'Environment production')).toThrow(new CredentialsError('PROD_TOKEN holds only spaces: set it to the token alone.'));
  });

  it('names the variables when credentials are missing or incomplete', () => {
    expect(() => credentialsFromEnv({})).toThrow(CredentialsError);
    expect(() => credentialsFromEnv({ PORTALCTL_TOKEN: '' })).toThrow(
      /PORTALCTL_TOKEN.*PORTALCTL_USERNAME and PORTALCTL_PASSWORD.*PORTALCTL_CLIENT_ID and PORTALCTL_CLIENT_SECRET/,
    );
    expect(() => credentialsFromEnv({ PORTALCTL_USERNAME: 'u' })).toThrow(/PORTALCTL_PASSWORD is not/);
    expect(() => credentialsFromEnv({ PORTALCTL_CLIENT_SECRET: 's' })).toThrow(/PORTALCTL_CLIENT_ID is not/);
  });
});

describe('header parsing', () => {
  it('reads Retry-After as seconds or HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('takes a bare file name from Content-Disposition', () => {
    expect(filenameFromDisposition('attachment; filename="collab-a.invite"')).toBe('collab-a.invite');
    expect(filenameFromDisposition('attachment; filename=plain.invite')).toBe('plain.invite');
    expect(filenameFromDisposition("attachment; filename*=UTF-8''caf%C3%A9.invite; filename=\"x\"")).toBe('café.invite');
    expect(filenameFromDisposition('attachment; filename="/etc/passwd"')).toBe('passwd');
    expect(filenameFromDisposition('attachment; filename=".."')).toBeUndefined();
    expect(filenameFromDisposition('attachment')).toBeUndefined();
    expect(filenameFromDisposition(undefined)).toBeUndefined();
  });

  it('recognises loopback hosts only', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['128.0.0.1', 'example.com', 'localhost.example.com', '10.0.0.1'].some(isLoopbackHost)).toBe(false);
  });
});

describe('isNotFound', () => {
  it('is false for network failures and unrelated errors', () => {
    expect(isNotFound(new ApiNetworkError({ method: 'GET', path: '/a', apiMessage: 'x', failure: 'timeout', outcomeUnknown: false }))).toBe(false);
    expect(isNotFound(new Error('does not exist or is inaccessible'))).toBe(false);
    expect(isNotFound(new ApiError({ method: 'GET', path: '/a', code: 400, apiMessage: 'bad request' }))).toBe(false);
  });

  it("a user's own read refused with code 400 and no messageCode in the portal's envelope is the user not found; nothing else shaped so is", () => {
    const refusal = (fields: { method?: string; path: string; messageCode?: string; enveloped?: boolean }): ApiError =>
      new ApiError({ method: 'GET', code: 400, apiMessage: 'User does not exist or is inaccessible.', enveloped: true, ...fields });
    expect(isNotFound(refusal({ path: '/community/users/ghost' }))).toBe(true);
    expect(isNotFound(refusal({ path: '/community/users/j%20doe%40example' }))).toBe(true);
    // A messageCode says what the refusal is: only the documented not-found codes mean not found.
    expect(isNotFound(refusal({ path: '/community/users/ghost', messageCode: 'ORG_1084' }))).toBe(false);
    // A bare HTTP 400 (a proxy's page) is not the portal speaking.
    expect(isNotFound(refusal({ path: '/community/users/ghost', enveloped: false }))).toBe(false);
    // Below the user (its task list answers the same shape for "Invalid URL" before 10.8.1), or a write: another meaning.
    expect(isNotFound(refusal({ path: '/community/users/ghost/tasks' }))).toBe(false);
    expect(isNotFound(refusal({ path: '/community/users/ghost', method: 'POST' }))).toBe(false);
    expect(isNotFound(refusal({ path: '/content/items/x' }))).toBe(false);
  });
});

describe('createLiveReader', () => {
  function fakeClient() {
    const calls: string[] = [];
    const notFound = new ApiError({ method: 'GET', path: '/gone', code: 400, messageCode: 'CONT_0001', apiMessage: 'Item does not exist or is inaccessible.' });
    let failOnce = true;
    const client: Pick<ApiClient, 'get'> = {
      async get(path: string, params: Params = {}): Promise<JsonObject> {
        calls.push(`get ${path}${params['start'] === undefined ? '' : ` start=${params['start']}`}`);
        await new Promise((resolve) => setImmediate(resolve));
        if (path === '/gone') throw notFound;
        if (path === '/flaky' && failOnce) {
          failOnce = false;
          throw new ApiError({ method: 'GET', path, code: 500, apiMessage: 'boom' });
        }
        // A one-page list with two fields, for lists; any object, for single reads.
        return params['start'] === undefined ? { path } : { total: 1, nextStart: -1, items: [{ itemsField: 'items' }], other: [{ itemsField: 'other' }] };
      },
    };
    return { client, calls };
  }

  it('fetches each path once, shares in-flight requests and maps not-found to undefined', async () => {
    const { client, calls } = fakeClient();
    const reader = createLiveReader(client);
    const [a, b] = await Promise.all([reader.get('/ws'), reader.get('/ws')]);
    expect(a).toEqual({ path: '/ws' });
    expect(b).toBe(a);
    expect(await reader.get('/ws')).toBe(a);
    expect(await reader.get('/gone')).toBeUndefined();
    expect(await reader.get('/gone')).toBeUndefined();
    expect(await reader.list('/l', 'items')).toEqual([{ itemsField: 'items' }]);
    expect(await reader.list('/l', 'other')).toEqual([{ itemsField: 'other' }]);
    expect(await reader.list('/l', 'items')).toEqual([{ itemsField: 'items' }]);
    expect(await reader.list('/gone', 'items')).toBeUndefined();
    // One page read serves both fields of /l; /gone's list is "not found" on its first page.
    expect(calls).toEqual(['get /ws', 'get /gone', 'get /l start=1', 'get /gone start=1']);
  });

  it('does not memoise failures other than not-found', async () => {
    const { client, calls } = fakeClient();
    const reader = createLiveReader(client);
    await expect(reader.get('/flaky')).rejects.toThrow('boom');
    expect(await reader.get('/flaky')).toEqual({ path: '/flaky' });
    expect(calls).toEqual(['get /flaky', 'get /flaky']);
  });
});

describe('certificateProblem', () => {
  const tlsFailure = (code: string): Error => Object.assign(new Error('tls failure'), { code });
  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted-issuer'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted-issuer'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted-issuer'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'wrong-name'],
    ['CERT_HAS_EXPIRED', 'out-of-date'],
    ['CERT_REVOKED', 'revoked'],
  ])('classifies %s (found through causes) as %s', (code, kind) => {
    expect(certificateProblem(new Error('fetch failed', { cause: tlsFailure(code) }))).toEqual({ code, kind });
  });

  it('leaves other failures alone (they keep their retry rules)', () => {
    expect(certificateProblem(tlsFailure('ECONNRESET'))).toBeUndefined();
    expect(certificateProblem(new Error('no code'))).toBeUndefined();
  });
});
