/** Shared helpers for the emulator server tests: a raw HTTP client and a small route list. */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { forwardingHandle } from '../../support/handle.js';
import { fileURLToPath } from 'node:url';
import { PortalApiError } from '../../../src/emulator/errors.js';
import type { Route } from '../../../src/emulator/shared/types.js';
import { startEmulatorServer, type EmulatorServerOptions, type RunningEmulator } from '../../../src/emulator/server.js';

export const SAMPLE_DATA = fileURLToPath(new URL('../../../examples/emulator/portal.yaml', import.meta.url));
export const ORG_ID = '0123456789ABCDEF';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request with full control over headers (fetch would refuse to set Referer). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** One part of a multipart body: a field's text, or a file with its name and type. */
export type Part = string | { filename: string; contentType?: string; content: string | Uint8Array };

/** A multipart/form-data body written by hand (CRLF line ends, RFC 7578), so tests control every byte. */
export function multipartBody(parts: Record<string, Part>, boundary = 'EmulatorTestBoundary7MA4YWxk'): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, part] of Object.entries(parts)) {
    const head =
      typeof part === 'string'
        ? `Content-Disposition: form-data; name="${name}"\r\n`
        : `Content-Disposition: form-data; name="${name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`, 'utf8'));
    chunks.push(Buffer.from(typeof part === 'string' ? part : part.content));
    chunks.push(Buffer.from('\r\n', 'utf8'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return Buffer.concat(chunks);
}

/** POST a multipart/form-data body (raw bytes, with the boundary the content type names). */
export function postMultipart(url: string, body: Buffer, headers: Record<string, string> = {}, boundary = 'EmulatorTestBoundary7MA4YWxk'): Promise<RawResponse> {
  return send(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers }, body });
}

/** POST a form (values encoded like a client would). */
export function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

export function json(response: RawResponse): Record<string, unknown> {
  return JSON.parse(response.text) as Record<string, unknown>;
}

export function errorOf(response: RawResponse): { code: number; messageCode?: string; message: string; details: string[] } {
  const body = json(response);
  const error = body['error'];
  if (typeof error !== 'object' || error === null) throw new Error(`expected an error envelope, got ${response.text}`);
  return error as { code: number; messageCode?: string; message: string; details: string[] };
}

/** Routes that exercise the plumbing: echo, a write that can be refused or crash, a careless read, a file. */
export const testRoutes: Route[] = [
  {
    access: 'read',
    pattern: '/test/echo',
    handle: ({ params, files, rawBody, caller, now }) => ({
      type: 'json',
      body: {
        params,
        files: Object.fromEntries(Object.entries(files).map(([name, file]) => [name, { filename: file.filename, contentType: file.contentType, bytes: [...file.content] }])),
        rawBody: rawBody ?? null,
        username: caller.user.username,
        isDefaultAdmin: caller.isDefaultAdmin,
        customRole: caller.customRole?.id ?? null,
        now,
        privileges: {
          updateItems: caller.hasPrivilege('portal:admin:updateItems'),
          viewOrgItems: caller.hasPrivilege('portal:user:viewOrgItems'),
          createItem: caller.hasPrivilege('portal:user:createItem'),
          shareToGroup: caller.hasPrivilege('portal:user:shareToGroup'),
        },
      },
    }),
  },
  {
    access: 'write',
    pattern: '/portals/:portalId/test/rename',
    handle: ({ params, pathParams, state }) => {
      state.organization.name = params['name'] ?? 'renamed';
      state.users.pop();
      if (params['fail'] === 'api') throw new PortalApiError(400, 'Rename refused', 'TEST_0001', ['because the test said so']);
      if (params['fail'] === 'crash') throw new TypeError('boom');
      return { type: 'json', body: { success: true, portalId: pathParams['portalId'] ?? null } };
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/test/careless-read',
    handle: ({ state }) => {
      state.organization.name = 'changed by a read';
      return { type: 'json', body: { name: state.organization.name } };
    },
  },
  {
    access: 'write',
    pattern: '/test/download',
    handle: () => ({ type: 'file', filename: 'participant.invite', contentType: 'application/octet-stream', body: 'INVITE-CONTENT' }),
  },
];

export function startTestEmulator(options: Partial<EmulatorServerOptions> = {}): Promise<RunningEmulator> {
  return startEmulatorServer({ data: SAMPLE_DATA, routes: testRoutes, ...options });
}

export async function control(emulator: RunningEmulator, method: string, path: string, body?: unknown): Promise<RawResponse> {
  return send(`${emulator.controlUrl}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
}

/**
 * One emulator for the whole file, reset to its data before every test (cheaper than one per
 * test). The handle forwards to the running emulator, so tests use it as one.
 */
export function emulatorPerFile(start: () => Promise<RunningEmulator> = startTestEmulator): RunningEmulator {
  let running: RunningEmulator | undefined;
  const active = (): RunningEmulator => {
    if (!running) throw new Error('the emulator runs only while the tests of its file run');
    return running;
  };
  beforeAll(async () => {
    running = await start();
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
  });
  beforeEach(async () => {
    const reset = await control(active(), 'POST', '/reset');
    expect(reset.status).toBe(200);
  });
  return forwardingHandle(active);
}
