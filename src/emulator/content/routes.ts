/**
 * Content: E3 (set content status), the item reads, and the automatic status transitions.
 *
 * | code      | status | condition                                                            |
 * |-----------|--------|----------------------------------------------------------------------|
 * | CONT_0001 | 400    | the item does not exist, or the caller may not see it                 |
 * | GWM_0003  | 403    | the caller is neither the item's owner nor a default administrator nor a holder of portal:admin:updateItems |
 * | CONT_0163 | 400    | public_authoritative while the organization is not public and verified|
 * | (none)    | 400    | `status` not sent at all                                             |
 * | (none)    | 400    | clearEmptyFields not true/false                                      |
 * | (none)    | 400    | status not one of deprecated, org_authoritative, public_authoritative |
 * | (none)    | 400    | empty status without clearEmptyFields=true                           |
 *
 * Reads (documented shapes): GET /content/items/:itemId -> the item with `protected` and
 * `contentStatus` ("" when none); GET /search?q=... -> paged `results` without `protected`.
 * `q` is required (400 otherwise), in the documented query syntax (routes/search.ts) over the
 * fields of `itemSearchFields` (store.ts); another field is refused with code 400. Items with
 * access private or shared are visible only to their owner, default administrators and holders
 * of portal:admin:viewItems.
 *
 * Listing is indexed: `orgid:<id>` (or `accountid:<id>`) alone pages through an index of what
 * the caller may see (O(page) per request); other queries filter the organization's items (O(n)).
 */
import { PortalApiError } from '../errors.js';
import { forbidden } from '../shared/access.js';
import { searchPage } from '../shared/paging.js';
import { badRequest, checkEnum, json, optionalBoolean, optionalParam, success } from '../shared/params.js';
import { queryParam, searchOrderParam } from '../shared/search.js';
import type { Route } from '../shared/types.js';
import { STATUSES, searchNeedsQuery } from './rules.js';
import { UPDATE_ITEMS_PRIVILEGE, findVisibleItem, itemView, resultView, searchList } from './store.js';

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
        throw badRequest("Parameter 'status' is required.", [
          'Send a status, or an empty status with clearEmptyFields=true to remove it.',
        ]);
      }
      const clearEmptyFields = optionalBoolean(params, 'clearEmptyFields') ?? false;
      if (statusText === '') {
        if (!clearEmptyFields) {
          throw badRequest('An empty status needs clearEmptyFields=true.', [
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
      return json(itemView(state, findVisibleItem(state, caller, pathParams.itemId ?? '')));
    },
  },
  {
    access: 'read',
    pattern: '/search',
    handle({ state, params, caller }) {
      const q = queryParam(params, searchNeedsQuery);
      const results = searchPage(params, searchList(state, caller, q, searchOrderParam(params)), 'results', (item) => resultView(state, item));
      return json({ query: q, ...results });
    },
  },
];
