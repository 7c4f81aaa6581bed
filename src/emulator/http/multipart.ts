/**
 * multipart/form-data request bodies (RFC 7578), as real portals take them and as the vendor's
 * JavaScript client sends any request that carries a file (addResource's `file`). Parsed by the
 * `Response.formData()` Node has built in (undici), not by hand: the same fields as a urlencoded
 * form, plus the bytes of each file part.
 *
 * | condition                                   | code | HTTP | message                                             |
 * |---------------------------------------------|------|------|-----------------------------------------------------|
 * | no boundary, a part without a name, a body that does not follow the syntax | 400 | 400 | Unable to read the multipart/form-data body. |
 *
 * The documentation names no code for a malformed body (the request fails before any operation
 * sees it, like the 413 of an oversized one), so it is code 400 without a messageCode.
 */
import { PortalApiError } from '../errors.js';

/** A file part: its bytes, and the name and type the client gave them. */
export interface UploadedFile {
  /** The part's `filename` (may be empty: the documentation's own sample sends `filename=""`). */
  filename: string;
  /** The part's Content-Type; `application/octet-stream` when the part names none. */
  contentType: string;
  content: Uint8Array;
}

export interface MultipartFields {
  /** Every part by name, a file part as its content read as UTF-8 text (what a text parameter gets). */
  params: Record<string, string>;
  /** File parts by name, for the operations that take a file. */
  files: Record<string, UploadedFile>;
}

/** A multipart/form-data body the emulator cannot read: refused before any route sees it. */
export class MalformedMultipartError extends PortalApiError {
  constructor(reason: string) {
    super(400, 'Unable to read the multipart/form-data body.', undefined, [reason], 400);
    this.name = 'MalformedMultipartError';
  }
}

export function isMultipart(contentType: string | undefined): boolean {
  return mediaType(contentType) === 'multipart/form-data';
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

const SYNTAX =
  'Each part begins with a line --<boundary> and a header Content-Disposition: form-data; name="<field>", lines end in CRLF, and the body ends with --<boundary>--.';

/** The fields of a multipart body; a later part of the same name wins, as in a urlencoded form. */
export async function readMultipart(contentType: string, body: Uint8Array): Promise<MultipartFields> {
  if (!/;\s*boundary=/i.test(contentType)) {
    throw new MalformedMultipartError(`The Content-Type header names no boundary ("${contentType}"); send multipart/form-data; boundary=<boundary>.`);
  }
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    // Node 24's parser says why in `cause`; earlier ones only that it failed.
    const cause = error instanceof Error && error.cause instanceof Error ? `${error.cause.message}. ` : '';
    throw new MalformedMultipartError(`${cause}${SYNTAX}`);
  }
  const params: Record<string, string> = {};
  const files: Record<string, UploadedFile> = {};
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      params[name] = value;
      delete files[name];
      continue;
    }
    const content = new Uint8Array(await value.arrayBuffer());
    params[name] = Buffer.from(content).toString('utf8');
    files[name] = { filename: value.name, contentType: value.type === '' ? 'application/octet-stream' : value.type, content };
  }
  return { params, files };
}
