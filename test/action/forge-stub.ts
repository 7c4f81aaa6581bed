/**
 * A local stand-in for the two comment endpoints the CI scripts call: GitHub's issue comments
 * (GET/POST /repos/:owner/:repo/issues/:n/comments, PATCH /repos/:owner/:repo/issues/comments/:id)
 * and GitLab's merge-request notes (GET/POST /api/v4/projects/:id/merge_requests/:iid/notes,
 * PUT .../notes/:id). Comments live in memory; every request is logged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredComment {
  id: number;
  body: string;
}

export interface LoggedCall {
  method: string;
  path: string;
  authorization: string | undefined;
  privateToken: string | undefined;
  body?: { body?: string };
}

export interface ForgeStub {
  url: string;
  comments: StoredComment[];
  calls: LoggedCall[];
  /** Answer every write with this status (e.g. 403, as for a fork's read-only token). */
  refuseWrites?: number;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

export async function startForgeStub(expected: { token: string }): Promise<ForgeStub> {
  let nextId = 1000;
  const stub: ForgeStub = { url: '', comments: [], calls: [], close: async () => undefined };
  const send = (response: ServerResponse, status: number, value: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(value));
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    const text = await readBody(request);
    const body = text ? (JSON.parse(text) as { body?: string }) : undefined;
    const call: LoggedCall = { method: request.method ?? '', path: url.pathname, authorization: request.headers.authorization, privateToken: request.headers['private-token'] as string | undefined, ...(body ? { body } : {}) };
    stub.calls.push(call);
    const authorized = call.authorization === `Bearer ${expected.token}` || call.privateToken === expected.token;
    if (!authorized) return send(response, 401, { message: 'Bad credentials' });
    const list = /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/.test(url.pathname) || /^\/api\/v4\/projects\/[^/]+\/merge_requests\/\d+\/notes$/.test(url.pathname);
    const one = url.pathname.match(/^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/) ?? url.pathname.match(/^\/api\/v4\/projects\/[^/]+\/merge_requests\/\d+\/notes\/(\d+)$/);
    if (request.method !== 'GET' && stub.refuseWrites) return send(response, stub.refuseWrites, { message: 'Resource not accessible by integration' });
    if (list && request.method === 'GET') {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return send(response, 200, stub.comments.slice((page - 1) * perPage, page * perPage));
    }
    if (list && request.method === 'POST' && typeof body?.body === 'string') {
      const comment = { id: nextId++, body: body.body };
      stub.comments.push(comment);
      return send(response, 201, comment);
    }
    if (one && (request.method === 'PATCH' || request.method === 'PUT') && typeof body?.body === 'string') {
      const comment = stub.comments.find((entry) => entry.id === Number(one[1]));
      if (!comment) return send(response, 404, { message: 'Not Found' });
      comment.body = body.body;
      return send(response, 200, comment);
    }
    return send(response, 404, { message: `no route ${request.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}
