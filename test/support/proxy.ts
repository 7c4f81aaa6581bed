/**
 * A forward proxy on loopback, as a corporate one: it opens tunnels (CONNECT) and logs each,
 * with the Proxy-Authorization it was given. Every tunnel goes to `target` (host:port), whatever
 * host was asked for, so a portal named by a host that does not resolve is reached through it
 * and only through it. `refuseWith` answers every CONNECT with that status instead.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  tunnels: { authority: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startProxy({ target, refuseWith }: { target: { host: string; port: number }; refuseWith?: number }): Promise<TestProxy> {
  const tunnels: TestProxy['tunnels'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push({ authority: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${refuseWith} Refused\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = connect(target.port, target.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface TestSocksProxy {
  /** socks5://127.0.0.1:PORT */
  url: string;
  /** Each CONNECT asked for (host:port, the host as the client sent it) and the user name it signed in with. */
  tunnels: { authority: string; username: string | undefined }[];
  close(): Promise<void>;
}

/**
 * A SOCKS5 proxy (RFC 1928, with the user name and password sign-in of RFC 1929) on loopback,
 * tunnelling every CONNECT to `target` like startProxy. With `password` set, only that password
 * is let in (a wrong one is refused as RFC 1929 says: status 1, then the connection closed).
 */
export async function startSocksProxy({ target, password }: { target: { host: string; port: number }; password?: string }): Promise<TestSocksProxy> {
  const tunnels: TestSocksProxy['tunnels'] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void negotiate(client).catch(() => client.destroy());
  });
  /** Reads exactly `count` bytes from what the client sent, waiting for them to arrive. */
  const reader = (client: Socket) => {
    let buffered = Buffer.alloc(0);
    let wake: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      wake?.();
    });
    client.pause();
    return async (count: number): Promise<Buffer> => {
      client.resume();
      while (buffered.length < count) {
        if (client.destroyed) throw new Error('closed');
        await new Promise<void>((resolve) => (wake = resolve));
      }
      client.pause();
      const bytes = buffered.subarray(0, count);
      buffered = buffered.subarray(count);
      return bytes;
    };
  };
  async function negotiate(client: Socket): Promise<void> {
    const read = reader(client);
    const [, methodCount = 0] = await read(2);
    const methods = [...(await read(methodCount))];
    const signIn = methods.includes(2);
    client.write(Buffer.from([5, signIn ? 2 : 0]));
    let username: string | undefined;
    if (signIn) {
      const [, userLength = 0] = await read(2);
      username = (await read(userLength)).toString();
      const [passwordLength = 0] = await read(1);
      const given = (await read(passwordLength)).toString();
      if (password !== undefined && given !== password) {
        client.end(Buffer.from([1, 1]));
        return;
      }
      client.write(Buffer.from([1, 0]));
    }
    const [, , , addressType] = await read(4);
    let host: string;
    if (addressType === 3) host = (await read((await read(1))[0] ?? 0)).toString();
    else if (addressType === 1) host = [...(await read(4))].join('.');
    else host = (await read(16)).toString('hex');
    const port = (await read(2)).readUInt16BE(0);
    tunnels.push({ authority: `${host}:${port}`, username });
    const upstream = connect(target.port, target.host, () => {
      client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
      client.removeAllListeners('data');
      upstream.pipe(client);
      client.pipe(upstream);
      client.resume();
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
