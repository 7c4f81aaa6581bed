/** Reading and parsing an HTTP request into what the emulator routes on (no state involved). */
import type { IncomingMessage } from 'node:http';
import { requestToken } from '../auth.js';
import { responseFormat, type ResponseFormat } from './formats.js';
import { MalformedMultipartError, isMultipart, mediaType, readMultipart, type UploadedFile } from './multipart.js';

export const REST_ROOT = '/portal/sharing/rest';
export const CONTROL_ROOT = '/_emulator';
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ParsedRequest {
  method: string;
  /** Path relative to the REST root; undefined when the request is outside it. */
  restPath: string | undefined;
  fullPath: string;
  params: Record<string, string>;
  /** File parts of a multipart body, by field name (their text is in `params` too). */
  files: Record<string, UploadedFile>;
  rawBody?: string;
  /** Set when a multipart body could not be read: the answer, whatever the route. */
  bodyError?: MalformedMultipartError;
  format: ResponseFormat;
  token: string | undefined;
  /** True when the token came as a form or query field (logged as "***"), not as a header. */
  tokenInParams: boolean;
  referer: string | undefined;
  /** `http(s)://host[:port]` as the client reached the emulator (its Host header). */
  origin: string;
}

export interface RequestBody {
  text: string;
  /** The body's bytes (empty when too large); a multipart body's file parts need them, not the text. */
  raw: Buffer;
  bytes: number;
  tooLarge: boolean;
}

export function splitUrl(rawUrl: string): { fullPath: string; query: string } {
  const queryStart = rawUrl.indexOf('?');
  return queryStart === -1 ? { fullPath: rawUrl, query: '' } : { fullPath: rawUrl.slice(0, queryStart), query: rawUrl.slice(queryStart + 1) };
}

export function isControlPath(fullPath: string): boolean {
  return fullPath === CONTROL_ROOT || fullPath.startsWith(`${CONTROL_ROOT}/`);
}

export async function parseRequest(request: IncomingMessage, method: string, fullPath: string, query: string, body: RequestBody): Promise<ParsedRequest> {
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) params[key] = value;
  let files: Record<string, UploadedFile> = {};
  let rawBody: string | undefined;
  let bodyError: MalformedMultipartError | undefined;
  const contentType = request.headers['content-type'];
  if (body.text !== '') {
    if (contentType !== undefined && isMultipart(contentType)) {
      // The same fields as a urlencoded form; a body that cannot be read is answered as such.
      try {
        const fields = await readMultipart(contentType, body.raw);
        Object.assign(params, fields.params);
        files = fields.files;
      } catch (error) {
        if (!(error instanceof MalformedMultipartError)) throw error;
        bodyError = error;
      }
    } else if (isFormBody(contentType, body.text)) {
      for (const [key, value] of new URLSearchParams(body.text)) params[key] = value;
    } else {
      rawBody = body.text;
    }
  }
  const token = requestToken(params, request.headers);
  const tokenInParams = params['token'] !== undefined && params['token'] !== '';
  const format = responseFormat(params['f']);
  delete params['f'];
  delete params['token'];
  delete files['f'];
  delete files['token'];
  const refererHeader = request.headers['referer'];
  return {
    method,
    restPath: restPathOf(fullPath),
    fullPath,
    params,
    files,
    ...(rawBody !== undefined ? { rawBody } : {}),
    ...(bodyError !== undefined ? { bodyError } : {}),
    format,
    token,
    tokenInParams,
    referer: Array.isArray(refererHeader) ? refererHeader[0] : refererHeader,
    origin: originOf(request),
  };
}

function originOf(request: IncomingMessage): string {
  const secure = 'encrypted' in request.socket && request.socket.encrypted === true;
  const host = request.headers.host ?? `${request.socket.localAddress ?? '127.0.0.1'}:${request.socket.localPort ?? 0}`;
  return `${secure ? 'https' : 'http'}://${host}`;
}

/**
 * A body is a form when declared so (or undeclared) and it does not look like JSON: clients such
 * as curl -d label a bare JSON object as a form, and E2's sample sends exactly that.
 */
function isFormBody(contentType: string | undefined, bodyText: string): boolean {
  const type = mediaType(contentType);
  if (type !== '' && type !== 'application/x-www-form-urlencoded') return false;
  const start = bodyText.trimStart()[0];
  return start !== '{' && start !== '[';
}

function restPathOf(fullPath: string): string | undefined {
  if (fullPath !== REST_ROOT && !fullPath.startsWith(`${REST_ROOT}/`)) return undefined;
  return fullPath.slice(REST_ROOT.length).replace(/\/+$/, '');
}

export function hasAuthorization(request: IncomingMessage): boolean {
  return request.headers['authorization'] !== undefined || request.headers['x-esri-authorization'] !== undefined;
}

/**
 * Reads the whole body, keeping at most `limit` bytes: a larger body is drained (so the client
 * can read the 413 answer) and flagged.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<RequestBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => {
      const raw = tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks);
      resolve({ text: raw.toString('utf8'), raw, bytes, tooLarge });
    });
    request.on('error', reject);
  });
}
