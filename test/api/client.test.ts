import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  ApiNetworkError,
  CredentialsError,
  PortalUrlError,
  ReadingStoppedError,
  createApiClient,
  credentialsFromVariables,
  isMissingPrivilege,
  isNotFound,
  type ApiClient,
  type ApiClientOptions,
  type RequestEvent,
} from '../../src/api/index.js';
import { recordingSleep, sendJson, startServer, type Handler, type TestServer } from './helpers.js';

const TOKEN = 'static-token-5f3e9a';

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, options: Partial<ApiClientOptions> = {}) {
  server = await startServer(handler);
  const sleeper = recordingSleep();
  client = createApiClient({
    url: server.url,
    credentials: { type: 'token', token: TOKEN },
    sleep: sleeper.sleep,
    baseDelayMs: 10,
    ...options,
  });
  return { server, client, delays: sleeper.delays };
}

/** A message with its measured duration (`over 5.2 s`) replaced: the attempts are asserted, never the time. */
function withoutDuration(message: string): string {
  return message.replace(/ over \d+(\.\d+)? m?s\b/, ' over <duration>');
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('reads', () => {
  it('sends GET with f=json, the Bearer token in a header, the Referer, and nothing secret in the URL', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, { id: 'abc', name: 'Org' }));
    const self = await client.get('/portals/self');
    expect(self).toEqual({ id: 'abc', name: 'Org' });
    const [request] = server.requests;
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/portal/sharing/rest/portals/self?f=json');
    expect(request?.headers['x-esri-authorization']).toBe(`Bearer ${TOKEN}`);
    // The standard Authorization header belongs to web-tier authentication where there is one.
    expect(request?.headers['authorization']).toBeUndefined();
    expect(request?.headers['referer']).toBe('portalctl');
    expect(request?.url).not.toContain(TOKEN);
  });

  it('encodes query parameters and uses a custom referer', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, {}), { referer: 'ci-pipeline' });
    await client.get('community/users/j smith', { q: 'a&b', flag: true, n: 5, absent: undefined, empty: '' });
    const [request] = server.requests;
    expect(request?.pathname).toBe('/community/users/j%20smith');
    expect([...(request?.query ?? [])]).toEqual([
      ['q', 'a&b'],
      ['flag', 'true'],
      ['n', '5'],
      ['empty', ''],
      ['f', 'json'],
    ]);
    expect(request?.headers['referer']).toBe('ci-pipeline');
  });

  it('pages a list with start/num until nextStart is -1', async () => {
    const all = Array.from({ length: 250 }, (_, index) => ({ key: `r${index}` }));
    const { server, client } = await setup((req, res) => {
      const start = Number(req.query.get('start'));
      const num = Number(req.query.get('num'));
      const page = all.slice(start - 1, start - 1 + num);
      const next = start - 1 + num < all.length ? start + num : -1;
      sendJson(res, { total: all.length, start, num, nextStart: next, resources: page });
    });
    const items = await client.list('/portals/self/resources', 'resources');
    expect(items).toEqual(all);
    expect(server.requests.map((r) => [r.query.get('start'), r.query.get('num'), r.query.get('f')])).toEqual([
      ['1', '100', 'json'],
      ['101', '100', 'json'],
      ['201', '100', 'json'],
    ]);
  });

  it('takes a write answer without success: true as a failure (documented: a missing or false success is one)', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { itemId: 'i1' }));
    const error = await failure(client.send({ method: 'POST', path: '/content/items/i1/setContentStatus', form: { status: 'deprecated' }, response: 'json', idempotent: true }));
    expect(error.message).toContain('POST /content/items/i1/setContentStatus failed: the portal answered without success: true');
  });

  it('reads a list without paging fields (the documented invitations list) in one request', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, { collaborationInvitations: [{ id: 'i1' }, { id: 'i2' }] }));
    expect(await client.list('/portals/self/collaborations/c1/invitations', 'collaborationInvitations')).toEqual([{ id: 'i1' }, { id: 'i2' }]);
    expect(server.requests).toHaveLength(1);
  });

  it('stops paging when the server never advances nextStart, and fails rather than return part of the list', async () => {
    const { server, client } = await setup((_req, res) =>
      sendJson(res, { total: 5, start: 1, num: 100, nextStart: 1, items: [{ id: 'a' }] }),
    );
    const error = await failure(client.list('/x', 'items'));
    expect(error.message).toContain('GET /x failed: the list could not be read whole in 3 reads: the portal said it has 5 entries, but its pages held 1');
    // Each read stops at the page that would send it back: three reads of one page each.
    expect(server.requests.map((request) => request.query.get('start'))).toEqual(['1', '1', '1']);
  });

  it('reports a list answer without the items field', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { something: 'else' }));
    const error = await failure(client.list('/x', 'items'));
    expect(error.message).toContain('no "items" field');
  });
});

describe('writes', () => {
  it('posts the form in order as x-www-form-urlencoded with f=json last', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, { success: true }));
    const schema = JSON.stringify({ categorySchema: [{ title: 'A & B', categories: [] }] });
    const result = await client.send({
      method: 'POST',
      path: '/portals/self/assignCategorySchema',
      form: { categorySchema: schema, clearEmptyFields: 'true', status: '', note: 'a b+c' },
      response: 'json',
      idempotent: true,
    });
    expect(result).toEqual({ type: 'json', body: { success: true } });
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/portal/sharing/rest/portals/self/assignCategorySchema');
    expect(request?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request?.headers['x-esri-authorization']).toBe(`Bearer ${TOKEN}`);
    expect(request?.body).toBe(
      `categorySchema=${encodeURIComponent(schema).replace(/%20/g, '+')}&clearEmptyFields=true&status=&note=a+b%2Bc&f=json`,
    );
    expect([...new URLSearchParams(request?.body)]).toEqual([
      ['categorySchema', schema],
      ['clearEmptyFields', 'true'],
      ['status', ''],
      ['note', 'a b+c'],
      ['f', 'json'],
    ]);
    expect(request?.body).not.toContain(TOKEN);
  });

  it('returns a file download with its name from Content-Disposition', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="../collaboration-partner.example.org.invite"',
      });
      res.end(Buffer.from([1, 2, 3]));
    });
    const result = await client.send({
      method: 'POST',
      path: '/portals/self/collaborations/c1/inviteParticipant',
      form: { guestPortalUrl: 'https://partner.example.org/portal' },
      response: 'file',
      idempotent: false,
    });
    expect(result.type).toBe('file');
    if (result.type !== 'file') return;
    expect(result.filename).toBe('collaboration-partner.example.org.invite');
    expect([...result.content]).toEqual([1, 2, 3]);
  });

  it('detects a JSON error body when a file was expected', async () => {
    const { client } = await setup((_req, res) =>
      sendJson(res, { error: { code: 403, messageCode: 'GWM_0003', message: 'No privilege', details: [] } }),
    );
    const error = await failure(
      client.send({ method: 'POST', path: '/p/invite', form: {}, response: 'file', idempotent: false }),
    );
    expect(isMissingPrivilege(error)).toBe(true);
  });
});

describe('errors', () => {
  it('turns the HTTP-200 error envelope into an ApiError with every field', async () => {
    const { client } = await setup((_req, res) =>
      sendJson(res, {
        error: { code: 400, messageCode: 'ORG_1132', message: 'Unable to assign category schema', details: ['invalid category schema'] },
      }),
    );
    const error = await failure(client.get('/portals/self/categorySchema'));
    expect(error).toMatchObject({
      code: 400,
      messageCode: 'ORG_1132',
      apiMessage: 'Unable to assign category schema',
      details: ['invalid category schema'],
      method: 'GET',
      path: '/portals/self/categorySchema',
      httpStatus: 200,
    });
    expect(error.message).toContain('GET /portals/self/categorySchema failed: Unable to assign category schema (code 400, ORG_1132)');
    expect(error.message).toContain('invalid category schema');
  });

  it('accepts envelopes without code or messageCode and with string details', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { error: { message: 'Something odd', details: 'one detail' } }));
    const error = await failure(client.get('/a'));
    expect(error.code).toBeUndefined();
    expect(error.messageCode).toBeUndefined();
    expect(error.details).toEqual(['one detail']);
  });

  it('treats success:false as an error', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { success: false, message: 'not done' }));
    const error = await failure(
      client.send({ method: 'POST', path: '/a', form: {}, response: 'json', idempotent: true }),
    );
    expect(error.apiMessage).toBe('not done');
  });

  it('turns a non-2xx HTML answer into an ApiError with the status and a text snippet', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(413, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Request Entity Too Large</h1></body></html>');
    });
    const error = await failure(client.get('/a'));
    expect(error.code).toBe(413);
    expect(error.httpStatus).toBe(413);
    expect(error.message).toContain('HTTP 413 Payload Too Large: Request Entity Too Large');
  });

  it('does not follow a redirect (the token would go along): says where to, without its query, and the REST root it points to', async () => {
    const { client, server } = await setup((req, res) => {
      res.writeHead(301, { location: `https://gis.example.com/portal/sharing/rest${req.pathname}?f=json&token=leaked` });
      res.end();
    });
    const error = await failure(client.get('/portals/self'));
    expect(error.code).toBe(301);
    expect(error.message).toBe(
      'GET /portals/self failed: HTTP 301 Moved Permanently: the portal redirects to https://gis.example.com/portal/sharing/rest/portals/self, which portalctl does not follow (the token would go along); if that is the portal, use https://gis.example.com/portal/sharing/rest as its URL (code 301)',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect to a URL that does not parse: said without the user name and password in it, nor its query', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(302, { location: 'https://ops:s3/cret@[bad/portal/sharing/rest?token=leaked' });
      res.end();
    });
    const error = await failure(client.get('/portals/self'));
    expect(error.message).toBe('GET /portals/self failed: HTTP 302 Found: the portal redirects to https://***@[bad/portal/sharing/rest, which portalctl does not follow (code 302)');
  });

  it('a relative redirect is resolved against the request, as a browser would; an administration request suggests no REST root', async () => {
    const { client, server } = await setup((req, res) => {
      res.writeHead(302, { location: req.url.includes('/portaladmin/') ? '/arcgis/portaladmin/system/properties?f=json' : `/arcgis/sharing/rest${req.pathname}?f=json` });
      res.end();
    });
    const origin = new URL(server.url).origin;
    const error = await failure(client.get('/portals/self'));
    expect(error.message).toBe(
      `GET /portals/self failed: HTTP 302 Found: the portal redirects to ${origin}/arcgis/sharing/rest/portals/self, which portalctl does not follow (the token would go along); if that is the portal, use ${origin}/arcgis/sharing/rest as its URL (code 302)`,
    );
    const administration = await failure(client.getAdministration('/system/properties'));
    expect(administration.message).toMatch(new RegExp(`redirects to ${origin}/arcgis/portaladmin/system/properties, which portalctl does not follow \\(the token would go along\\) \\(code 302\\)$`));
  });

  it("a web server's own sign-in (Integrated Windows Authentication in front of the portal) is named, with the way around it", async () => {
    let answered = 0;
    const { client } = await setup((_req, res) => {
      answered += 1;
      // The first answer challenges as IIS does; the second is a 401 without a challenge.
      res.writeHead(401, { 'content-type': 'text/plain', ...(answered === 1 ? { 'www-authenticate': ['Negotiate', 'NTLM'] } : {}) });
      res.end('no');
    });
    const error = await failure(client.get('/portals/self'));
    expect(error.code).toBe(401);
    expect(error.message).toContain(
      'HTTP 401 Unauthorized: the web server in front of the portal asks for its own sign-in (Negotiate, NTLM: web-tier authentication, such as a web adaptor with Integrated Windows Authentication), which portal tokens do not pass.',
    );
    expect(error.message).toContain('where a Windows account signs in as username@DOMAIN');
    expect((await failure(client.get('/portals/self'))).message).toContain('HTTP 401 Unauthorized: no');
  });

  it('reports an answer that is not JSON', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login page</html>');
    });
    const error = await failure(client.get('/a'));
    expect(error.message).toContain('expected a JSON object');
  });

  it('classifies not-found and missing-privilege answers', async () => {
    const answers = [
      { code: 400, messageCode: 'CONT_0001', message: 'Item does not exist or is inaccessible.' },
      { code: 400, messageCode: 'CONT_0006', message: 'Group does not exist' },
      { code: 404, message: 'Resource does not exist or is inaccessible.' },
      // Decided by code and messageCode only: a message (localised by the portal) says nothing.
      { code: 400, message: 'User does not exist or is inaccessible.' },
      { code: 403, messageCode: 'GWM_0003', message: 'You do not have permissions' },
      { code: 400, messageCode: 'ORG_1084', message: 'Unable to change level' },
    ];
    let index = 0;
    const { client } = await setup((_req, res) => sendJson(res, { error: answers[index++] }));
    const results = [];
    for (let i = 0; i < answers.length; i++) {
      const error = await failure(client.get(`/a${i}`));
      results.push([isNotFound(error), isMissingPrivilege(error)]);
    }
    expect(results).toEqual([
      [true, false],
      [true, false],
      [true, false],
      [false, false],
      [false, true],
      [false, false],
    ]);
  });

  it("a user's read refused with code 400 and no messageCode: not found in the portal's envelope, the API error it is as a bare HTTP 400", async () => {
    const envelope = { error: { code: 400, message: 'User does not exist or is inaccessible.', details: [] } };
    const { client } = await setup((req, res) => {
      if (req.pathname === '/community/users/ghost') return sendJson(res, envelope);
      if (req.pathname === '/community/users/ghost2') return sendJson(res, envelope, 400);
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end('<html>Bad Request</html>');
    });
    const ghost = await failure(client.get('/community/users/ghost'));
    expect([ghost.enveloped, isNotFound(ghost)]).toEqual([true, true]);
    // The envelope over HTTP 400 is still the portal's; a bare 400 page (a proxy's) is not.
    const overHttp400 = await failure(client.get('/community/users/ghost2'));
    expect([overHttp400.enveloped, overHttp400.httpStatus, isNotFound(overHttp400)]).toEqual([true, 400, true]);
    const bare = await failure(client.get('/community/users/ghost3'));
    expect([bare.code, bare.enveloped, isNotFound(bare)]).toEqual([400, false, false]);
  });
});

describe('retries', () => {
  it('retries 429 honouring Retry-After in seconds, and 503 with backoff, then succeeds', async () => {
    let count = 0;
    const { server, client, delays } = await setup((_req, res) => {
      count += 1;
      if (count === 1) return sendJson(res, { error: { code: 429, message: 'slow down' } }, 429, { 'retry-after': '2' });
      if (count === 2) {
        res.writeHead(503, { 'content-type': 'text/html' });
        return res.end('<h1>Service Unavailable</h1>');
      }
      sendJson(res, { ok: true });
    });
    expect(await client.get('/a')).toEqual({ ok: true });
    expect(server.requests).toHaveLength(3);
    expect(delays[0]).toBe(2000);
    // Second retry: base 10 ms doubled once, with jitter between half and all of it.
    expect(delays[1]).toBeGreaterThanOrEqual(10);
    expect(delays[1]).toBeLessThanOrEqual(20);
  });

  it('honours a Retry-After HTTP date and caps it', async () => {
    let count = 0;
    const { client, delays } = await setup(
      (_req, res) => {
        count += 1;
        if (count === 1) {
          res.writeHead(503, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() });
          return res.end();
        }
        sendJson(res, {});
      },
      { maxRetryAfterMs: 5_000 },
    );
    await client.get('/a');
    expect(delays).toEqual([5_000]);
  });

  it('gives up after maxRetries and reports the last answer', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, {}, 502), { maxRetries: 2 });
    const error = await failure(client.get('/a'));
    expect(error.httpStatus).toBe(502);
    expect(server.requests).toHaveLength(3);
  });

  it('a status that fails after its retries says how many attempts were made, as a network failure does', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { error: { code: 503, message: 'busy' } }, 503), { maxRetries: 2 });
    expect(withoutDuration((await failure(client.get('/a'))).message)).toBe('GET /a failed: busy (code 503); tried 3 times over <duration>');
  });

  it('retries that end in an answer that is not retried say the attempts too', async () => {
    let count = 0;
    const { client } = await setup((_req, res) => {
      count += 1;
      if (count === 1) return sendJson(res, {}, 504);
      sendJson(res, { error: { code: 400, message: 'bad', details: ['no such field'] } }, 400);
    });
    expect(withoutDuration((await failure(client.get('/a'))).message)).toBe('GET /a failed: bad (code 400); tried 2 times over <duration>\n  details: no such field');
  });

  it('does not retry 403 GWM_0003 or other 4xx', async () => {
    const { server, client } = await setup((req, res) =>
      req.pathname === '/priv'
        ? sendJson(res, { error: { code: 403, messageCode: 'GWM_0003', message: 'no' } }, 403)
        : sendJson(res, { error: { code: 400, message: 'bad' } }, 400),
    );
    expect(isMissingPrivilege(await failure(client.get('/priv')))).toBe(true);
    await failure(client.get('/bad'));
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a non-idempotent request on 503', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, {}, 503));
    const error = await failure(
      client.send({ method: 'POST', path: '/invite', form: {}, response: 'file', idempotent: false }),
    );
    expect(error.httpStatus).toBe(503);
    expect(error.message).toContain('not repeated automatically');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a dropped connection for an idempotent request', async () => {
    let count = 0;
    const { server, client } = await setup((_req, res) => {
      count += 1;
      if (count === 1) return res.socket?.destroy();
      sendJson(res, { ok: 1 });
    });
    expect(await client.get('/a')).toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a dropped connection on a non-idempotent request as outcome unknown, without retrying', async () => {
    const { server, client } = await setup((_req, res) => void res.socket?.destroy());
    const error = await failure(
      client.send({ method: 'POST', path: '/portals/self/collaborations/c/inviteParticipant', form: { guestPortalUrl: 'https://x' }, response: 'file', idempotent: false }),
    );
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as ApiNetworkError).outcomeUnknown).toBe(true);
    expect((error as ApiNetworkError).failure).toBe('connection');
    expect(error.message).toContain('outcome is unknown');
    expect(server.requests).toHaveLength(1);
  });

  it('times out an attempt that gets no answer, retries, and reports a timeout with the attempts it took', async () => {
    const { server, client } = await setup(() => undefined, { timeoutMs: 150, maxRetries: 1 });
    const error = await failure(client.get('/slow'));
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as ApiNetworkError).failure).toBe('timeout');
    expect(withoutDuration(error.message)).toBe(`GET /slow failed: no answer within 150 ms from ${new URL(server.url).host}; tried 2 times over <duration>`);
    expect(server.requests).toHaveLength(2);
  });

  it('a connection dropped on every attempt: the error says how many attempts were made', async () => {
    const { server, client, delays } = await setup((_req, res) => void res.socket?.destroy(), { maxRetries: 3 });
    const error = await failure(client.get('/portals/self'));
    expect((error as ApiNetworkError).failure).toBe('connection');
    expect(withoutDuration(error.message)).toBe(`GET /portals/self failed: the connection to ${new URL(server.url).host} was dropped (UND_ERR_SOCKET); tried 4 times over <duration>`);
    expect(delays).toHaveLength(3);
  });

  it('a failure that is not retried says nothing of attempts', async () => {
    const { server, client } = await setup((_req, res) => void res.socket?.destroy(), { maxRetries: 0 });
    const error = await failure(client.get('/portals/self'));
    expect(error.message).toBe(`GET /portals/self failed: the connection to ${new URL(server.url).host} was dropped (UND_ERR_SOCKET)`);
  });

  it('times out a body that stalls after the headers', async () => {
    const { client } = await setup(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      },
      { timeoutMs: 150, maxRetries: 0 },
    );
    const error = await failure(client.get('/stall'));
    expect((error as ApiNetworkError).failure).toBe('timeout');
  });

  it('retries a refused connection (nothing was sent) and reports it as unreachable', async () => {
    const probe = await startServer(() => undefined);
    const url = probe.url;
    await probe.close();
    const sleeper = recordingSleep();
    client = createApiClient({ url, credentials: { type: 'token', token: TOKEN }, sleep: sleeper.sleep, maxRetries: 2 });
    const error = await failure(
      client.send({ method: 'POST', path: '/invite', form: {}, response: 'file', idempotent: false }),
    );
    expect((error as ApiNetworkError).failure).toBe('unreachable');
    expect((error as ApiNetworkError).outcomeUnknown).toBe(false);
    // The host, since a wrong portal URL is the usual cause.
    expect(withoutDuration(error.message)).toBe(`POST /invite failed: could not reach the portal at ${new URL(url).host} (ECONNREFUSED); tried 3 times over <duration>`);
    expect(sleeper.delays).toHaveLength(2);
  });

  it('an https:// URL to a port that answers plain HTTP: not retried, says to check the scheme and port', async () => {
    server = await startServer((_req, res) => sendJson(res, {}));
    const url = server.url.replace(/^http:/, 'https:');
    const sleeper = recordingSleep();
    client = createApiClient({ url, credentials: { type: 'token', token: TOKEN }, sleep: sleeper.sleep, maxRetries: 3 });
    const error = await failure(client.get('/portals/self'));
    expect(sleeper.delays).toEqual([]);
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error.message).toContain(`the connection to ${new URL(url).host} was dropped (ERR_SSL_WRONG_VERSION_NUMBER)`);
    expect(error.message).toContain(`${new URL(url).host} answers plain HTTP where the portal URL asks for https://: check the URL's scheme and port.`);
  });
});

describe('a portal URL that is not the REST root', () => {
  const invalidUrl: Handler = (_req, res) => sendJson(res, { error: { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL', details: [] } });

  const webPage = (status: number): Handler => (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<html><body>ArcGIS Enterprise</body></html>');
  };

  it.each([
    ['400 "Invalid URL" over HTTP 200, as the portal answers a path it does not know', invalidUrl, ''],
    ["a web server's 404 page", webPage(404), ''],
    ["a web page with 200, as a portal's web app answers paths of its own", webPage(200), '/home'],
    // URLs copied from elsewhere: a page of the portal's web app, a resource under the REST root.
    ['400 "Invalid URL", for a page of the web app', invalidUrl, '/home/index.html'],
    ['400 "Invalid URL", for a resource under the REST root', invalidUrl, '/sharing/rest/portals/self'],
  ])('/portals/self answered by %s, under a URL that does not end in /sharing/rest: says what the REST root looks like', async (_answer, handler, path) => {
    server = await startServer(handler);
    const web = server.url.replace(/\/sharing\/rest$/, path);
    client = createApiClient({ url: web, credentials: { type: 'token', token: TOKEN }, sleep: recordingSleep().sleep });
    const error = await failure(client.get('/portals/self'));
    // The REST root the URL most likely meant: the portal's web address with /sharing/rest.
    expect(error.message).toContain(`The portal URL should be the portal's REST root, ending in /sharing/rest (e.g. ${server.url}); ${web} does not.`);
  });

  it('the same answer under the REST root, or for another path: no such advice', async () => {
    const { client } = await setup(invalidUrl);
    const error = await failure(client.get('/portals/self'));
    expect(error.message).toContain('Invalid URL');
    expect(error.message).not.toContain('REST root');
    await client.close();
    const proxied = createApiClient({ url: server?.url.replace(/\/sharing\/rest$/, '/api') ?? '', credentials: { type: 'token', token: TOKEN }, sleep: recordingSleep().sleep });
    try {
      expect((await failure(proxied.get('/content/items/missing'))).message).not.toContain('REST root');
    } finally {
      await proxied.close();
    }
  });
});

describe('authentication', () => {
  it('gets a token with username/password, renews it once on 498 and repeats the request once', async () => {
    let issued = 0;
    const { server, client } = await setup(
      (req, res) => {
        if (req.pathname === '/generateToken') {
          issued += 1;
          return sendJson(res, { token: `user-token-${issued}`, expires: Date.now() + 3_600_000, ssl: false });
        }
        if (req.headers['x-esri-authorization'] === 'Bearer user-token-1') {
          return sendJson(res, { error: { code: 498, message: 'Invalid token.', details: [] } });
        }
        sendJson(res, { ok: true });
      },
      { credentials: { type: 'password', username: 'admin', password: 'pa ss&word' }, referer: 'my-referer' },
    );
    expect(await client.get('/portals/self')).toEqual({ ok: true });
    const tokenRequest = server.requests[0];
    expect(tokenRequest?.method).toBe('POST');
    expect(tokenRequest?.pathname).toBe('/generateToken');
    expect(tokenRequest?.headers['x-esri-authorization']).toBeUndefined();
    expect(tokenRequest?.headers['referer']).toBe('my-referer');
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      username: 'admin',
      password: 'pa ss&word',
      client: 'referer',
      referer: 'my-referer',
      expiration: '60',
      f: 'json',
    });
    expect(server.requests.map((r) => [r.pathname, r.headers['x-esri-authorization']])).toEqual([
      ['/generateToken', undefined],
      ['/portals/self', 'Bearer user-token-1'],
      ['/generateToken', undefined],
      ['/portals/self', 'Bearer user-token-2'],
    ]);
  });

  it('does not loop when the renewed token is rejected too', async () => {
    let issued = 0;
    const { server, client } = await setup(
      (req, res) => {
        if (req.pathname === '/generateToken') return sendJson(res, { token: `t-${++issued}-abcdef` });
        sendJson(res, { error: { code: 498, message: 'Invalid token.' } });
      },
      { credentials: { type: 'password', username: 'u', password: 'p-secret' } },
    );
    const error = await failure(client.get('/a'));
    expect(error.code).toBe(498);
    expect(server.requests).toHaveLength(4);
  });

  it('uses oauth2/token with client credentials and renews on an HTTP 498 status', async () => {
    let issued = 0;
    const { server, client } = await setup(
      (req, res) => {
        if (req.pathname === '/oauth2/token') {
          issued += 1;
          return sendJson(res, { access_token: `app-token-${issued}`, expires_in: 7200 });
        }
        if (req.headers['x-esri-authorization'] === 'Bearer app-token-1') return sendJson(res, {}, 498);
        sendJson(res, { success: true, done: true });
      },
      { credentials: { type: 'client', clientId: 'app-id', clientSecret: 'app-secret' } },
    );
    const result = await client.send({ method: 'POST', path: '/portals/self/roles/r1/update', form: { name: 'N' }, response: 'json', idempotent: true });
    expect(result).toEqual({ type: 'json', body: { success: true, done: true } });
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]?.body))).toEqual({
      client_id: 'app-id',
      client_secret: 'app-secret',
      grant_type: 'client_credentials',
      f: 'json',
    });
    expect(server.requests.map((r) => r.pathname)).toEqual([
      '/oauth2/token',
      '/portals/self/roles/r1/update',
      '/oauth2/token',
      '/portals/self/roles/r1/update',
    ]);
    expect(server.requests[3]?.body).toBe('name=N&f=json');
  });

  it('shares one token request between concurrent calls', async () => {
    const { server, client } = await setup(
      (req, res) => (req.pathname === '/generateToken' ? sendJson(res, { token: 'shared-token' }) : sendJson(res, {})),
      { credentials: { type: 'password', username: 'u', password: 'p' } },
    );
    await Promise.all([client.get('/a'), client.get('/b'), client.get('/c')]);
    expect(server.requests.filter((r) => r.pathname === '/generateToken')).toHaveLength(1);
  });

  it('reports a rejected static token clearly, without renewing and without the token in the message', async () => {
    const { server, client } = await setup((_req, res) =>
      sendJson(res, { error: { code: 498, message: `Invalid token ${TOKEN}.`, details: [`token=${TOKEN}`] } }),
    );
    const error = await failure(client.get('/a'));
    expect(error.message).toContain('PORTALCTL_TOKEN');
    expect(error.message).toContain('cannot be renewed');
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify(error.details)).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(1);
  });

  it("an environment's credentials: the refusals name the variables they came from, not PORTALCTL_*", async () => {
    const rejected = await setup((_req, res) => sendJson(res, { error: { code: 498, message: 'Invalid token.', details: [] } }), {
      credentials: credentialsFromVariables({ token: 'TEST_PORTAL_TOKEN' }, { TEST_PORTAL_TOKEN: TOKEN }, 'Environment test'),
    });
    expect((await failure(rejected.client.get('/a'))).message).toContain(
      "The token in TEST_PORTAL_TOKEN was rejected as invalid or expired (498) and cannot be renewed. Set a fresh TEST_PORTAL_TOKEN, or name a username and password, or a clientId and clientSecret, under the environment's credentials so portalctl can renew it.",
    );
    const refused = await setup((_req, res) => sendJson(res, { error: { code: 400, message: 'Unable to generate token.', details: ['Invalid username or password.'] } }), {
      credentials: credentialsFromVariables({ username: 'PROD_USER', password: 'PROD_PASSWORD' }, { PROD_USER: 'u', PROD_PASSWORD: 'pw-Zq81x' }, 'Environment production'),
    });
    const message = ((await refused.client.get('/a').catch((caught: unknown) => caught)) as Error).message;
    expect(message).toContain('Check PROD_USER and PROD_PASSWORD.');
    expect(message).not.toContain('PORTALCTL');
  });

  it('reports failed sign-in as a CredentialsError without the password', async () => {
    const { client } = await setup(
      (_req, res) => sendJson(res, { error: { code: 400, message: 'Unable to generate token for pw-Zq81x.', details: ['Invalid username or password.'] } }),
      { credentials: { type: 'password', username: 'u', password: 'pw-Zq81x' } },
    );
    const error = await client.get('/a').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as Error).message).toContain('PORTALCTL_USERNAME and PORTALCTL_PASSWORD');
    expect((error as Error).message).not.toContain('pw-Zq81x');
  });

  it('a refused sign-in whose password ends with a line break says so (a secret copied with one), without the password', async () => {
    const { client } = await setup((_req, res) => sendJson(res, { error: { code: 400, message: 'Unable to generate token.', details: ['Invalid username or password.'] } }), {
      credentials: { type: 'password', username: 'u', password: 'pw-Zq81x\n' },
    });
    const message = ((await client.get('/a').catch((caught: unknown) => caught)) as Error).message;
    expect(message).toContain('\n  The password given begins or ends with a space or a line break, as a secret copied with one does.');
    expect(message).not.toContain('pw-Zq81x');
  });

  it('never passes the token or form values to onRequest', async () => {
    const events: RequestEvent[] = [];
    const { client } = await setup((_req, res) => sendJson(res, { success: true }), { onRequest: (event) => events.push(event) });
    await client.send({ method: 'POST', path: '/p', form: { secretish: 'value-123' }, response: 'json', idempotent: true });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ method: 'POST', path: '/p', status: 200, attempt: 1 });
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(JSON.stringify(events)).not.toContain('value-123');
  });
});

describe('URL policy', () => {
  it('refuses plain http to a remote host and says to use https or --insecure', () => {
    const create = (url: string, insecure = false) =>
      createApiClient({ url, credentials: { type: 'token', token: TOKEN }, insecure });
    expect(() => create('http://gis.example.com/portal/sharing/rest')).toThrow(PortalUrlError);
    expect(() => create('http://gis.example.com/portal/sharing/rest')).toThrow(/https.*--insecure/);
    expect(() => create('ftp://gis.example.com/')).toThrow(PortalUrlError);
    expect(() => create('https://user:pw@gis.example.com/')).toThrow(PortalUrlError);
    for (const url of ['http://127.0.0.1:7080/rest', 'http://localhost/rest', 'http://[::1]:8/rest', 'https://gis.example.com/rest/']) {
      const made = create(url);
      expect(made.url).toBe(url.replace(/\/$/, ''));
      void made.close();
    }
    const insecure = create('http://gis.example.com/rest', true);
    expect(insecure.url).toBe('http://gis.example.com/rest');
    void insecure.close();
  });
});

describe('token renewal under concurrency', () => {
  it('renews once when several concurrent requests get 498 with the same token', async () => {
    let issued = 0;
    const { server, client } = await setup(
      (req, res) => {
        if (req.pathname === '/generateToken') return sendJson(res, { token: `tok-${++issued}-abcdef` });
        if (req.headers['x-esri-authorization'] === 'Bearer tok-1-abcdef') return sendJson(res, { error: { code: 498, message: 'Invalid token.' } });
        sendJson(res, { ok: req.pathname });
      },
      { credentials: { type: 'password', username: 'u', password: 'p-word' } },
    );
    const results = await Promise.all(['/a', '/b', '/c', '/d'].map((path) => client.get(path)));
    expect(results).toEqual([{ ok: '/a' }, { ok: '/b' }, { ok: '/c' }, { ok: '/d' }]);
    expect(server.requests.filter((r) => r.pathname === '/generateToken')).toHaveLength(2);
  });
});

describe('stopping reads (stopReading)', () => {
  it('abandons a read in flight and starts none after, cuts a wait to retry short, and lets a write in flight finish', async () => {
    const stop = new AbortController();
    const arrived: string[] = [];
    let answerWrite: (() => void) | undefined;
    const { server, client } = await setup(
      (req, res) => {
        arrived.push(`${req.method} ${req.url ?? ''}`);
        // Reads never answer: only stopping them ends them. The write answers when told.
        if (req.method === 'POST') answerWrite = () => sendJson(res, { success: true });
      },
      { stopReading: stop.signal, sleep: () => new Promise<void>(() => undefined) },
    );
    const read = client.get('/portals/self').catch((error: unknown) => error);
    const write = client.send({ method: 'POST', path: '/portals/self/update', form: { description: 'x' }, idempotent: false, response: 'json' });
    await waitUntil(() => arrived.length === 2);
    stop.abort();
    const stopped = await read;
    expect(stopped).toBeInstanceOf(ReadingStoppedError);
    expect((stopped as Error).message).toBe('Reading GET /portals/self was stopped.');
    answerWrite?.();
    expect(await write).toEqual({ type: 'json', body: { success: true } });
    await expect(client.get('/community/self')).rejects.toThrow(new ReadingStoppedError('Reading GET /community/self was stopped.'));
    expect(server.requests.map((request) => request.method)).toEqual(['GET', 'POST']);
  });

  it('cuts short a wait to retry a read', async () => {
    const stop = new AbortController();
    const { server, client } = await setup((_req, res) => sendJson(res, { error: { code: 503, message: 'busy' } }, 503), {
      stopReading: stop.signal,
      // The wait never ends by itself; it is told when it starts.
      sleep: () => new Promise<void>(() => undefined),
      onRetryWait: () => stop.abort(),
    });
    await expect(client.get('/portals/self')).rejects.toBeInstanceOf(ReadingStoppedError);
    expect(server.requests).toHaveLength(1);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}
