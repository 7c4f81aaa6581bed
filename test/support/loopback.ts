import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a portal's REST API sits below its host. */
export const REST_PREFIX = '/portal/sharing/rest';

/** Starts `server` on 127.0.0.1 at a free port: its REST root, and a close that drops open connections. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${REST_PREFIX}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
