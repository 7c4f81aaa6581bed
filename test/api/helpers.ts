import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback, REST_PREFIX } from '../support/loopback.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: ReceivedRequest, res: ServerResponse) => void;

export interface TestServer {
  /** REST root of the server, e.g. http://127.0.0.1:PORT/portal/sharing/rest */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}


/** A node:http server on 127.0.0.1 port 0 that records every request and answers with `handler`. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const parsed = new URL(req.url ?? '/', 'http://localhost');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        pathname: parsed.pathname.startsWith(REST_PREFIX) ? parsed.pathname.slice(REST_PREFIX.length) : parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      handler(received, res);
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}

export function sendJson(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Records requested delays instead of waiting, so retry tests are fast and not timed. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}
