/**
 * Content: E3 (set content status), the item reads, and the automatic status transitions.
 *
 * | code      | status | condition                                                            |
 * |-----------|--------|----------------------------------------------------------------------|
 * | CONT_0001 | 400    | the item does not exist, or the caller may not see it                 |
 * | GWM_0003  | 403    | the caller is neither the item's owner nor a default administrator nor a holder of portal:admin:updateItems |
 * | CONT_0163 | 400    | public_authoritative while the organization is not public and verified|
 * | EMU_0001  | 400    | `status` not sent at all                                             |
 * | EMU_0002  | 400    | clearEmptyFields not true/false                                      |
 * | EMU_0005  | 400    | status not one of deprecated, org_authoritative, public_authoritative |
 * | EMU_0201  | 400    | empty status without clearEmptyFields=true                           |
 *
 * Reads: GET /content/items/:itemId -> {id,title,owner,access,contentStatus} where contentStatus
 * is "" when the item has none; GET /search -> paged `results` of the same item views (the `q`
 * parameter is accepted and ignored). Items with access private or shared are visible only to
 * their owner, default administrators and holders of portal:admin:viewItems.
 */
import { PortalApiError } from '../errors.js';
import type { EmulatorState, Item, ItemStatus } from '../model.js';
import { forbidden } from './auth.js';
import { page } from './paging.js';
import { badRequest, checkEnum, json, optionalBoolean, optionalParam, success } from './params.js';
import type { Caller, Route } from './types.js';

export const UPDATE_ITEMS_PRIVILEGE = 'portal:admin:updateItems';
export const VIEW_ITEMS_PRIVILEGE = 'portal:admin:viewItems';
const STATUSES: readonly ItemStatus[] = ['deprecated', 'org_authoritative', 'public_authoritative'];

export function itemNotFound(itemId: string): PortalApiError {
  return new PortalApiError(400, 'Item does not exist or is inaccessible.', 'CONT_0001', [`No item with id '${itemId}'.`]);
}

function maySee(caller: Caller, item: Item): boolean {
  if (item.access === 'public' || item.access === 'org') return true;
  return item.owner === caller.user.username || caller.isDefaultAdmin || caller.hasPrivilege(VIEW_ITEMS_PRIVILEGE);
}

function findVisibleItem(state: EmulatorState, caller: Caller, itemId: string): Item {
  const item = state.items.find((candidate) => candidate.id === itemId);
  if (!item || !maySee(caller, item)) throw itemNotFound(itemId);
  return item;
}

const itemView = (item: Item): Record<string, unknown> => ({
  id: item.id,
  title: item.title,
  owner: item.owner,
  access: item.access,
  contentStatus: item.contentStatus ?? '',
});

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

export const contentRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/content/items/:itemId/setContentStatus',
    handle({ state, params, pathParams, caller }) {
      const itemId = pathParams.itemId ?? '';
      const item = findVisibleItem(state, caller, itemId);
      if (item.owner !== caller.user.username && !caller.isDefaultAdmin && !caller.hasPrivilege(UPDATE_ITEMS_PRIVILEGE)) {
        throw forbidden(`Only the item's owner or an administrator with ${UPDATE_ITEMS_PRIVILEGE} may set its status.`);
      }
      const statusText = optionalParam(params, 'status');
      if (statusText === undefined) {
        throw badRequest("Parameter 'status' is required.", 'EMU_0001', [
          'Send a status, or an empty status with clearEmptyFields=true to remove it.',
        ]);
      }
      const clearEmptyFields = optionalBoolean(params, 'clearEmptyFields') ?? false;
      if (statusText === '') {
        if (!clearEmptyFields) {
          throw badRequest('An empty status needs clearEmptyFields=true.', 'EMU_0201', [
            'Send status= together with clearEmptyFields=true to remove the status.',
          ]);
        }
        delete item.contentStatus;
        return success({ itemId: item.id });
      }
      const status = checkEnum('status', statusText, STATUSES);
      if (status === 'public_authoritative' && !(state.organization.access === 'public' && state.organization.isVerified)) {
        throw new PortalApiError(
          400,
          'Unable to update item status to public_authoritative. The organization has to be public and verified.',
          'CONT_0163',
        );
      }
      item.contentStatus = status;
      return success({ itemId: item.id });
    },
  },
  {
    access: 'read',
    pattern: '/content/items/:itemId',
    handle({ state, pathParams, caller }) {
      return json(itemView(findVisibleItem(state, caller, pathParams.itemId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/search',
    handle({ state, params, caller }) {
      const visible = state.items.filter((item) => maySee(caller, item)).map(itemView);
      return json(page(params, visible, 'results'));
    },
  },
];
