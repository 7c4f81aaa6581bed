import { describe, expect, it } from 'vitest';
import type { Fault, LoggedRequest } from '../../../src/emulator/control.js';
import type { EmulatorState } from '../../../src/emulator/state/model.js';
import { control, errorOf, json, postForm, send, emulatorPerFile, type RawResponse } from './helpers.js';

const emulator = emulatorPerFile();

const rename = (name: string): Promise<RawResponse> =>
  postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'admin-token', name });

async function requestLog(): Promise<LoggedRequest[]> {
  return (json(await control(emulator, 'GET', '/requests')) as { requests: LoggedRequest[] }).requests;
}

async function addFault(spec: Record<string, unknown>): Promise<Fault> {
  const response = await control(emulator, 'POST', '/faults', spec);
  expect(response.status).toBe(200);
  return json(response) as unknown as Fault;
}

/** Waits until the log shows a request that has not been answered yet (the emulator is holding it). */
async function heldRequest(): Promise<LoggedRequest> {
  for (;;) {
    const pending = (await requestLog()).find((entry) => entry.response === undefined);
    if (pending) return pending;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('state', () => {
  it('returns the whole state and replaces it', async () => {
    const state = json(await control(emulator, 'GET', '/state')) as unknown as EmulatorState;
    expect(state.organization.id).toBe('0123456789ABCDEF');
    expect(state.users.map((u) => u.username)).toContain('jsmith');
    state.organization.name = 'Replaced';
    expect(json(await control(emulator, 'PUT', '/state', state))).toEqual({ success: true });
    expect(json(await send(`${emulator.url}/portals/self?f=json&token=admin-token`))['name']).toBe('Replaced');
  });

  it('validates a replacement like a data file and keeps the old state when it is invalid', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    const state = JSON.parse(before) as { users: Record<string, unknown>[] };
    state.users[0]!['level'] = 3;
    const response = await control(emulator, 'PUT', '/state', state);
    expect(response.status).toBe(400);
    expect(errorOf(response).message).toContain('users[0].level');
    const notJson = await send(`${emulator.controlUrl}/state`, { method: 'PUT', body: '{nope' });
    expect(notJson.status).toBe(400);
    // A state past the body limit is said to be too large (it read as broken JSON, cut at the limit).
    const large = { ...JSON.parse(before), padding: 'x'.repeat(10 * 1024 * 1024) } as unknown;
    const tooLarge = await control(emulator, 'PUT', '/state', large);
    expect(tooLarge.status).toBe(413);
    expect(json(tooLarge)).toEqual({ error: { message: "The body is larger than the emulator's limit of 10485760 bytes; a larger organization is started with --data FILE." } });
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });

  it('resets the state, the log, the faults, the latency and the clock', async () => {
    const original = (await control(emulator, 'GET', '/state')).text;
    await rename('Changed');
    await addFault({ path: '/nothing', status: 503, count: 0 });
    await control(emulator, 'POST', '/latency', { ms: 5 });
    await control(emulator, 'POST', '/clock', { now: 0 });
    expect((await control(emulator, 'GET', '/state')).text).not.toBe(original);
    expect(json(await control(emulator, 'POST', '/reset'))).toEqual({ success: true });
    expect((await control(emulator, 'GET', '/state')).text).toBe(original);
    expect(await requestLog()).toEqual([]);
    expect(json(await control(emulator, 'GET', '/faults'))).toEqual({ faults: [] });
    expect(json(await control(emulator, 'GET', '/latency'))).toEqual({ ms: 0 });
    expect(json(await control(emulator, 'GET', '/clock'))).toMatchObject({ frozen: false, offsetMs: 0 });
  });

  it('answers 404 for an unknown control endpoint, naming those there are (the package ships no sources), and 405 for a wrong method', async () => {
    const unknown = await control(emulator, 'GET', '/nothing');
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toEqual({
      error: {
        message:
          'No control endpoint /_emulator/nothing; the endpoints are /_emulator/state, /_emulator/reset, /_emulator/requests, /_emulator/faults, /_emulator/faults/release, /_emulator/latency, /_emulator/clock (README, "The emulator").',
      },
    });
    expect((await control(emulator, 'DELETE', '/state')).status).toBe(405);
  });
});

describe('request log', () => {
  it('records portal requests with tokens redacted, and not control requests', async () => {
    await postForm(`${emulator.url}/portals/self/test/rename?f=json`, { token: 'admin-token', name: 'Logged' }, { referer: 'https://app.example.com' });
    await send(`${emulator.url}/test/echo?f=json`, { headers: { authorization: 'Bearer jsmith-token' } });
    await send(`${emulator.url}/test/echo?f=json&token=steward-token`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"token":"secret","x":1}' });
    await send(`${emulator.url}/nowhere`);
    await control(emulator, 'GET', '/state');
    const log = await requestLog();
    expect(log).toHaveLength(4);
    expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((a, b) => a - b));
    expect(log[0]).toMatchObject({
      method: 'POST',
      path: '/portals/self/test/rename',
      params: { name: 'Logged', token: '***' },
      rawBody: 'token=***&name=Logged',
      contentType: 'application/x-www-form-urlencoded',
      referer: 'https://app.example.com',
      authorizationHeader: false,
      access: 'write',
      response: { status: 200 },
    });
    expect(log[1]).toMatchObject({ method: 'GET', path: '/test/echo', params: {}, authorizationHeader: true, access: 'read', response: { status: 200 } });
    expect(log[2]).toMatchObject({ rawBody: '{"token":"***","x":1}', params: { token: '***' }, contentType: 'text/plain' });
    expect(log[3]).toMatchObject({ access: 'unknown', response: { status: 200, code: 400 } });
    const text = JSON.stringify(log);
    for (const secret of ['admin-token', 'jsmith-token', 'steward-token', '"secret"']) expect(text).not.toContain(secret);
  });

  it('hides a secret field whose name the form percent-encodes, as the form is read', async () => {
    await send(`${emulator.url}/generateToken`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=admin&pass%77ord=admin-password&%74oken=admin-token&f=json' });
    const [entry] = await requestLog();
    expect(entry?.rawBody).toBe('username=admin&pass%77ord=***&%74oken=***&f=json');
    expect(JSON.stringify(entry)).not.toMatch(/admin-password|admin-token/);
  });

  it('records error codes and clears on DELETE', async () => {
    await send(`${emulator.url}/test/echo?f=json`);
    expect((await requestLog())[0]?.response).toEqual({ status: 200, code: 499 });
    expect(json(await control(emulator, 'DELETE', '/requests'))).toEqual({ success: true });
    expect(await requestLog()).toEqual([]);
  });
});

describe('faults', () => {
  it('answers an HTTP status with an HTML body and Retry-After, before the route runs', async () => {
    const fault = await addFault({ path: '/test/rename', status: 503, body: '<html>busy</html>', retryAfter: 7 });
    const before = (await control(emulator, 'GET', '/state')).text;
    const response = await rename('Faulted');
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toBe('<html>busy</html>');
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
    expect((await requestLog())[0]?.response).toEqual({ status: 503, faultId: fault.id });
  });

  it('answers a JSON body as JSON', async () => {
    await addFault({ path: '/test/echo', status: 429, body: '{"error":"slow down"}' });
    const response = await send(`${emulator.url}/test/echo?f=json&token=admin-token`);
    expect(response.status).toBe(429);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(json(response)).toEqual({ error: 'slow down' });
  });

  it('answers an API error as HTTP 200 with the envelope', async () => {
    await addFault({ path: '/test/rename', error: { code: 403, messageCode: 'GWM_0003', message: 'No privilege' } });
    const response = await rename('Faulted');
    expect(response.status).toBe(200);
    expect(errorOf(response)).toEqual({ code: 403, messageCode: 'GWM_0003', message: 'No privilege', details: [] });
    expect(emulator.state().organization.name).toBe('Riverside County GIS');
  });

  it('applies a fault to the next `count` matching requests, then stops', async () => {
    await addFault({ path: '/test/rename', status: 502, count: 2 });
    expect((await rename('1')).status).toBe(502);
    expect((await rename('2')).status).toBe(502);
    expect(json(await rename('3'))).toMatchObject({ success: true });
    const [fault] = (json(await control(emulator, 'GET', '/faults')) as { faults: Fault[] }).faults;
    expect(fault).toMatchObject({ count: 2, remaining: 0, hits: 2 });
  });

  it('applies a count-0 fault to every matching request until cleared', async () => {
    await addFault({ path: '/test/rename', status: 500, count: 0 });
    for (let i = 0; i < 4; i += 1) expect((await rename(String(i))).status).toBe(500);
    expect(json(await control(emulator, 'DELETE', '/faults'))).toEqual({ success: true });
    expect((await rename('after')).status).toBe(200);
  });

  it('matches by method and by glob', async () => {
    await addFault({ path: '/portals/*/test/rename', method: 'GET', status: 418 });
    expect((await rename('post is not matched')).status).toBe(200);
    await addFault({ path: '/portals/*/update', status: 418 }); // a glob must match the whole path: this one never applies
    await addFault({ path: '/portals/*/test/rename', method: 'POST', status: 409 });
    expect((await rename('x')).status).toBe(409);
    expect((await send(`${emulator.url}/portals/self/test/rename?f=json`)).status).toBe(418);
  });

  it('matches a glob without its leading slash, and paths without regard to case, as the routes do', async () => {
    await addFault({ path: 'portals/*/test/rename', status: 429 });
    expect((await rename('no slash')).status).toBe(429);
    await addFault({ path: 'PORTALS/SELF/TEST', status: 418 });
    expect((await rename('upper case')).status).toBe(418);
    await addFault({ path: '/Portals/*/Test/Rename', status: 409 });
    expect((await postForm(`${emulator.url}/portals/self/test/RENAME`, { f: 'json', token: 'admin-token', name: 'mixed' })).status).toBe(409);
    expect((await rename('none left')).status).toBe(200);
  });

  it('drops the connection without answering and changes nothing', async () => {
    await addFault({ path: 'rename', drop: true });
    const before = (await control(emulator, 'GET', '/state')).text;
    await expect(rename('dropped')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
    expect((await requestLog())[0]?.response).toMatchObject({ dropped: true });
    expect((await rename('next')).status).toBe(200);
  });

  it('delays a request, which then proceeds normally', async () => {
    await addFault({ path: '/test/rename', delayMs: 60_000 });
    const pending = rename('Delayed');
    const held = await heldRequest();
    expect(held.path).toBe('/portals/self/test/rename');
    expect(emulator.state().organization.name).toBe('Riverside County GIS');
    pending.catch(() => undefined); // still held when the emulator closes
    // A short delay shows that a delayed request then gets its normal answer.
    await addFault({ path: '/test/echo', delayMs: 1 });
    expect(json(await send(`${emulator.url}/test/echo?f=json&token=admin-token`))['username']).toBe('admin');
  });

  it('sends an envelope exactly as given: no messageCode unless given, details null or a string as they are', async () => {
    await addFault({ path: '/test/rename', error: { code: 500, message: 'Unexpected error', details: null } });
    expect(json(await rename('x'))).toEqual({ error: { code: 500, message: 'Unexpected error', details: null } });
    await addFault({ path: '/test/rename', error: { code: 400, message: 'Refused', details: 'as a string' } });
    expect(json(await rename('x'))).toEqual({ error: { code: 400, message: 'Refused', details: 'as a string' } });
  });

  it('matches only requests with the given parameters', async () => {
    await addFault({ path: '/test/rename', params: { name: 'second' }, status: 409 });
    expect((await rename('first')).status).toBe(200);
    expect((await rename('second')).status).toBe(409);
  });

  it('afterRoute: the write is performed, then its answer is lost (dropped) or replaced', async () => {
    await addFault({ path: '/test/rename', afterRoute: true, drop: true });
    await expect(rename('Performed')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(emulator.state().organization.name).toBe('Performed');
    const fault = await addFault({ path: '/test/rename', afterRoute: true, error: { code: 500, message: 'Unexpected error' } });
    expect(errorOf(await rename('Performed again'))).toEqual({ code: 500, message: 'Unexpected error', details: [] });
    expect(emulator.state().organization.name).toBe('Performed again');
    expect((await requestLog()).map((entry) => entry.response)).toEqual([
      { status: 0, faultId: fault.id - 1, dropped: true },
      { status: 200, code: 500, faultId: fault.id },
    ]);
  });

  it('rewrite: the route answers, then top-level fields of its answer are replaced or (null) removed; an error is left alone', async () => {
    await addFault({ path: '/test/echo', rewrite: { params: null, username: 'someone else', nextStart: -1 } });
    const answer = json(await send(`${emulator.url}/test/echo?f=json&token=admin-token`));
    expect(answer).toMatchObject({ username: 'someone else', nextStart: -1, isDefaultAdmin: true });
    expect(answer).not.toHaveProperty('params');
    await addFault({ path: '/test/echo', rewrite: { nextStart: -1 } });
    expect(json(await send(`${emulator.url}/test/echo?f=json`))).toEqual({ error: { code: 499, message: 'Token Required', details: [] } });
  });

  it('hold: the request waits until released, then proceeds normally', async () => {
    const fault = await addFault({ path: '/test/rename', hold: true });
    const pending = rename('Held');
    expect((await heldRequest()).path).toBe('/portals/self/test/rename');
    expect(emulator.state().organization.name).toBe('Riverside County GIS');
    expect((await control(emulator, 'POST', '/faults/release', { id: 'x' })).status).toBe(400);
    expect(json(await control(emulator, 'POST', '/faults/release', { id: fault.id + 1 }))).toEqual({ released: 0 });
    expect(json(await control(emulator, 'POST', '/faults/release', { id: fault.id }))).toEqual({ released: 1 });
    expect(json(await pending)).toMatchObject({ success: true });
    expect(emulator.state().organization.name).toBe('Held');
  });

  it('refuses invalid fault specifications', async () => {
    const invalid = [
      {},
      { path: '' },
      { path: '/x' },
      { path: '/x', status: 99 },
      { path: '/x', drop: false },
      { path: '/x', status: 500, colour: 'red' },
      { path: '/x', error: { message: 'no code' } },
      { path: '/x', error: { code: 400, message: 'x', details: [1] } },
      { path: '/x', status: 500, params: { start: 1 } },
      { path: '/x', afterRoute: true },
      { path: '/x', afterRoute: true, delayMs: 5 },
      { path: '/x', rewrite: { nextStart: -1 }, status: 500 },
      { path: '/x', rewrite: 'nextStart' },
      { path: '/x', hold: 'yes' },
      // Past Node's longest timer, a wait fires at once.
      { path: '/x', delayMs: 2 ** 31 },
    ];
    for (const spec of invalid) expect((await control(emulator, 'POST', '/faults', spec)).status, JSON.stringify(spec)).toBe(400);
  });
});

describe('latency and clock', () => {
  it('holds portal requests for the latency but never control requests', async () => {
    expect(json(await control(emulator, 'POST', '/latency', { ms: 60_000 }))).toEqual({ ms: 60_000 });
    const pending = send(`${emulator.url}/test/echo?f=json&token=admin-token`);
    pending.catch(() => undefined);
    const held = await heldRequest();
    expect(held.path).toBe('/test/echo');
    expect(json(await control(emulator, 'GET', '/latency'))).toEqual({ ms: 60_000 });
    expect((await control(emulator, 'POST', '/latency', { ms: -1 })).status).toBe(400);
    // Past Node's longest timer a wait fires at once: refused, saying the range.
    const tooLong = await control(emulator, 'POST', '/latency', { ms: 1e20 });
    expect(tooLong.status).toBe(400);
    expect(json(tooLong)).toEqual({ error: { message: 'Latency is {"ms": <integer from 0 to 2147483647>}.' } });
    expect(json(await control(emulator, 'GET', '/latency'))).toEqual({ ms: 60_000 });
  });

  it('freezes, shifts and releases the clock given to routes', async () => {
    await control(emulator, 'POST', '/clock', { now: '2030-01-01T00:00:00Z' });
    const frozen = json(await send(`${emulator.url}/test/echo?f=json&token=admin-token`));
    expect(frozen['now']).toBe(Date.parse('2030-01-01T00:00:00Z'));
    const shifted = json(await control(emulator, 'POST', '/clock', { offsetMs: 1e12 }));
    expect(shifted).toMatchObject({ frozen: false, offsetMs: 1e12 });
    const later = json(await send(`${emulator.url}/test/echo?f=json&token=admin-token`));
    expect(later['now'] as number).toBeGreaterThan(Date.now() + 1e12 - 60_000);
    // A shifted clock expires tokens generated before the shift.
    const created = json(await postForm(`${emulator.url}/generateToken`, { username: 'admin', password: 'admin-password', f: 'json' }));
    await control(emulator, 'POST', '/clock', { offsetMs: 1e12 + 61 * 60_000 });
    expect(errorOf(await postForm(`${emulator.url}/test/echo`, { f: 'json', token: created['token'] as string })).code).toBe(498);
    expect(json(await control(emulator, 'POST', '/clock', {}))).toMatchObject({ frozen: false, offsetMs: 0 });
    expect((await control(emulator, 'POST', '/clock', { now: 'yesterday' })).status).toBe(400);
    // Times no Date holds (tokens then expired at 1e+300) are refused.
    for (const body of [{ now: 1e300 }, { now: -8.7e15 }, { offsetMs: 8.7e15 }, { offsetMs: '5' }]) expect((await control(emulator, 'POST', '/clock', body)).status, JSON.stringify(body)).toBe(400);
    expect(json(await control(emulator, 'GET', '/clock'))).toMatchObject({ frozen: false, offsetMs: 0 });
  });
});
