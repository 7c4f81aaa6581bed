/**
 * Response formats: `f=json` compact JSON, `f=pjson` pretty JSON, `f=html` (the default when f is
 * absent or unknown) a small page showing the JSON. Errors use the same format as successes.
 * File results are sent as downloads.
 */
import { isRecord } from '../state/json.js';

export type ResponseFormat = 'html' | 'json' | 'pjson';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** Text is sent as UTF-8; bytes (a stored file) as they are. */
  body: string | Uint8Array;
  /** The envelope's `error.code` when the answer is an error envelope (for the request log). */
  errorCode?: number;
}

export function responseFormat(f: string | undefined): ResponseFormat {
  return f === 'json' || f === 'pjson' ? f : 'html';
}

export function renderJson(format: ResponseFormat, body: unknown, status = 200): HttpAnswer {
  const errorCode = envelopeCode(body);
  const answer = renderJsonBody(format, body, status);
  return errorCode !== undefined ? { ...answer, errorCode } : answer;
}

function envelopeCode(body: unknown): number | undefined {
  const error = isRecord(body) ? body['error'] : undefined;
  const code = isRecord(error) ? error['code'] : undefined;
  return typeof code === 'number' ? code : undefined;
}

function renderJsonBody(format: ResponseFormat, body: unknown, status: number): HttpAnswer {
  switch (format) {
    case 'json':
      return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
    case 'pjson':
      return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: `${JSON.stringify(body, null, 2)}\n` };
    case 'html':
      return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: htmlPage(body) };
  }
}

function htmlPage(body: unknown): string {
  const isError = isRecord(body) && 'error' in body;
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><title>Portal emulator</title></head><body>',
    `<h1>${isError ? 'Error' : 'Result'}</h1>`,
    `<pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre>`,
    '</body></html>',
    '',
  ].join('\n');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A download: the result's content type and `Content-Disposition: attachment; filename="..."`. */
export function renderFile(file: { filename: string; contentType: string; body: string | Uint8Array }): HttpAnswer {
  const asciiName = file.filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  // A plain name goes unquoted, as in the documented header; anything else is quoted.
  const plain = /^[A-Za-z0-9._-]+$/.test(file.filename) ? `attachment; filename=${file.filename}` : undefined;
  const disposition =
    plain ??
    (asciiName === file.filename
      ? `attachment; filename="${asciiName}"`
      : `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`);
  return { status: 200, headers: { 'content-type': file.contentType, 'content-disposition': disposition }, body: file.body };
}
