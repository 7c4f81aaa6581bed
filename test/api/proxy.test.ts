/**
 * A proxy between portalctl and the portal: which one the environment names for a portal URL
 * (curl's variables and no_proxy rules), requests through it (a CONNECT tunnel, its sign-in from
 * the URL), and a proxy that refuses: said at once, not retried, with what to do.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiNetworkError, ProxyUrlError, createApiClient, proxyFromEnv, type ApiClient } from '../../src/api/index.js';
import { startProxy, startSocksProxy, type TestProxy, type TestSocksProxy } from '../support/proxy.js';
import { REST_PREFIX } from '../support/loopback.js';
import { recordingSleep, sendJson, startServer, type TestServer } from './helpers.js';

describe('proxyFromEnv', () => {
  const portal = new URL('https://gis.example.com/portal/sharing/rest');

  it('https_proxy for an https portal, http_proxy for an http one, the lower-case name first', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128' }, portal)).toEqual({ url: 'http://lower:3128', variable: 'https_proxy' });
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://upper:3128' }, portal)).toEqual({ url: 'http://upper:3128', variable: 'HTTPS_PROXY' });
    expect(proxyFromEnv({ HTTP_PROXY: 'http://plain:3128' }, portal)).toBeUndefined();
    expect(proxyFromEnv({ HTTP_PROXY: 'http://plain:3128' }, new URL('http://gis.example.com/portal/sharing/rest'))).toEqual({ url: 'http://plain:3128', variable: 'HTTP_PROXY' });
    expect(proxyFromEnv({}, portal)).toBeUndefined();
    expect(proxyFromEnv({ https_proxy: '' }, portal)).toBeUndefined();
  });

  it('none for a host no_proxy names: *, the host, a parent domain (with or without a leading dot or *.), a port', () => {
    const through = { https_proxy: 'http://proxy:3128' };
    for (const noProxy of ['*', 'gis.example.com', 'example.com', '.example.com', '*.example.com', 'other.org, example.com', 'other.org example.com', 'GIS.EXAMPLE.COM:443']) {
      expect(proxyFromEnv({ ...through, no_proxy: noProxy }, portal), noProxy).toBeUndefined();
    }
    for (const noProxy of ['ample.com', 'gis.example.com:7443', 'other.org', 'www.gis.example.com']) {
      expect(proxyFromEnv({ ...through, NO_PROXY: noProxy }, portal), noProxy).toEqual({ url: 'http://proxy:3128', variable: 'https_proxy' });
    }
    expect(proxyFromEnv({ ...through, no_proxy: 'gis.example.com:7443' }, new URL('https://gis.example.com:7443/arcgis/sharing/rest'))).toBeUndefined();
  });

  it('the URL as curl takes it: without a scheme, http://; socks5h:// and socks:// as socks5://; another scheme or no URL refused, naming the variable', () => {
    expect(proxyFromEnv({ https_proxy: 'proxy.corp:3128' }, portal)?.url).toBe('http://proxy.corp:3128');
    expect(proxyFromEnv({ https_proxy: ' https://ops:pw@proxy.corp:3129 ' }, portal)?.url).toBe('https://ops:pw@proxy.corp:3129');
    expect(proxyFromEnv({ https_proxy: 'socks5h://ops:pw@proxy.corp:1080' }, portal)?.url).toBe('socks5://ops:pw@proxy.corp:1080');
    expect(proxyFromEnv({ https_proxy: 'socks://proxy.corp' }, portal)?.url).toBe('socks5://proxy.corp');
    const refused = (env: NodeJS.ProcessEnv): string => {
      try {
        proxyFromEnv(env, portal);
      } catch (error) {
        expect(error).toBeInstanceOf(ProxyUrlError);
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refused({ HTTPS_PROXY: 'socks4://proxy.corp:1080' })).toBe('HTTPS_PROXY names a socks4:// proxy (proxy.corp:1080); portalctl goes through an http://, https:// or socks5:// proxy.');
    expect(refused({ https_proxy: 'http://ops:s3cret@proxy corp:3128' })).toBe('https_proxy is not a proxy URL ("http://***@proxy corp:3128"); expected one such as http://proxy.example.com:3128.');
    // A password with an unencoded / ? # or @ is what makes the URL unparseable: masked all the same, up to the last @.
    expect(refused({ https_proxy: 'http://ops:s3/cret@proxy.corp:3128' })).toBe('https_proxy is not a proxy URL ("http://***@proxy.corp:3128"); expected one such as http://proxy.example.com:3128.');
    expect(refused({ https_proxy: 'ops:s3c#re@t/x@proxy.corp:3128' })).toBe('https_proxy is not a proxy URL ("***@proxy.corp:3128"); expected one such as http://proxy.example.com:3128.');
    // A proxy the portal does not go through is not judged.
    expect(proxyFromEnv({ https_proxy: 'socks4://proxy.corp:1080', no_proxy: 'example.com' }, portal)).toBeUndefined();
  });

  it('none for a loopback portal (the emulator, a tunnel), whatever the environment says', () => {
    for (const host of ['127.0.0.1:7080', 'localhost', '[::1]:7443']) {
      expect(proxyFromEnv({ https_proxy: 'http://proxy:3128', http_proxy: 'http://proxy:3128' }, new URL(`https://${host}/portal/sharing/rest`)), host).toBeUndefined();
    }
  });
});

describe('requests through a proxy', () => {
  let server: TestServer | undefined;
  let proxy: TestProxy | undefined;
  let client: ApiClient | undefined;
  afterEach(async () => {
    await client?.close();
    await proxy?.close();
    await server?.close();
    client = proxy = server = undefined;
  });

  /** A portal named by a host that does not resolve: only the proxy, which tunnels to the test server, can reach it. */
  async function through(refuseWith?: number, { signedIn = true } = {}): Promise<{ client: ApiClient; proxy: TestProxy; server: TestServer; delays: number[] }> {
    server = await startServer((_req, res) => sendJson(res, { id: '0123456789ABCDEF', name: 'Through the proxy' }));
    const { port } = new URL(server.url);
    proxy = await startProxy({ target: { host: '127.0.0.1', port: Number(port) }, ...(refuseWith === undefined ? {} : { refuseWith }) });
    const sleeper = recordingSleep();
    const proxyUrl = new URL(proxy.url);
    if (signedIn) {
      proxyUrl.username = 'ops';
      proxyUrl.password = 's3cret';
    }
    client = createApiClient({
      url: `http://portal.invalid${REST_PREFIX}`,
      insecure: true,
      credentials: { type: 'token', token: 'token-through-proxy' },
      proxy: proxyUrl.toString(),
      sleep: sleeper.sleep,
      baseDelayMs: 10,
    });
    return { client, proxy, server, delays: sleeper.delays };
  }

  it('goes through a CONNECT tunnel, signing in to the proxy with the user name and password of its URL', async () => {
    const { client, proxy, server } = await through();
    expect(await client.get('/portals/self')).toEqual({ id: '0123456789ABCDEF', name: 'Through the proxy' });
    expect(proxy.tunnels[0]).toEqual({ authority: 'portal.invalid:80', authorization: `Basic ${Buffer.from('ops:s3cret').toString('base64')}` });
    expect(server.requests.map((request) => request.pathname)).toEqual(['/portals/self']);
    // The portal's token goes inside the tunnel, never to the proxy.
    expect(server.requests[0]?.headers['x-esri-authorization']).toBe('Bearer token-through-proxy');
  });

  it('a proxy that refuses (407) is said at once with what to do, never retried, its password never shown', async () => {
    const { client, proxy, delays } = await through(407);
    const error = await client.get('/portals/self').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiNetworkError);
    const message = (error as ApiNetworkError).message;
    expect(message).toContain(`GET /portals/self failed: the proxy ${new URL(proxy.url).host} refused the connection to portal.invalid (HTTP 407 Proxy Authentication Required)`);
    // It was given one: the advice is to check it.
    expect(message).toContain("The proxy did not accept the user name and password in the proxy's URL: check them");
    expect(message).not.toContain('s3cret');
    expect((error as ApiNetworkError).outcomeUnknown).toBe(false);
    expect(proxy.tunnels).toHaveLength(1);
    expect(delays).toEqual([]);
  });
  it('a proxy that wants a sign-in none was given (407) is told how to give one; one that refuses the portal (403), how to be let through', async () => {
    const failureOf = async (refuseWith: number, signedIn: boolean): Promise<string> => {
      const made = await through(refuseWith, { signedIn });
      const error = await made.client.get('/portals/self').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ApiNetworkError);
      expect(made.proxy.tunnels).toHaveLength(1);
      expect(made.delays).toEqual([]);
      // Closed here: the next call of `through` starts its own.
      await made.client.close();
      await made.proxy.close();
      await made.server.close();
      client = proxy = server = undefined;
      return (error as ApiNetworkError).message;
    };
    const unsigned = await failureOf(407, false);
    expect(unsigned).toMatch(/The proxy asks for a sign-in: give its user name and password in the proxy's URL \(http_proxy=http:\/\/user:password@127\.0\.0\.1:\d+\)\./);
    const forbidden = await failureOf(403, true);
    expect(forbidden).toContain('(HTTP 403 Forbidden)');
    expect(forbidden).toContain('The proxy does not let this machine reach portal.invalid: ask for it to be allowed, or, if the portal is reached directly, name its host in no_proxy.');
  });
});

describe('requests through a SOCKS5 proxy', () => {
  let server: TestServer | undefined;
  let proxy: TestSocksProxy | undefined;
  let client: ApiClient | undefined;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  beforeEach(() => void process.on('warning', onWarning));
  afterEach(async () => {
    process.off('warning', onWarning);
    await client?.close();
    await proxy?.close();
    await server?.close();
    client = proxy = server = undefined;
  });

  /** As `through` above: the portal's host does not resolve, the proxy tunnels to the test server. */
  async function throughSocks(password: string, { notAllowed = false } = {}): Promise<{ client: ApiClient; proxy: TestSocksProxy; server: TestServer; delays: number[] }> {
    server = await startServer((_req, res) => sendJson(res, { id: '0123456789ABCDEF', name: 'Through SOCKS' }));
    proxy = await startSocksProxy({ target: { host: '127.0.0.1', port: Number(new URL(server.url).port) }, password: 's3cret', notAllowed });
    const sleeper = recordingSleep();
    // Written as curl users write it; proxyFromEnv makes it socks5://.
    const proxyUrl = proxyFromEnv({ https_proxy: proxy.url.replace('socks5://', `socks5h://ops:${password}@`) }, new URL(`https://portal.invalid${REST_PREFIX}`))?.url;
    client = createApiClient({
      url: `http://portal.invalid${REST_PREFIX}`,
      insecure: true,
      credentials: { type: 'token', token: 'token-through-socks' },
      ...(proxyUrl ? { proxy: proxyUrl } : {}),
      sleep: sleeper.sleep,
      baseDelayMs: 10,
    });
    return { client, proxy, server, delays: sleeper.delays };
  }

  it('asks the proxy for the portal by name (the proxy resolves it), signed in with the URL\'s user name and password; no warning on stderr', async () => {
    const { client, proxy, server } = await throughSocks('s3cret');
    expect(await client.get('/portals/self')).toEqual({ id: '0123456789ABCDEF', name: 'Through SOCKS' });
    expect(proxy.tunnels).toEqual([{ authority: 'portal.invalid:80', username: 'ops' }]);
    expect(server.requests[0]?.headers['x-esri-authorization']).toBe('Bearer token-through-socks');
    expect(warnings).toEqual([]);
  });

  it('a refused sign-in is said at once with what to do, never retried, its password never shown', async () => {
    const { client, proxy, server, delays } = await throughSocks('wrong-password');
    const error = await client.get('/portals/self').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiNetworkError);
    const message = (error as ApiNetworkError).message;
    expect(message).toContain(`GET /portals/self failed: the proxy ${new URL(proxy.url).host} refused the connection to portal.invalid (SOCKS5: Authentication failed)`);
    expect(message).toContain("The proxy did not accept the user name and password in the proxy's URL: check them");
    expect(message).not.toContain('wrong-password');
    expect(delays).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('a SOCKS5 proxy whose rules refuse the portal (reply 2) is said at once, with how to be let through', async () => {
    const { client, proxy, server, delays } = await throughSocks('s3cret', { notAllowed: true });
    const error = await client.get('/portals/self').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiNetworkError);
    const message = (error as ApiNetworkError).message;
    expect(message).toContain(`the proxy ${new URL(proxy.url).host} refused the connection to portal.invalid (SOCKS5: SOCKS5 connection failed: `);
    expect(message).toContain('The proxy does not let this machine reach portal.invalid');
    expect(proxy.tunnels).toEqual([{ authority: 'portal.invalid:80', username: 'ops' }]);
    expect(delays).toEqual([]);
    expect(server.requests).toEqual([]);
  });
});
