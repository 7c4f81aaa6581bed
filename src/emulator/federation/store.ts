/** federation: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import type { EmulatorState, Federation } from '../state/model.js';
import { badRequest, checkEnum, checkRange, optionalParam, parseBoolean, parseNumber, type Params } from '../shared/params.js';
import { BUILT_IN_ROLE_IDS } from '../users/store.js';
import { checkCertificate, checkUrl, parseGroups } from './rules.js';

export const BOOLEAN_FIELDS = [
  'encryptionSupported',
  'supportSignedRequest',
  'supportsLogoutRequest',
  'updateProfileAtSignin',
  'updateGroupsAtSignin',
  'useSHA256',
] as const;

const OPTIONAL_TEXT_FIELDS = ['discoveryServiceUrl', 'metadataServiceUrl', 'certificate', 'entityId', 'roleId', 'level', 'userLicenseType'] as const;

export type OptionalTextField = (typeof OPTIONAL_TEXT_FIELDS)[number];

export function updateFederation(state: EmulatorState, federation: Federation, params: Params): void {
  const name = optionalParam(params, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", ['The federation needs a name.']);
    federation.name = name;
  }
  const validators: Record<OptionalTextField, (text: string) => string> = {
    discoveryServiceUrl: (text) => checkUrl('discoveryServiceUrl', text),
    metadataServiceUrl: (text) => checkUrl('metadataServiceUrl', text),
    certificate: checkCertificate,
    entityId: (text) => text,
    roleId: (text) => {
      if (!BUILT_IN_ROLE_IDS.includes(text) && !state.roles.some((role) => role.id === text)) {
        throw badRequest(`Unknown roleId '${text}'.`, [
          `roleId must be a custom role id or one of ${BUILT_IN_ROLE_IDS.join(', ')}.`,
        ]);
      }
      return text;
    },
    level: (text) => checkEnum('level', text, ['1', '2'] as const),
    userLicenseType: (text) => text,
  };
  for (const field of OPTIONAL_TEXT_FIELDS) {
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
export function federationView(federation: Federation): Record<string, unknown> {
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

export const optional = (key: string, value: string | undefined): Record<string, string> => (value !== undefined ? { [key]: value } : {});
