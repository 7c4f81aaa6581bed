/**
 * A forward proxy on loopback, as a corporate one: it opens tunnels (CONNECT) and logs each,
 * with the Proxy-Authorization it was given. Every tunnel goes to `target` (host:port), whatever
 * host was asked for, so a portal named by a host that does not resolve is reached through it
 * and only through it. `refuseWith` answers every CONNECT with that status instead.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
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
