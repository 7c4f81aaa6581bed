/**
 * Answers as real portals give them, produced by the emulator's faults and read by the real API
 * client (and the engine's LiveReader) over HTTP: list pages whose `total` says more than was
 * read (no `nextStart`, `nextStart: -1` early, an entry moving across a page or the list changing
 * while it is read), every documented error envelope (`details: null` included), an envelope with
 * code 500, 498 against 499, and writes performed whose answer was lost.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiNetworkError,
  createApiClient,
  createLiveReader,
  isMissingPrivilege,
  isNotFound,
  tokenProblem,
  type ApiClient,
} from '../../src/api/index.js';
import type { JsonObject } from '../../src/core/json.js';
import { loadDataFile, type EmulatorState, type LoggedRequest } from '../../src/emulator/index.js';
import { documented } from '../support/wire-samples.js';
import { HEADER, SAMPLE_ORG, portalPerTest } from '../support/portal.js';

const RESOURCES = '/portals/self/resources';
const KEYS = Array.from({ length: 250 }, (_, index) => `r${String(index).padStart(3, '0')}.png`);

/** The sample organization with 250 portal resources: three pages of the reader's 100. */
function withResources(): EmulatorState {
  const state = loadDataFile(SAMPLE_ORG);
  state.organization.resources = KEYS.map((key, index) => ({ key, size: index, created: 1700000000000 }));
  return state;
}

const portal = portalPerTest({ data: withResources() });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(outcome)}`);
  return outcome;
}

const keysOf = (entries: readonly JsonObject[] | undefined): unknown[] => (entries ?? []).map((entry) => entry['key']);
const pageStarts = (requests: LoggedRequest[]): string[] => requests.filter((entry) => entry.path === RESOURCES).map((entry) => entry.params['start'] ?? '');

/** Waits for the emulator to log a request (a held one is logged before it waits). */
async function loggedRequest(matches: (entry: LoggedRequest) => boolean): Promise<void> {
  while (!(await portal.requests()).some(matches)) await new Promise((resolve) => setImmediate(resolve));
}

async function release(): Promise<void> {
  const response = await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
  expect(await response.json()).toEqual({ released: 1 });
}

describe('paging: a list is used only when it was read whole', () => {
  it('a page without nextStart while total says more: paging goes on right after its entries', async () => {
    await portal.fault({ path: RESOURCES, method: 'GET', params: { start: '1' }, rewrite: { nextStart: null } });
    const listed = await createLiveReader(portal.client).list(RESOURCES, 'resources');
    expect(keysOf(listed)).toEqual(KEYS);
    expect(pageStarts(await portal.requests())).toEqual(['1', '101', '201']);
  });

  it('nextStart -1 early: the list is read again, and used once a read is whole', async () => {
    await portal.fault({ path: RESOURCES, method: 'GET', params: { start: '1' }, rewrite: { nextStart: -1 } });
    const listed = await createLiveReader(portal.client).list(RESOURCES, 'resources');
    expect(keysOf(listed)).toEqual(KEYS);
    expect(pageStarts(await portal.requests())).toEqual(['1', '1', '101', '201']);
  });

  it('nextStart -1 early on every read: a clear error naming the count, and no plan (nothing pruned from part of a list)', async () => {
    await portal.fault({ path: RESOURCES, method: 'GET', params: { start: '1' }, rewrite: { nextStart: -1 }, count: 0 });
    const error = await failure(createLiveReader(portal.client).list(RESOURCES, 'resources'));
    expect(error.message).toBe(
      'GET /portals/self/resources failed: the list could not be read whole in 3 reads: the portal said it has 250 entries, but its pages held 100 ' +
        "(the page at start 1 answered with nextStart -1). Nothing was planned from part of it; try again once the portal's content is still, or check the portal.",
    );
    // The same through the engine: a prune over a list it could not read whole is no plan at all.
    const config = await portal.config(`${HEADER}organization:\n  resources:\n    keep: [r000.png]\n    prune: true\n`);
    await expect(portal.plan(config)).rejects.toThrow('the list could not be read whole in 3 reads');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect((await portal.state()).organization.resources).toHaveLength(250);
  });

  it('an entry that moves across a page while the pages are read: seen twice, so the list is read again', async () => {
    await portal.fault({ path: RESOURCES, method: 'GET', params: { start: '101' }, hold: true });
    const listing = createLiveReader(portal.client).list(RESOURCES, 'resources');
    await loggedRequest((entry) => entry.path === RESOURCES && entry.params['start'] === '101');
    // While page 2 waits, r150 moves to the front: r099 slides onto page 2 and r150 off it.
    const state = await portal.state();
    const moved = state.organization.resources.splice(150, 1);
    state.organization.resources.unshift(...moved);
    await portal.replaceState(state);
    await release();
    const listed = await listing;
    expect(keysOf(listed)).toEqual(['r150.png', ...KEYS.filter((key) => key !== 'r150.png')]);
    expect(pageStarts(await portal.requests())).toEqual(['1', '101', '201', '1', '101', '201']);
  });

  it('the list changes size while it is read: its total differs between pages, so it is read again', async () => {
    await portal.fault({ path: RESOURCES, method: 'GET', params: { start: '101' }, hold: true });
    const listing = portal.client.list(RESOURCES, 'resources');
    await loggedRequest((entry) => entry.path === RESOURCES && entry.params['start'] === '101');
    const state = await portal.state();
    state.organization.resources.splice(0, 1);
    await portal.replaceState(state);
    await release();
    expect(keysOf(await listing)).toEqual(KEYS.slice(1));
  });
});

describe('error envelopes as the portal sends them', () => {
  it('every documented envelope, over HTTP 200, becomes an ApiError classified by code and messageCode', async () => {
    const envelopes = documented('errors.json');
    const classified: Record<string, unknown[]> = {};
    for (const [name, envelope] of Object.entries(envelopes)) {
      const error = (envelope as { error: { code: number; message: string; messageCode?: string; details?: string[] } }).error;
      await portal.fault({ path: '/portals/self/roles', method: 'GET', error });
      const caught = await failure(portal.client.get('/portals/self/roles'));
      classified[name] = [caught.code, caught.messageCode, caught.details, tokenProblem(caught), isMissingPrivilege(caught), isNotFound(caught)];
      expect(caught.message).toContain(error.message);
    }
    expect(classified).toEqual({
      invalid_token_498: [498, undefined, [], 'invalid', false, false],
      token_required_499: [499, undefined, [], 'required', false, false],
      forbidden_403: [403, 'GWM_0003', [], undefined, true, false],
      not_found_400_item: [400, 'CONT_0001', [], undefined, false, true],
      not_found_404: [404, undefined, [], undefined, false, true],
      bad_request_400: [400, 'ORG_1132', ['Category schema exceeds maximum tree size or is empty.'], undefined, false, false],
      generateToken_failure: [400, undefined, ['Invalid username or password.'], undefined, false, false],
    });
  });

  it('details null, a string, or missing: read leniently', async () => {
    const shapes = [null, 'one detail as a string', undefined];
    const read: unknown[] = [];
    for (const details of shapes) {
      await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 400, message: 'Refused', ...(details !== undefined ? { details } : {}) } });
      read.push((await failure(portal.client.get('/portals/self/roles'))).details);
    }
    expect(read).toEqual([[], ['one detail as a string'], []]);
    const sent = (await portal.requests()).map((entry) => entry.response);
    expect(sent.every((response) => response?.status === 200 && response.code === 400)).toBe(true);
  });

  it('an envelope with code 500 over HTTP 200 is a server failure: a read is retried like HTTP 500', async () => {
    await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 500, message: 'Unexpected error' } });
    await portal.fault({ path: '/portals/self/roles', method: 'GET', status: 500, body: '<html>Internal Server Error</html>' });
    const roles = await portal.client.list('/portals/self/roles', 'roles');
    expect(roles.map((role) => role['id'])).toEqual(['r7HkQ2', 'vW3rLv', 'cAt5Ad']);
    expect((await portal.requests()).map((entry) => [entry.response?.status, entry.response?.code])).toEqual([
      [200, 500],
      [500, undefined],
      [200, undefined],
    ]);
  });

  it('an envelope with code 500 on a request that must not be repeated (E13) fails at once, saying why', async () => {
    await portal.fault({ path: '/inviteParticipant', error: { code: 500, message: 'Unexpected error', details: null } });
    const error = await failure(portal.client.send(invite()));
    expect(error.message).toContain('(code 500)');
    expect(error.message).toContain('not repeated automatically because repeating it could act twice');
    expect((await portal.requests()).filter((entry) => entry.path.endsWith('/inviteParticipant'))).toHaveLength(1);
  });

  it('498 is an invalid or expired token; 499 says no token reached the portal (a static token cannot be renewed either way)', async () => {
    await portal.fault({ path: '/portals/self', method: 'GET', error: { code: 498, message: 'Invalid token.' } });
    const invalid = await failure(portal.client.get('/portals/self'));
    expect(invalid.message).toContain('rejected as invalid or expired (498)');
    await portal.fault({ path: '/portals/self', method: 'GET', error: { code: 499, message: 'Token Required' } });
    const required = await failure(portal.client.get('/portals/self'));
    expect(required.message).toContain('says a token is required (499), yet this request carried one in the X-Esri-Authorization header');
    expect(required.message).not.toContain('invalid or expired');
    expect((await portal.requests()).filter((entry) => entry.path === '/portals/self')).toHaveLength(2);
  });

  it('with a user name and password, 498 gets a new token once; 499 does not (a new token would not arrive either)', async () => {
    const client = signedIn();
    try {
      await portal.fault({ path: '/portals/self', method: 'GET', error: { code: 498, message: 'Invalid token.' } });
      expect(await client.get('/portals/self')).toMatchObject({ user: { username: 'admin' } });
      await portal.fault({ path: '/portals/self', method: 'GET', error: { code: 499, message: 'Token Required' } });
      expect((await failure(client.get('/portals/self'))).message).toContain('(499)');
      expect((await portal.requests()).map((entry) => entry.path)).toEqual(['/generateToken', '/portals/self', '/generateToken', '/portals/self', '/portals/self']);
    } finally {
      await client.close();
    }
  });
});

describe('a write performed whose answer was lost', () => {
  it('an idempotent write (E8) whose connection dropped after it was performed is sent again, and the portal holds it once', async () => {
    await portal.fault({ path: '/securityPolicy/update', afterRoute: true, drop: true });
    const answer = await portal.client.send({ method: 'POST', path: '/portals/self/securityPolicy/update', form: { minLength: '14' }, response: 'json', idempotent: true });
    expect(answer).toEqual({ type: 'json', body: { success: true } });
    const writes = await portal.requests({ writesOnly: true });
    expect(writes.map((entry) => entry.response?.dropped ?? false)).toEqual([true, false]);
    expect((await portal.state()).organization.securityPolicy.minLength).toBe(14);
  });

  it('E13 performed but its answer dropped: the outcome is unknown to the client, and the invitation exists', async () => {
    await portal.fault({ path: '/inviteParticipant', afterRoute: true, drop: true });
    const error = await failure(portal.client.send(invite()));
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error instanceof ApiNetworkError && error.outcomeUnknown).toBe(true);
    expect(error.message).toContain('The outcome is unknown');
    const invitations = (await portal.state()).collaborations[0]?.invitations ?? [];
    expect(invitations.map((invitation) => invitation.guestPortalUrl)).toEqual(['https://maps.guest.example.org/portal']);
  });

  it('E13 performed but answered with an error envelope: not repeated, and the invitation exists', async () => {
    await portal.fault({ path: '/inviteParticipant', afterRoute: true, error: { code: 503, message: 'Service Unavailable' } });
    const error = await failure(portal.client.send(invite()));
    expect(error.code).toBe(503);
    expect((await portal.requests({ writesOnly: true })).map((entry) => entry.response?.code)).toEqual([503]);
    expect((await portal.state()).collaborations[0]?.invitations).toHaveLength(1);
  });
});

function invite(): Parameters<ApiClient['send']>[0] {
  return {
    method: 'POST',
    path: '/portals/self/collaborations/c0ffee/inviteParticipant',
    form: { guestPortalUrl: 'https://maps.guest.example.org/portal', collaborationWorkspacesParticipantConfigJSON: '[{"w1":"send"}]' },
    response: 'file',
    idempotent: false,
  };
}

function signedIn(): ApiClient {
  return createApiClient({ url: portal.url, credentials: { type: 'password', username: 'admin', password: 'admin-password' }, baseDelayMs: 1, maxRetries: 3 });
}
