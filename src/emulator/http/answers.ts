/** Writing answers: route results, fault answers, and the server's own error envelopes. */
import type { ServerResponse } from 'node:http';
import type { Fault, LoggedRequest } from '../control.js';
import { PortalApiError } from '../errors.js';
import { renderFile, renderJson, type HttpAnswer, type ResponseFormat } from './formats.js';
import { isRecord } from '../state/json.js';
import type { RouteResult } from '../shared/types.js';

export function renderResult(format: ResponseFormat, result: RouteResult): HttpAnswer {
  return result.type === 'file' ? renderFile(result) : renderJson(format, result.body);
}

export function renderError(format: ResponseFormat, error: unknown): HttpAnswer {
  const failure = error instanceof PortalApiError ? error : internalError(error);
  return renderJson(format, failure.toBody(), failure.httpStatus);
}

export function answerForFault(fault: Fault, format: ResponseFormat): HttpAnswer | undefined {
  const retryAfter: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
  if (fault.error) {
    // `details: null` and a string are sent as given (some servers do; clients must cope).
    const details = fault.error.details === undefined ? [] : fault.error.details;
    const answer = renderJson(format, { error: { ...fault.error, details } }, fault.status ?? 200);
    return { ...answer, headers: { ...answer.headers, ...retryAfter } };
  }
  if (fault.status !== undefined) {
    const body = fault.body ?? '';
    return { status: fault.status, headers: { 'content-type': looksLikeJson(body) ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8', ...retryAfter }, body };
  }
  return undefined;
}

/**
 * The route's own answer with top-level fields replaced (null removes one), for faults that
 * return a list page as a real portal sometimes does (no `nextStart`, `nextStart: -1` early).
 * An answer that is not a JSON object, and an error envelope, are left alone.
 */
export function rewriteAnswer(answer: HttpAnswer, format: ResponseFormat, fields: Readonly<Record<string, unknown>>): HttpAnswer {
  if (typeof answer.body !== 'string' || !looksLikeJson(answer.body)) return answer;
  const parsed: unknown = JSON.parse(answer.body);
  if (!isRecord(parsed) || 'error' in parsed) return answer;
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) delete parsed[name];
    else parsed[name] = value;
  }
  return { ...renderJson(format, parsed, answer.status), headers: answer.headers };
}

function looksLikeJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Records the answer in the request log entry and sends it. */
export function finish(response: ServerResponse, entry: LoggedRequest, answer: HttpAnswer, faultId?: number): void {
  entry.response = { status: answer.status, ...(answer.errorCode !== undefined ? { code: answer.errorCode } : {}), ...(faultId !== undefined ? { faultId } : {}) };
  send(response, answer);
}

export function send(response: ServerResponse, answer: HttpAnswer): void {
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
  response.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
  response.end(body);
}

export const invalidUrl = (): PortalApiError => new PortalApiError(400, 'Invalid URL', undefined, []);
export const methodNotAllowed = (): PortalApiError => new PortalApiError(405, 'Method not allowed; use POST.', undefined, []);
export const bodyTooLarge = (limit: number): PortalApiError =>
  new PortalApiError(413, `Request body is larger than the emulator's limit of ${limit} bytes.`, undefined, [], 413);

export function internalError(error: unknown): PortalApiError {
  const reason = error instanceof Error ? error.message : String(error);
  return new PortalApiError(500, 'Unexpected error in the emulator; the request changed nothing.', undefined, [reason], 500);
}
