/**
 * Enterprise login: E6 (update the SAML federation) and its read.
 *
 * | code      | status | condition                                                              |
 * |-----------|--------|------------------------------------------------------------------------|
 * | GWM_0003  | 403    | caller is not a default administrator                                  |
 * | 404 (none)| 404    | no federation, or its id is not {federationId}                         |
 * | (none)    | 400    | `name` sent empty                                                      |
 * | (none)    | 400    | a boolean that is not true/false                                       |
 * | (none)    | 400    | userCreditAssignment not a number                                      |
 * | (none)    | 400    | userCreditAssignment below -1                                          |
 * | (none)    | 400    | signUpMode not Automatic/Invitation; userType (hosted) not platformonly/both |
 * | (none)    | 400    | groups sent as malformed JSON array                                    |
 * | CONT_0006 | 400    | a group of `groups` does not exist                                     |
 * | (none)    | 400    | a URL parameter that is not an http(s) URL                             |
 * | (none)    | 400    | certificate without BEGIN CERTIFICATE / END CERTIFICATE marker lines   |
 * | (none)    | 400    | roleId is neither a custom role id nor a built-in role                 |
 *
 * Only the parameters sent change; an empty value clears an optional field (URLs, certificate,
 * entityId, userCreditAssignment, roleId, level, userLicenseType) and empties `groups`. The
 * self-managed edition accepts `userType` and ignores it (neither validated nor stored).
 *
 * Read: GET /portals/:portalId/idp/federation -> every stored field and `id`; 404 when the
 * organization has no federation.
 */
import { notFound } from '../errors.js';
import { requireDefaultAdmin } from '../shared/access.js';
import { json, success } from '../shared/params.js';
import type { Route } from '../shared/types.js';
import { federationView, updateFederation } from './store.js';

export const federationRoutes: Route[] = [
  {
    access: 'write',
    pattern: '/portals/:portalId/idp/federation/:federationId/update',
    handle({ state, params, pathParams, caller }) {
      requireDefaultAdmin(caller, 'federation update');
      const federation = state.federation;
      if (!federation || federation.id !== pathParams.federationId) throw notFound();
      updateFederation(state, federation, params);
      return success({ federationId: federation.id });
    },
  },
  {
    access: 'read',
    pattern: '/portals/:portalId/idp/federation',
    handle({ state }) {
      if (!state.federation) throw notFound();
      return json(federationView(state.federation));
    },
  },
];
