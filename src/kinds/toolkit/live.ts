/**
 * Small helpers the kinds' live halves share: identifiers as path segments.
 */
import type { DesiredObject } from './contract.js';
import { PortalctlError } from '../../core/errors.js';

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
