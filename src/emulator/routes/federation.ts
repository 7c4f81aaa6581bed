/**
 * Enterprise login: E6 (update the SAML federation) and its read.
 *
 * | code      | status | condition                                                              |
 * |-----------|--------|------------------------------------------------------------------------|
 * | GWM_0003  | 403    | caller is not a default administrator                                  |
 * | 404 (none)| 404    | no federation, or its id is not {federationId}                         |
 * | EMU_0001  | 400    | `name` sent empty                                                      |
 * | EMU_0002  | 400    | a boolean that is not true/false                                       |
 * | EMU_0003  | 400    | userCreditAssignment not a number                                      |
 * | EMU_0004  | 400    | userCreditAssignment below -1                                          |
 * | EMU_0005  | 400    | signUpMode not Automatic/Invitation; userType (hosted) not platformonly/both |
 * | EMU_0007  | 400    | groups sent as malformed JSON array                                    |
 * | CONT_0006 | 400    | a group of `groups` does not exist                                     |
 * | EMU_0401  | 400    | a URL parameter that is not an http(s) URL                             |
 * | EMU_0402  | 400    | certificate without BEGIN CERTIFICATE / END CERTIFICATE marker lines   |
 * | EMU_0403  | 400    | roleId is neither a custom role id nor a built-in role                 |
 *
 * Only the parameters sent change; an empty value clears an optional field (URLs, certificate,
 * entityId, userCreditAssignment, roleId, level, userLicenseType) and empties `groups`. The
 * self-managed edition accepts `userType` and ignores it (neither validated nor stored).
 *
 * Read: GET /portals/:portalId/idp/federation -> every stored field and `id`; 404 when the
 * organization has no federation.
 */
import { notFound } from '../errors.js';
import type { EmulatorState, Federation } from '../model.js';
import { requireDefaultAdmin } from './auth.js';
import { groupNotFound } from './groups.js';
import {
  badRequest,
  checkEnum,
  checkRange,
  invalidJsonShape,
  json,
  optionalParam,
  parseBoolean,
  parseJson,
  parseNumber,
  success,
  type Params,
} from './params.js';
import type { Route } from './types.js';
import { findBy } from '../store.js';
import { BUILT_IN_ROLE_IDS } from './users.js';

const BOOLEAN_FIELDS = [
  'encryptionSupported',
  'supportSignedRequest',
  'supportsLogoutRequest',
  'updateProfileAtSignin',
  'updateGroupsAtSignin',
  'useSHA256',
] as const;

function checkUrl(name: string, text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw badRequest(`Invalid URL for '${name}': '${text}'.`, 'EMU_0401', [`'${name}' must be an http or https URL.`]);
  }
  return text;
}

function checkCertificate(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const begin = lines.indexOf('-----BEGIN CERTIFICATE-----');
  const end = lines.indexOf('-----END CERTIFICATE-----');
  if (begin < 0 || end <= begin + 1) {
    throw badRequest("Invalid 'certificate'.", 'EMU_0402', [
      'The certificate must be Base64 text between a -----BEGIN CERTIFICATE----- line and an -----END CERTIFICATE----- line.',
    ]);
  }
  return text;
}

/** Comma-separated ids or a JSON array of ids; each must be an existing group. */
function parseGroups(state: EmulatorState, text: string): string[] {
  const trimmed = text.trim();
  let ids: string[];
  if (trimmed.startsWith('[')) {
    const parsed = parseJson('groups', trimmed);
    if (!Array.isArray(parsed) || parsed.some((id) => typeof id !== 'string')) {
      throw invalidJsonShape('groups', 'a JSON array of group ids');
    }
    ids = parsed as string[];
  } else {
    ids = trimmed.split(',');
  }
  ids = ids.map((id) => id.trim()).filter((id) => id !== '');
  for (const id of ids) {
    if (!findBy(state.groups, 'id', id)) throw groupNotFound(id);
  }
  return [...new Set(ids)];
}

type OptionalTextField = 'discoveryServiceUrl' | 'metadataServiceUrl' | 'certificate' | 'entityId' | 'roleId' | 'level' | 'userLicenseType';

function updateFederation(state: EmulatorState, federation: Federation, params: Params): void {
  const name = optionalParam(params, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", 'EMU_0001', ['The federation needs a name.']);
    federation.name = name;
  }
  const validators: Record<OptionalTextField, (text: string) => string> = {
    discoveryServiceUrl: (text) => checkUrl('discoveryServiceUrl', text),
    metadataServiceUrl: (text) => checkUrl('metadataServiceUrl', text),
    certificate: checkCertificate,
    entityId: (text) => text,
    roleId: (text) => {
      if (!BUILT_IN_ROLE_IDS.includes(text) && !state.roles.some((role) => role.id === text)) {
        throw badRequest(`Unknown roleId '${text}'.`, 'EMU_0403', [
          `roleId must be a custom role id or one of ${BUILT_IN_ROLE_IDS.join(', ')}.`,
        ]);
      }
      return text;
    },
    level: (text) => checkEnum('level', text, ['1', '2'] as const),
    userLicenseType: (text) => text,
  };
  for (const field of Object.keys(validators) as OptionalTextField[]) {
    const text = optionalParam(params, field);
    if (text === undefined) continue;
    if (text.trim() === '') delete federation[field];
    else federation[field] = validators[field](field === 'certificate' ? text : text.trim());
  }
  const credits = optionalParam(params, 'userCreditAssignment');
  if (credits !== undefined) {
    if (credits.trim() === '') delete federation.userCreditAssignment;
    else federation.userCreditAssignment = checkRange('userCreditAssignment', parseNumber('userCreditAssignment', credits), -1);
  }
  const groups = optionalParam(params, 'groups');
  if (groups !== undefined) federation.groups = parseGroups(state, groups);
  for (const field of BOOLEAN_FIELDS) {
    const text = optionalParam(params, field);
    if (text !== undefined) federation[field] = parseBoolean(field, text);
  }
  const signUpMode = optionalParam(params, 'signUpMode');
  if (signUpMode !== undefined) federation.signUpMode = checkEnum('signUpMode', signUpMode, ['Automatic', 'Invitation'] as const);
  const userType = optionalParam(params, 'userType');
  if (userType !== undefined && state.organization.edition === 'hosted') {
    federation.userType = checkEnum('userType', userType, ['platformonly', 'both'] as const);
  }
}

/** The documented GET shape (the default user type as `userLicenseTypeId`; update-only fields left out). */
function federationView(federation: Federation): Record<string, unknown> {
  return {
    id: federation.id,
    name: federation.name,
    ...optional('discoveryServiceUrl', federation.discoveryServiceUrl),
    ...optional('metadataServiceUrl', federation.metadataServiceUrl),
    ...optional('certificate', federation.certificate),
    ...optional('entityId', federation.entityId),
    signUpMode: federation.signUpMode,
    encryptionSupported: federation.encryptionSupported,
    ...optional('roleId', federation.roleId),
    supportSignedRequest: federation.supportSignedRequest,
    useSHA256: federation.useSHA256,
    supportsLogoutRequest: federation.supportsLogoutRequest,
    ...optional('userLicenseTypeId', federation.userLicenseType),
    groups: [...federation.groups],
    updateProfileAtSignin: federation.updateProfileAtSignin,
  };
}

const optional = (key: string, value: string | undefined): Record<string, string> => (value !== undefined ? { [key]: value } : {});

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
