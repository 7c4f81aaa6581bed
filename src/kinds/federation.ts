/**
 * E6: the SAML federation's configuration. Value: the declared fields, with references resolved
 * (the certificate usually comes from `${file:...}`).
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { NotOnPortalError, type DesiredObject, type DiscoveredObject, type JsonSchema, type NameCandidate, type PortalFacts } from './toolkit/contract.js';
import { entryFields } from './toolkit/config-entries.js';
import { defineKind, type ManagedField } from './toolkit/define.js';
import { type JsonObject, type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';
import { compareVersions } from '../core/version.js';
import { BUILT_IN_ROLE_IDS, pathId, roleAddress, ROLES_PATH } from './toolkit/live.js';
import { toFormValue } from '../api/encoding.js';
import { isObject, problem } from './toolkit/support.js';
import { oneLine, textOf } from './toolkit/discover.js';
import { nameField } from './toolkit/names.js';

const flag = (description: string): JsonSchema => ({ type: 'boolean', description });

const fieldSchemas: Record<string, JsonSchema> = {
  name: { type: 'string', description: 'Federation name.' },
  discoveryServiceUrl: { type: 'string', description: 'Discovery service URL of the federation (http or https).' },
  metadataServiceUrl: { type: 'string', description: 'Aggregate metadata service URL of the federation (http or https).' },
  certificate: {
    type: 'string',
    description:
      'Base64 certificate text between -----BEGIN CERTIFICATE----- and -----END CERTIFICATE----- lines; usually ${file:certs/federation.pem}.',
  },
  entityId: { type: 'string', description: 'Identifies the organization in the federation.' },
  // -1 is the one value below 0 with a meaning (spec E6: "-1 means the organization default limit"); an allocation of credits is otherwise a number of credits.
  userCreditAssignment: { type: 'number', minimum: -1, description: 'Credits per joining member; -1 means the organization default.' },
  groups: { type: 'array', items: { type: 'string', description: 'A group id.' }, description: 'Groups joining members are added to (signUpMode Automatic).' },
  encryptionSupported: flag('Encrypted assertion responses are supported.'),
  supportSignedRequest: flag('The organization signs authentication requests.'),
  supportsLogoutRequest: flag('Signing out of the organization signs out of the identity provider.'),
  updateProfileAtSignin: flag('Full name and email are synced at sign-in.'),
  updateGroupsAtSignin: flag('SAML-based group membership.'),
  signUpMode: { enum: ['Automatic', 'Invitation'], description: 'Whether members join automatically or by invitation.' },
  roleId: { type: 'string', description: 'Default role of new members (signUpMode Automatic).' },
  level: { type: 'string', description: 'Deprecated from 10.7: use userLicenseType. Default license level of new members: "1" or "2" ("" for none).' },
  userLicenseType: { type: 'string', description: 'Default user license type of new members (signUpMode Automatic).' },
  userType: {
    enum: ['platformonly', 'both'],
    description: 'platformonly | both: vendor-account access of new members. Hosted edition only; self-managed ignores it.',
  },
};

export const federationFields = Object.keys(fieldSchemas);

/** The fields the spec types `string (URL)`: the portal refuses a value that is not a web address. */
const urlFields = ['discoveryServiceUrl', 'metadataServiceUrl'] as const;

/** Whether `text` is an absolute http or https URL (an empty text clears the field). */
function isWebUrl(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    const { protocol } = new URL(text.trim());
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Fields holding a URL or an identifier, where surrounding spaces mean nothing: compared and sent
 * trimmed. The bundled emulator stores them trimmed, as a portal that trims would; compared
 * untrimmed, a value declared with a trailing space planned a change on every run.
 */
const trimmedFields = new Set(['discoveryServiceUrl', 'metadataServiceUrl', 'entityId', 'roleId', 'level', 'userLicenseType']);

const certificateShape = /^\s*-----BEGIN CERTIFICATE-----\r?\n[\s\S]*\n-----END CERTIFICATE-----\s*$/;

const booleanFields = new Set([
  'encryptionSupported',
  'supportSignedRequest',
  'supportsLogoutRequest',
  'updateProfileAtSignin',
  'updateGroupsAtSignin',
]);

/**
 * Fields the portal may leave out of its answer (wire samples: not found in the public docs):
 * when missing, their live value is unknown, so what portalctl last recorded stands for it; never
 * recorded, the declared value is sent (once: then it is recorded).
 */
const possiblyUnreturned = new Set(['userCreditAssignment', 'userType', 'level', 'updateGroupsAtSignin', 'userLicenseType']);

/**
 * The GET key of the default user license type is not documented (the update takes
 * `userLicenseType`; the user resource calls it `userLicenseTypeId`): both are read.
 */
function reported(live: JsonObject, field: string): JsonValue | undefined {
  return field === 'userLicenseType' ? (live[field] ?? live['userLicenseTypeId']) : live[field];
}

const FEDERATION_READ_PATH = '/portals/self/idp/federation';

/** A live field in the config's shape: groups as a list, booleans and numbers typed. */
function liveField(field: string, value: JsonValue): JsonValue {
  if (field === 'groups') {
    if (typeof value === 'string') return value.split(',').map((id) => id.trim()).filter((id) => id !== '');
    return Array.isArray(value) ? value : null;
  }
  if (booleanFields.has(field) && typeof value === 'string') return value === 'true';
  if (field === 'userCreditAssignment' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return value;
}

/**
 * How a field compares: absent = null = "" for texts, absent = false for flags (their
 * default), no groups = [], group order irrelevant, certificate without any whitespace.
 */
function comparable(field: string, value: JsonValue | undefined): JsonValue {
  if (field === 'certificate') return typeof value === 'string' ? value.replace(/\s+/g, '') : '';
  if (field === 'groups') {
    const ids = Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
    return [...new Set(ids)].sort();
  }
  if (booleanFields.has(field)) return value === true;
  if (field === 'userCreditAssignment') return typeof value === 'number' ? value : null;
  if (trimmedFields.has(field) && typeof value === 'string') return value.trim();
  return value === undefined || value === null ? '' : value;
}

/** A field's form text: groups comma-separated, URLs and identifiers trimmed, the rest by the one encoder. */
function encodeField(field: string): ManagedField['encode'] {
  if (field === 'groups') return (value) => (Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string').join(',') : '');
  if (trimmedFields.has(field)) return (value) => (typeof value === 'string' ? value.trim() : toFormValue(value));
  return undefined;
}

/** A federation field: read as the portal reports it, compared and sent as the config declares it. */
function federationField(field: string): ManagedField {
  const encode = encodeField(field);
  return {
    read(live) {
      const value = reported(live, field);
      return value === undefined || value === null ? value : liveField(field, value);
    },
    compare: (value) => comparable(field, value),
    ...(encode ? { encode } : {}),
  };
}

/**
 * The role and groups the declaration names by id that the portal does not have, each at its
 * place (all of them, so one run says them all): the spec's `roleId` is a role and `groups` are
 * group identifiers, and the bundled emulator refuses the whole update for one unknown id. Ids
 * the live federation already holds are known and not read again; names (`{ title: ... }`) were
 * resolved against the portal already.
 */
async function unknownReferences(record: JsonObject, obj: DesiredObject, reader: LiveReader): Promise<NotOnPortalError[]> {
  if (!isObject(obj.value)) return [];
  const { roleId, groups } = obj.value;
  const unknown: NotOnPortalError[] = [];
  const role = typeof roleId === 'string' ? roleId.trim() : '';
  if (role !== '' && role !== textOf(record['roleId'])?.trim() && !BUILT_IN_ROLE_IDS.has(role)) {
    const roles = (await reader.list(ROLES_PATH, 'roles')) ?? [];
    if (!roles.some((entry) => textOf(entry['id']) === role)) unknown.push(new NotOnPortalError(roleAddress(role), undefined, ['roleId']));
  }
  const known = new Set(liveGroups(record));
  const missingGroups = await Promise.all(
    (Array.isArray(groups) ? groups : []).map(async (id, index) => {
      if (typeof id !== 'string' || id.trim() === '' || known.has(id.trim())) return undefined;
      // A group the organization cannot see answers "does not exist or is inaccessible" (CONT_0006): read as missing.
      const found = await reader.get(`/community/groups/${encodeURIComponent(id.trim())}`);
      return found === undefined ? new NotOnPortalError(`group ${id.trim()}`, undefined, ['groups', index]) : undefined;
    }),
  );
  return [...unknown, ...missingGroups.filter((missing) => missing !== undefined)];
}

function liveGroups(record: JsonObject): string[] {
  const groups = liveField('groups', record['groups'] ?? null);
  return Array.isArray(groups) ? groups.filter((id): id is string => typeof id === 'string') : [];
}

export const federation = defineKind({
  name: 'federation',
  operation: { id: 'E6', name: 'Update SAML federation' },
  authority: { who: 'organization administrator', role: 'administrator' },
  config: [entryFields('federation', fieldSchemas)],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    if (!isObject(obj.value)) return diagnostics;
    const { certificate, level, name, userType } = obj.value;
    if (typeof name === 'string' && name.trim() === '') {
      diagnostics.push(
        problem(ctx, obj, ['name'], {
          code: 'federation/empty-name',
          message: "The federation's name cannot be empty (or only spaces).",
          value: name,
          expected: 'a name with at least one visible character, or leave name out to keep the current one',
        }),
      );
    }
    if (typeof certificate === 'string' && !certificateShape.test(certificate)) {
      diagnostics.push(
        problem(ctx, obj, ['certificate'], {
          code: 'federation/certificate-markers',
          message: 'The certificate must be enclosed between BEGIN CERTIFICATE and END CERTIFICATE marker lines.',
          value: certificate,
          expected: '-----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
        }),
      );
    }
    for (const field of urlFields) {
      const url = obj.value[field];
      if (typeof url === 'string' && !isWebUrl(url)) {
        diagnostics.push(
          problem(ctx, obj, [field], {
            code: 'federation/url',
            message: `The federation's ${field} must be an http or https URL; the portal refuses any other value.`,
            value: url,
            expected: 'an absolute URL such as https://idp.example.org/metadata',
          }),
        );
      }
    }
    // The user levels are 1 and 2 (spec "User level", E4); the documentation's sample requests send `level=` (none).
    if (typeof level === 'string' && !['1', '2', ''].includes(level.trim())) {
      diagnostics.push(
        problem(ctx, obj, ['level'], {
          code: 'federation/level',
          message: `The federation's level is a user level, "1" or "2"; the portal refuses any other value.`,
          value: level,
          expected: '"1", "2", or "" for none',
        }),
      );
    }
    const { edition, version } = ctx.portal;
    const levelDeprecated =
      edition === 'hosted' || (version !== undefined && (compareVersions(version, '10.7') ?? -1) >= 0);
    if (level !== undefined && levelDeprecated) {
      diagnostics.push(
        problem(ctx, obj, ['level'], {
          severity: 'warning',
          code: 'federation/level-deprecated',
          message: `The federation's level is deprecated from self-managed 10.7 and hosted December 2018; use userLicenseType.`,
          value: level,
          expected: 'userLicenseType instead of level',
        }),
      );
    }
    if (userType !== undefined && edition === 'self-managed') {
      diagnostics.push(
        problem(ctx, obj, ['userType'], {
          severity: 'warning',
          code: 'federation/user-type-ignored',
          message: 'The self-managed edition accepts and ignores userType; it applies only to the hosted edition.',
          value: userType,
          expected: 'no userType on a self-managed portal',
        }),
      );
    }
    return diagnostics;
  },
  live: {
    // One federation per organization: another id means the declared one does not exist.
    one: async (obj, reader) => {
      const live = await reader.get(FEDERATION_READ_PATH);
      return live && (typeof live['id'] !== 'string' || live['id'] === obj.ids['federationId']) ? live : undefined;
    },
    missing: (obj) => `federation ${obj.ids['federationId']}`,
    refusal: unknownReferences,
  },
  fields: Object.fromEntries(federationFields.map((field) => [field, federationField(field)])),
  mayBeUnreported: possiblyUnreturned,
  request: { path: (desired) => `/portals/self/idp/federation/${pathId(desired, 'federationId')}/update` },
  label: (live) => textOf(live['name']),
  // `federations: [{ id: { name: Campus federation } }]`: an organization has one, read anyway.
  names: [
    {
      container: 'federation',
      noun: 'federation',
      fields: [nameField('name', "The federation's name.")],
      async candidates(reader): Promise<NameCandidate[]> {
        const live = await reader.get(FEDERATION_READ_PATH);
        const id = textOf(live?.['id']);
        const name = textOf(live?.['name']);
        const fields: Record<string, string> = {};
        if (name !== undefined) fields['name'] = name;
        return id === undefined ? [] : [{ id, fields }];
      },
    },
  ],
  // `roleId: { name: Viewer }`, `groups: [{ title: Field crews }]`: resolved as the roles' and groups' names are.
  references: [
    { field: 'roleId', container: 'role' },
    { field: 'groups', container: 'group', list: true },
  ],
  discover: discoverFederation,
  /** The default role of joining members must exist (with its declared settings) first. */
  dependsOn(obj, all) {
    const roleId = isObject(obj.value) ? obj.value['roleId'] : undefined;
    if (typeof roleId !== 'string') return [];
    const address = roleAddress(roleId);
    return all.some((other) => other.address === address) ? [address] : [];
  },
});

/** Whether a live field, already in config form, fits the field's schema (so the import validates). */
function fitsSchema(field: string, value: JsonValue): boolean {
  if (field === 'groups') return Array.isArray(value) && value.every((id) => typeof id === 'string');
  if (booleanFields.has(field)) return typeof value === 'boolean';
  if (field === 'userCreditAssignment') return typeof value === 'number';
  if (field === 'signUpMode') return value === 'Automatic' || value === 'Invitation';
  if (field === 'userType') return value === 'platformonly' || value === 'both';
  return typeof value === 'string';
}

/**
 * For import: the federation's update fields as the portal reports them, the certificate
 * inline. Fields the edition or version ignores or deprecates (userType on self-managed,
 * level from 10.7 and on hosted) are left out.
 */
async function discoverFederation(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  const live = await reader.get(FEDERATION_READ_PATH);
  const id = textOf(live?.['id']);
  if (!live || id === undefined) return [];
  const levelDeprecated = portal.edition === 'hosted' || (portal.version !== undefined && (compareVersions(portal.version, '10.7') ?? -1) >= 0);
  const fields: JsonObject = {};
  for (const field of federationFields) {
    const given = reported(live, field);
    if (given === undefined || given === null) continue;
    if (field === 'userType' && portal.edition === 'self-managed') continue;
    if (field === 'level' && levelDeprecated) continue;
    const value = liveField(field, given);
    if (value !== null && fitsSchema(field, value)) fields[field] = value;
  }
  const name = textOf(live['name']);
  return [{ path: [{ container: 'federation', key: id, ...(name ? { comment: oneLine(name) } : {}) }], fields }];
}
