import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/emulator/server.js';
import { ORG_ID, control, errorOf, json, postForm, send, emulatorPerFile } from './helpers.js';

const emulator = emulatorPerFile();

describe('formats', () => {
  it('answers HTML when f is absent', async () => {
    const response = await postForm(`${emulator.url}/test/echo`, { token: 'admin-token', a: '<b>' });
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<pre>');
    expect(response.text).toContain('&lt;b&gt;');
    expect(response.text).not.toContain('<b>');
  });

  it('answers errors in HTML too when f is absent', async () => {
    const response = await send(`${emulator.url}/test/echo`);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('Token Required');
  });

  it('answers compact JSON for f=json and pretty JSON for f=pjson', async () => {
    const compact = await postForm(`${emulator.url}/test/echo`, { token: 'admin-token', f: 'json' });
    expect(compact.headers['content-type']).toMatch(/^application\/json/);
    expect(compact.text).not.toContain('\n');
    const pretty = await postForm(`${emulator.url}/test/echo`, { token: 'admin-token', f: 'pjson' });
    expect(pretty.headers['content-type']).toMatch(/^application\/json/);
    expect(pretty.text).toContain('\n  "params"');
    expect(JSON.parse(pretty.text)).toEqual({ ...JSON.parse(compact.text), now: expect.any(Number) });
  });

  it('sends file results as a download', async () => {
    const response = await postForm(`${emulator.url}/test/download`, { token: 'admin-token', f: 'json' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe('attachment; filename=participant.invite');
    expect(response.text).toBe('INVITE-CONTENT');
  });
});

describe('request bodies', () => {
  it('merges query parameters with the form body (the body wins)', async () => {
    const response = await postForm(`${emulator.url}/test/echo?f=json&a=query&b=query`, { token: 'admin-token', a: 'body' });
    expect(json(response)['params']).toEqual({ a: 'body', b: 'query' });
  });

  it('decodes form values, including JSON-valued fields', async () => {
    const schema = JSON.stringify({ categorySchema: [{ title: 'A & B = C' }] });
    const response = await postForm(`${emulator.url}/test/echo`, { token: 'admin-token', f: 'json', categorySchema: schema });
    expect(json(response)['params']).toEqual({ categorySchema: schema });
  });

  it('passes a JSON body as rawBody, whatever its content type says', async () => {
    const raw = '{"categorySchema":[{"title":"Themes"}]}';
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await send(`${emulator.url}/test/echo?f=json&token=admin-token`, { method: 'POST', headers: { 'content-type': contentType }, body: raw });
      expect(json(response)).toMatchObject({ params: {}, rawBody: raw });
    }
  });

  it('survives malformed bodies', async () => {
    const bodies = ['%%%&&&==%zz', '\u0000\u0001binary\uffff', '{"unterminated": ', 'a=%E0%A4%A'];
    for (const body of bodies) {
      const response = await send(`${emulator.url}/test/echo?f=json&token=admin-token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      expect(response.status).toBe(200);
      expect(json(response)['username']).toBe('admin');
    }
    const afterwards = await send(`${emulator.url}/portals/self?f=json&token=admin-token`);
    expect(json(afterwards)['id']).toBe(ORG_ID);
  });

  it('refuses a body over the limit with a 413 envelope and keeps serving', async () => {
    const body = `token=admin-token&f=json&big=${'x'.repeat(MAX_BODY_BYTES)}`;
    const response = await send(`${emulator.url}/test/echo?f=json`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(response.status).toBe(413);
    expect(errorOf(response).code).toBe(413);
    const afterwards = await postForm(`${emulator.url}/test/echo`, { token: 'admin-token', f: 'json' });
    expect(json(afterwards)['username']).toBe('admin');
  });
});

describe('routing', () => {
  it('answers "Invalid URL" (code 400, HTTP 200) for an unknown path', async () => {
    for (const path of [`${emulator.url}/no/such/thing`, `${emulator.url}/test/echo/extra`, emulator.url.replace('/portal/sharing/rest', '/elsewhere')]) {
      const response = await postForm(path, { token: 'admin-token', f: 'json' });
      expect(response.status).toBe(200);
      expect(errorOf(response)).toEqual({ code: 400, message: 'Invalid URL', details: [] });
    }
  });

  it('answers the REST root with its versions, without a token', async () => {
    // An 11.3 answers as the Root resource page shows: the API version and the release.
    expect(json(await send(`${emulator.url}?f=json`))).toEqual({ currentVersion: '2024.1', enterpriseVersion: '11.3.0', enterpriseBuild: '51526' });
  });

  it('accepts POST only on write routes', async () => {
    const response = await send(`${emulator.url}/portals/self/test/rename?f=json&token=admin-token&name=x`);
    expect(errorOf(response)).toMatchObject({ code: 405, message: 'Method not allowed; use POST.' });
    expect(emulator.state().organization.name).toBe('Riverside County GIS');
  });

  it('accepts GET and POST on read routes, nothing else', async () => {
    expect(json(await send(`${emulator.url}/test/echo?f=json&token=admin-token`))['username']).toBe('admin');
    expect(json(await postForm(`${emulator.url}/test/echo`, { f: 'json', token: 'admin-token' }))['username']).toBe('admin');
    expect(errorOf(await send(`${emulator.url}/test/echo?f=json&token=admin-token`, { method: 'DELETE' })).code).toBe(405);
  });

  it('takes self or the organization id as portalId, and nothing else', async () => {
    const bySelf = json(await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'admin-token', name: 'A' }));
    expect(bySelf).toEqual({ success: true, portalId: 'self' });
    const byId = json(await postForm(`${emulator.url}/portals/${ORG_ID}/test/rename`, { f: 'json', token: 'admin-token', name: 'B' }));
    expect(byId).toEqual({ success: true, portalId: ORG_ID });
    const before = (await control(emulator, 'GET', '/state')).text;
    const other = await postForm(`${emulator.url}/portals/FFFFFFFFFFFFFFFF/test/rename`, { f: 'json', token: 'admin-token', name: 'C' });
    expect(errorOf(other)).toMatchObject({ code: 400, message: 'Invalid URL' });
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });

  it('decodes percent-encoded path segments and rejects malformed ones', async () => {
    expect(json(await send(`${emulator.url}/portals/%73elf?f=json&token=admin-token`))['id']).toBe(ORG_ID);
    expect(errorOf(await send(`${emulator.url}/portals/%E0%A4?f=json&token=admin-token`)).message).toBe('Invalid URL');
  });
});

describe('state commits', () => {
  it('commits a write only when the handler returns', async () => {
    await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'admin-token', name: 'Renamed' });
    const state = emulator.state();
    expect(state.organization.name).toBe('Renamed');
    expect(state.users).toHaveLength(5);
  });

  it('leaves the state byte-for-byte unchanged when the handler throws an API error', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    const response = await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'admin-token', name: 'X', fail: 'api' });
    expect(response.status).toBe(200);
    expect(errorOf(response)).toEqual({ code: 400, messageCode: 'TEST_0001', message: 'Rename refused', details: ['because the test said so'] });
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });

  it('answers an unexpected exception with a 500 envelope and leaves the state unchanged', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    const response = await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'admin-token', name: 'X', fail: 'crash' });
    expect(response.status).toBe(500);
    expect(errorOf(response)).toMatchObject({ code: 500, details: ['boom'] });
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });

  it('never lets a read change the state', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    expect(json(await send(`${emulator.url}/portals/self/test/careless-read?f=json&token=admin-token`))['name']).toBe('changed by a read');
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });

  it('leaves the state unchanged when authentication fails on a write', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', name: 'X' });
    await postForm(`${emulator.url}/portals/self/test/rename`, { f: 'json', token: 'expired-token', name: 'X' });
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });
});
