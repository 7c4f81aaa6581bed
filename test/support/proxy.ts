/**
 * Forward proxies on loopback, as a corporate network has: an HTTP proxy that opens tunnels
 * (CONNECT) and a SOCKS5 one, each logging the tunnels asked for and how they signed in. Every
 * tunnel goes to `target` (host:port), whatever host was asked for, so a portal named by a host
 * that does not resolve is reached through the proxy and only through it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What both proxies keep: every socket, to destroy them at close, and the tunnel to the target. */
class Sockets {
  private readonly open = new Set<Socket>();

  constructor(private readonly target: { host: string; port: number }) {}

  add(socket: Socket): Socket {
    this.open.add(socket);
    socket.on('close', () => this.open.delete(socket));
    return socket;
  }

  /** Connects to the target; once connected, `ready` answers the client, then the two are piped together. */
  tunnel(client: Socket, ready: (upstream: Socket) => void): void {
    const upstream = this.add(
      connect(this.target.port, this.target.host, () => {
        ready(upstream);
        upstream.pipe(client);
        client.pipe(upstream);
      }),
    );
    upstream.on('error', () => client.destroy());
  }

  /** Listens on a free loopback port; returns the port and a close that ends every connection. */
  async listen(server: Server | NetServer): Promise<{ port: number; close(): Promise<void> }> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      port,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of this.open) socket.destroy();
          server.close(() => resolve());
        }),
    };
  }
}

export interface TestProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  tunnels: { authority: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/** The HTTP proxy; `refuseWith` answers every CONNECT with that status instead. */
export async function startProxy({ target, refuseWith }: { target: { host: string; port: number }; refuseWith?: number }): Promise<TestProxy> {
  const tunnels: TestProxy['tunnels'] = [];
  const sockets = new Sockets(target);
  const server = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push({ authority: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    sockets.add(client).on('error', () => client.destroy());
    if (refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${refuseWith} Refused\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    sockets.tunnel(client, (upstream) => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
    });
  });
  const { port, close } = await sockets.listen(server);
  return { url: `http://127.0.0.1:${port}`, tunnels, close };
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
 * `notAllowed` answers every CONNECT with reply 2, "connection not allowed by ruleset".
 */
export async function startSocksProxy({ target, password, notAllowed = false }: { target: { host: string; port: number }; password?: string; notAllowed?: boolean }): Promise<TestSocksProxy> {
  const tunnels: TestSocksProxy['tunnels'] = [];
  const sockets = new Sockets(target);
  const server = createNetServer((client) => {
    sockets.add(client).on('error', () => client.destroy());
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
    if (notAllowed) {
      client.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
      return;
    }
    sockets.tunnel(client, () => {
      client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
      client.removeAllListeners('data');
      client.resume();
    });
  }
  const { port, close } = await sockets.listen(server);
  return { url: `socks5://127.0.0.1:${port}`, tunnels, close };
}
