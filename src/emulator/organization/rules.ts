/** organization: the portal's rules (checks that refuse a request before anything changes). */
import type { PasswordPolicy } from '../state/model.js';
import { badRequest, optionalParam, requireParam, type Params } from '../shared/params.js';
import type { UploadedFile } from '../shared/types.js';

export const UPDATE_CATEGORY_SCHEMA_PRIVILEGE = 'portal:admin:updateItemCategorySchema';

export const UPDATE_USERS_PRIVILEGE = 'portal:admin:updateUsers';

/** E8 bounds: [min, max]; `nullable` rules may be sent empty (or "null") to clear them. */
export const POLICY_RULES: { name: keyof PasswordPolicy; min: number; max?: number; nullable: boolean }[] = [
  { name: 'minLength', min: 8, max: 1000, nullable: false },
  { name: 'minUpper', min: 1, nullable: true },
  { name: 'minLower', min: 1, nullable: true },
  { name: 'minLetter', min: 1, nullable: true },
  { name: 'minDigit', min: 1, nullable: true },
  { name: 'minOther', min: 1, nullable: true },
  { name: 'expirationInDays', min: 1, max: 1095, nullable: true },
  { name: 'historySize', min: 1, max: 24, nullable: true },
];

/** The category schema JSON text: the `categorySchema` parameter, or the whole raw body (spec sample). */
export function categorySchemaText(params: Params, rawBody: string | undefined): string {
  const parameter = optionalParam(params, 'categorySchema');
  if (parameter !== undefined) return parameter;
  if (rawBody !== undefined && rawBody.trim() !== '') return rawBody;
  return requireParam(params, 'categorySchema');
}

/** What `addResource` stores: the bytes and the Content-Type they are served with. */
export interface ResourceUpload {
  content: Uint8Array;
  contentType: string;
}

/**
 * addResource's content: the `file` part of a multipart body, else the `text` parameter. The
 * documentation's sample sends both, `file` with `filename=""` as a browser sends an empty file
 * input, so an empty file part gives way to `text`. A `file` that came as a plain form value
 * names no file to upload: refused rather than stored as text.
 */
export function resourceUpload(params: Params, files: Readonly<Record<string, UploadedFile>>): ResourceUpload {
  const file = files['file'];
  if (file && file.content.length > 0) return { content: file.content, contentType: file.contentType };
  const text = optionalParam(params, 'text');
  if (text !== undefined && text !== '') return { content: Buffer.from(text, 'utf8'), contentType: 'text/plain; charset=utf-8' };
  if (!file && optionalParam(params, 'file') !== undefined) {
    throw badRequest("Parameter 'file' must be a file part of a multipart/form-data body.", ["Send the file as multipart/form-data (RFC 7578), or its text as 'text'."]);
  }
  throw badRequest("Parameter 'file' or 'text' is required.", ["Send the resource as a 'file' part of a multipart/form-data body, or its text as 'text'."]);
}
