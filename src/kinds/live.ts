/**
 * Small helpers the kinds' live halves share: identifiers as path segments, requests.
 */
import type { ApiRequest } from '../core/request.js';
import type { Change, DesiredObject } from './contract.js';
import type { JsonValue } from '../core/json.js';
import { PortalctlError } from '../core/errors.js';

/** A declared object lacks an identifier its request path needs: a bug in its config half, not a user error. */
export class MissingIdentifierError extends PortalctlError {}

/** `obj.ids[name]`, which the request needs. */
export function requiredId(obj: DesiredObject, name: string): string {
  const id = obj.ids[name];
  if (id === undefined || id === '') {
    throw new MissingIdentifierError(`${obj.address} has no "${name}" identifier; its request cannot be built.`);
  }
  return id;
}

/** `obj.ids[name]`, encoded as one path segment. */
export function pathId(obj: DesiredObject, name: string): string {
  return encodeURIComponent(requiredId(obj, name));
}

/** An idempotent POST answered with JSON: every operation but E13. */
export function jsonPost(path: string, form: Record<string, string> = {}): ApiRequest {
  return { method: 'POST', path, form, response: 'json', idempotent: true };
}

/** For kinds whose only operation is a removal: in sync once the object is gone (already gone included). */
export function removedInSync(desired: DesiredObject, live: JsonValue): boolean {
  return desired.absent ? live === null : live !== null;
}

/** The change of a removal kind: what exists now goes. */
export function removal(live: JsonValue, request: ApiRequest): Change {
  return { action: 'delete', before: live, after: null, request };
}
