/**
 * multipart/form-data bodies over HTTP, written byte by byte: every route reads them as it reads
 * a urlencoded form, a file part is its text where a route expects text and its bytes where it
 * expects a file, a body that cannot be read is a clear 400, and the body limit is the same.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../../src/emulator/route-table.js';
import { MAX_BODY_BYTES } from '../../../src/emulator/server.js';
import type { LoggedRequest } from '../../../src/emulator/control.js';
import { control, emulatorPerFile, errorOf, json, multipartBody, postForm, postMultipart, send, startTestEmulator, testRoutes } from './helpers.js';

const emulator = emulatorPerFile(() => startTestEmulator({ routes: [...routes, ...testRoutes] }));

const MALFORMED = 'Unable to read the multipart/form-data body.';

async function logged(): Promise<LoggedRequest[]> {
  return (json(await control(emulator, 'GET', '/requests'))['requests'] as LoggedRequest[]) ?? [];
}

describe('multipart/form-data bodies', () => {
  it('give a route the same fields as the urlencoded form of the same values', async () => {
    const fields = { token: 'admin-token', f: 'json', categorySchema: JSON.stringify({ categorySchema: [{ title: 'A & B = C' }] }), name: 'Zürich – 東京', empty: '' };
    const form = json(await postForm(`${emulator.url}/test/echo?b=query`, fields));
    const multipart = json(await postMultipart(`${emulator.url}/test/echo?b=query`, multipartBody(fields)));
    expect(multipart['params']).toEqual(form['params']);
    expect(multipart['params']).toEqual({ b: 'query', categorySchema: fields.categorySchema, name: 'Zürich – 東京', empty: '' });
    expect(multipart['username']).toBe('admin');
    expect(multipart['files']).toEqual({});
  });

  it('take the token and f as parts, the body winning over the query as for a form', async () => {
    const response = await postMultipart(`${emulator.url}/test/echo?a=query&f=html`, multipartBody({ token: 'admin-token', f: 'pjson', a: 'body' }));
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.text).toContain('\n  "params"');
    expect(json(response)).toMatchObject({ params: { a: 'body' }, username: 'admin' });
  });

  it('give a file part as its text where a text is expected, and as its bytes where a file is', async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d]);
    const body = multipartBody({ token: 'admin-token', f: 'json', notes: { filename: 'notes.json', contentType: 'application/json', content: bytes } });
    const echoed = json(await postMultipart(`${emulator.url}/test/echo`, body));
    expect(echoed['params']).toEqual({ notes: '{"a":1}' });
    expect(echoed['files']).toEqual({ notes: { filename: 'notes.json', contentType: 'application/json', bytes: [...bytes] } });
  });

  it('reach write routes: E8 through multipart changes the policy as its form would', async () => {
    const response = await postMultipart(`${emulator.url}/portals/self/securityPolicy/update`, multipartBody({ token: 'admin-token', f: 'json', minLength: '14', historySize: '' }));
    expect(json(response)).toEqual({ success: true });
    expect(emulator.state().organization.securityPolicy).toMatchObject({ minLength: 14 });
    expect(emulator.state().organization.securityPolicy.historySize).toBeUndefined();
  });

  it("reach the token endpoints: generateToken's credentials as parts", async () => {
    const response = await postMultipart(`${emulator.url}/generateToken`, multipartBody({ username: 'admin', password: 'admin-password', client: 'requestip', f: 'json' }));
    expect(json(response)).toMatchObject({ token: expect.any(String) as unknown, ssl: false });
    const entry = (await logged()).find((request) => request.path === '/generateToken');
    expect(entry?.params['password']).toBe('***');
    expect(entry?.rawBody).not.toContain('admin-password');
    expect(entry?.rawBody).toContain('name="password"\r\n\r\n***\r\n--');
  });

  it("store the documentation's own addResource sample (file part with filename=\"\"), read back byte for byte", async () => {
    // The add-resource page's sample request: key, a file part named by an empty filename, text, access and f.
    const boundary = '----WebKitFormBoundary9Blzwh2i2nMd91xe';
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xd8]);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="key"\r\n\r\nLogo\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n{"test": "content"}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="access"\r\n\r\norg\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"\r\n\r\npjson\r\n--${boundary}--\r\n`),
    ]);
    const answer = await postMultipart(`${emulator.url}/portals/self/addResource`, body, { 'x-esri-authorization': 'Bearer admin-token' }, boundary);
    expect(answer.text).toBe('{\n  "success": true\n}\n');
    expect(emulator.state().organization.resources.find((resource) => resource.key === 'Logo')).toMatchObject({ size: png.length, contentType: 'application/octet-stream' });

    const file = await fetch(`${emulator.url}/portals/self/resources/Logo?token=admin-token`);
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(png);
  });
});

describe('a multipart body the emulator cannot read', () => {
  const boundary = 'EmulatorTestBoundary7MA4YWxk';
  const good = multipartBody({ token: 'admin-token', name: 'Renamed' }, boundary).toString('utf8');
  const cases: { name: string; contentType: string; body: string; detail: RegExp }[] = [
    { name: 'a Content-Type without a boundary', contentType: 'multipart/form-data', body: good, detail: /^The Content-Type header names no boundary \("multipart\/form-data"\)/ },
    { name: 'a boundary the body does not use', contentType: 'multipart/form-data; boundary=SomethingElse', body: good, detail: /--<boundary>/ },
    { name: 'a body cut before its closing boundary', contentType: `multipart/form-data; boundary=${boundary}`, body: good.slice(0, good.indexOf('Renamed') + 3), detail: /--<boundary>--/ },
    {
      name: 'a part without a name',
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nRenamed\r\n--${boundary}--\r\n`,
      detail: /name="<field>"/,
    },
    { name: 'lines ending in LF alone', contentType: `multipart/form-data; boundary=${boundary}`, body: good.replaceAll('\r\n', '\n'), detail: /CRLF/ },
  ];

  for (const { name, contentType, body, detail } of cases) {
    it(`${name}: HTTP 400, code 400 without messageCode, nothing changed, and the emulator serves on`, async () => {
      const before = (await control(emulator, 'GET', '/state')).text;
      const response = await send(`${emulator.url}/portals/self/test/rename?f=json`, { method: 'POST', headers: { 'content-type': contentType }, body });
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const error = errorOf(response);
      expect(error).toEqual({ code: 400, message: MALFORMED, details: [expect.stringMatching(detail) as unknown] });
      expect((await control(emulator, 'GET', '/state')).text).toBe(before);
      expect((await logged()).at(-1)).toMatchObject({ path: '/portals/self/test/rename', response: { status: 400, code: 400 } });
      expect(json(await postMultipart(`${emulator.url}/test/echo`, multipartBody({ token: 'admin-token', f: 'json' })))['username']).toBe('admin');
    });
  }

  it('is said as such, not as a missing token (its token part could not be read either)', async () => {
    const response = await send(`${emulator.url}/test/echo?f=json`, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: good });
    expect(errorOf(response).message).toBe(MALFORMED);
  });
});

describe('the body limit', () => {
  it('is the same for multipart: a file past MAX_BODY_BYTES is the 413 envelope, and one under it is stored', async () => {
    const big = multipartBody({ token: 'admin-token', f: 'json', key: 'big.bin', file: { filename: 'big.bin', content: new Uint8Array(MAX_BODY_BYTES) } });
    const refused = await postMultipart(`${emulator.url}/portals/self/addResource?f=json`, big);
    expect(refused.status).toBe(413);
    expect(errorOf(refused)).toMatchObject({ code: 413 });
    expect(emulator.state().organization.resources.map((resource) => resource.key)).not.toContain('big.bin');

    const overhead = big.length - MAX_BODY_BYTES;
    const fits = multipartBody({ token: 'admin-token', f: 'json', key: 'big.bin', file: { filename: 'big.bin', content: new Uint8Array(MAX_BODY_BYTES - overhead) } });
    expect(fits.length).toBe(MAX_BODY_BYTES);
    expect(json(await postMultipart(`${emulator.url}/portals/self/addResource`, fits))).toEqual({ success: true });
    expect(emulator.state().organization.resources.find((resource) => resource.key === 'big.bin')?.size).toBe(MAX_BODY_BYTES - overhead);
  });
});
