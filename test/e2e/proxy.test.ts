/**
 * The CLI behind a corporate proxy: the proxy named by http_proxy/https_proxy carries every
 * request to a portal whose host only the proxy can reach (`portal.invalid`, tunnelled to the
 * emulator), and a loopback portal is reached directly whatever the environment says.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REST_PREFIX } from '../support/loopback.js';
import { startProxy, startSocksProxy, type TestProxy } from '../support/proxy.js';
import { startCliPortal, THREE_CHANGES, type CliPortal } from '../support/cli.js';

describe('through a proxy', () => {
  let portal: CliPortal;
  let proxy: TestProxy;
  beforeEach(async () => {
    portal = await startCliPortal();
    proxy = await startProxy({ target: { host: '127.0.0.1', port: Number(new URL(portal.url).port) } });
  });
  afterEach(async () => {
    await proxy.close();
    await portal.dispose();
  });

  it('HTTP_PROXY carries plan and apply to a portal only the proxy reaches; a loopback portal is reached directly', async () => {
    const config = await portal.writeConfig(THREE_CHANGES);
    const behind = { portal: `http://portal.invalid${REST_PREFIX}`, env: { HTTP_PROXY: proxy.url } };
    const plan = await portal.run(['plan', config, '--insecure', '--detailed-exitcode'], behind);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    // --verbose says which proxy, never its password.
    const verbose = await portal.run(['plan', config, '--insecure', '--verbose'], { ...behind, env: { HTTP_PROXY: proxy.url.replace('http://', 'http://ops:s3cret@') } });
    expect(verbose.stderr).toContain(`Reaching http://portal.invalid${REST_PREFIX} through the proxy ${new URL(proxy.url).host} (from the environment's HTTP_PROXY).\n`);
    expect(verbose.stderr).not.toContain('s3cret');
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels.map((tunnel) => tunnel.authority))).toEqual(new Set(['portal.invalid:80']));
    const apply = await portal.run(['apply', config, '--insecure', '--auto-approve'], behind);
    expect(apply.code, apply.stderr).toBe(0);
    expect((await portal.requests({ writesOnly: true })).map((entry) => entry.path)).toContain('/portals/self/securityPolicy/update');

    const tunnelled = proxy.tunnels.length;
    const direct = await portal.run(['plan', config, '--detailed-exitcode'], { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
    expect(direct.code, direct.stderr).toBe(0);
    expect(proxy.tunnels).toHaveLength(tunnelled);
  });

  it('a SOCKS5 proxy (socks5h://, as curl users write it) carries plan and apply, with nothing on stderr; a proxy URL of another kind is refused at once, naming the variable', async () => {
    const socks = await startSocksProxy({ target: { host: '127.0.0.1', port: Number(new URL(portal.url).port) } });
    try {
      const config = await portal.writeConfig(THREE_CHANGES);
      const behind = { portal: `http://portal.invalid${REST_PREFIX}`, env: { http_proxy: socks.url.replace('socks5://', 'socks5h://') } };
      const plan = await portal.run(['plan', config, '--insecure', '--detailed-exitcode'], behind);
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(2);
      const apply = await portal.run(['apply', config, '--insecure', '--auto-approve'], behind);
      expect(apply.code, apply.stderr).toBe(0);
      expect(apply.stderr).toBe('');
      expect(new Set(socks.tunnels.map((tunnel) => tunnel.authority))).toEqual(new Set(['portal.invalid:80']));
    } finally {
      await socks.close();
    }
    const config = await portal.writeConfig(THREE_CHANGES, 'socks4');
    const socks4 = await portal.run(['plan', config, '--insecure'], { portal: `http://portal.invalid${REST_PREFIX}`, env: { HTTP_PROXY: 'socks4://127.0.0.1:1080' } });
    expect(socks4.code).toBe(1);
    expect(socks4.stderr).toBe('Error: HTTP_PROXY names a socks4:// proxy (127.0.0.1:1080); portalctl goes through an http://, https:// or socks5:// proxy.\n');
  });
});
