/** content: the portal's rules (checks that refuse a request before anything changes). */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, ItemStatus } from '../state/model.js';

export const STATUSES: readonly ItemStatus[] = ['deprecated', 'org_authoritative', 'public_authoritative'];

export const searchNeedsQuery = (): PortalApiError =>
  new PortalApiError(400, "'q' parameter is required", undefined, ['A search requires at least one of q, bbox or categories.']);

/**
 * The portal's own status changes, applied when the whole state is replaced (control API):
 * - an org_authoritative item that becomes public in a verified organization -> public_authoritative;
 * - the organization becomes verified -> every org_authoritative item -> public_authoritative
 *   (the spec's transition table: "Automatic, for all such items", no further condition);
 * - a public_authoritative item that stops being public -> org_authoritative.
 * Items are matched by id; items new in `next` had no sharing change and are left alone.
 * Mutates `next`.
 */
export function applyAutomaticTransitions(previous: EmulatorState, next: EmulatorState): void {
  const previousItems = new Map(previous.items.map((item) => [item.id, item]));
  const verified = next.organization.isVerified;
  const becameVerified = verified && !previous.organization.isVerified;
  for (const item of next.items) {
    const before = previousItems.get(item.id);
    const becamePublic = before !== undefined && before.access !== 'public' && item.access === 'public';
    const stoppedBeingPublic = before !== undefined && before.access === 'public' && item.access !== 'public';
    if (item.contentStatus === 'org_authoritative' && (becameVerified || (verified && becamePublic))) {
      item.contentStatus = 'public_authoritative';
    }
    if (item.contentStatus === 'public_authoritative' && stoppedBeingPublic) {
      item.contentStatus = 'org_authoritative';
    }
  }
}
