/**
 * Loading and validating the emulator's data file (format: model.ts). Omitted arrays default to
 * empty and most omitted fields to a documented default, so a data file only states what a test
 * cares about. Unknown fields are rejected: they are almost always typos.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { isRecord } from './json.js';
import { documentedRelease, isDottedVersion } from './releases.js';
import type {
  AccessMode,
  CategoryNode,
  Collaboration,
  EmulatorState,
  Federation,
  Group,
  Invitation,
  Item,
  Licence,
  OAuthClient,
  Organization,
  Participant,
  PasswordPolicy,
  PortalResource,
  Role,
  Task,
  Token,
  User,
  Workspace,
  WorkspaceConfig,
} from './model.js';

/** A data file (or a state given to the control API) that does not match model.ts. */
export class EmulatorDataError extends Error {
  constructor(
    /** The file path, or a description such as "PUT /_emulator/state". */
    readonly source: string,
    /** Dotted path of the offending field, e.g. `users[2].level`; empty for the whole document. */
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${source}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'EmulatorDataError';
  }
}

export const BUILT_IN_ROLES = ['org_admin', 'org_publisher', 'org_user'] as const;

/**
 * The organization used when the emulator starts without data: no content, one default
 * administrator `admin` (password `admin-password`) with the never-expiring token `admin-token`.
 */
export function minimalState(): EmulatorState {
  return parseEmulatorState(
    {
      organization: { id: 'EmulatorOrg00001', name: 'Emulator Organization' },
      users: [{ username: 'admin', fullName: 'Portal Administrator', role: 'org_admin', password: 'admin-password' }],
      tokens: [{ token: 'admin-token', username: 'admin' }],
    },
    'minimal organization',
  );
}

/** Reads a YAML or JSON data file (JSON is YAML, so one parser serves both). */
export function loadDataFile(path: string): EmulatorState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new EmulatorDataError(path, '', `cannot read the data file (${error instanceof Error ? error.message : String(error)})`);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    // Where, as file:line:column (editors and terminals open it there); yaml's message shows the line.
    const at = error instanceof YAMLParseError && error.linePos ? `${path}:${error.linePos[0].line}:${error.linePos[0].col}` : path;
    throw new EmulatorDataError(at, '', `not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseEmulatorState(document, path);
}

/** Validates a parsed document and fills in defaults; returns a fresh object. */
export function parseEmulatorState(document: unknown, source: string): EmulatorState {
  const root = new Field(document, source, '');
  const o = root.object(['organization', 'users', 'roles', 'tokens', 'oauthClients', 'groups', 'items', 'federation', 'collaborations']);
  const organization = readOrganization(o.required('organization'));
  const state: EmulatorState = {
    organization,
    roles: o.optional('roles')?.array(readRole) ?? [],
    users: o.optional('users')?.array(readUser) ?? [],
    tokens: o.optional('tokens')?.array(readToken) ?? [],
    oauthClients: o.optional('oauthClients')?.array(readOAuthClient) ?? [],
    groups: o.optional('groups')?.array(readGroup) ?? [],
    items: o.optional('items')?.array(readItem) ?? [],
    federation: o.optional('federation') ? readFederation(o.required('federation')) : null,
    collaborations: [],
  };
  state.collaborations = o.optional('collaborations')?.array((c) => readCollaboration(c, organization, state.users)) ?? [];
  checkReferences(state, root);
  return state;
}

function checkReferences(state: EmulatorState, root: Field): void {
  unique(root, 'users', state.users.map((u) => u.username), 'username');
  unique(root, 'roles', state.roles.map((r) => r.id), 'id');
  unique(root, 'tokens', state.tokens.map((t) => t.token), 'token');
  const usernames = new Set(state.users.map((u) => u.username));
  const roleIds = new Set<string>([...BUILT_IN_ROLES, ...state.roles.map((r) => r.id)]);
  state.users.forEach((user, index) => {
    if (!roleIds.has(user.role)) {
      root.fail(`users[${index}].role`, `"${user.role}" is neither a built-in role (${BUILT_IN_ROLES.join(', ')}) nor the id of a role in roles`);
    }
  });
  state.tokens.forEach((token, index) => {
    if (!usernames.has(token.username)) root.fail(`tokens[${index}].username`, `no user "${token.username}" in users`);
  });
  state.oauthClients.forEach((client, index) => {
    if (!usernames.has(client.username)) root.fail(`oauthClients[${index}].username`, `no user "${client.username}" in users`);
  });
}

function unique(root: Field, list: string, values: string[], key: string): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) root.fail(`${list}[${index}].${key}`, `duplicate ${key} "${value}"`);
    seen.add(value);
  });
}

function readOrganization(field: Field): Organization {
  const o = field.object([
    'id', 'name', 'edition', 'version', 'apiVersion', 'build', 'access', 'isVerified', 'hostname', 'categorySchema',
    'memberCategorySchema', 'securityPolicy', 'resources', 'quotas', 'collaborationPortalId', 'securityPolicyModified',
  ]);
  const id = o.required('id').string();
  const version = o.optional('version');
  const apiVersion = o.optional('apiVersion');
  for (const field of [version, apiVersion]) {
    if (field && typeof field.value === 'number') {
      // Not the number read: 10.10 reads as 10.1.
      field.failHere('must be a string; quote it as it is written, so that e.g. "10.10" is not read as 10.1');
    }
  }
  const quotas = o.optional('quotas')?.object(['level1', 'level2']);
  const edition = o.optional('edition')?.oneOf(['self-managed', 'hosted'] as const) ?? 'self-managed';
  const securityPolicy = o.optional('securityPolicy')?.let(readPasswordPolicy) ?? {};
  const release = version?.string() ?? (edition === 'hosted' ? '2024.1' : '11.3');
  if (!isDottedVersion(release)) version?.failHere(`"${release}" is not a dotted number such as "11.3"`);
  const documented = edition === 'self-managed' ? documentedRelease(release) : undefined;
  // The hosted edition reports its dated release as its API version.
  const reported = apiVersion?.string() ?? (edition === 'hosted' ? release : documented?.apiVersion);
  if (reported === undefined) {
    field.fail(
      field.child('apiVersion'),
      `the REST API version (currentVersion) that release ${release} reports is not known to the emulator; state it (it is not the release: Enterprise 11.3 reports "2024.1")`,
    );
  }
  return {
    id,
    name: o.optional('name')?.string() ?? id,
    edition,
    version: release,
    apiVersion: reported ?? '',
    build: o.optional('build')?.string() ?? documented?.build ?? '00000',
    access: o.optional('access')?.oneOf(['public', 'private'] as const) ?? 'public',
    isVerified: o.optional('isVerified')?.boolean() ?? false,
    hostname: o.optional('hostname')?.string() ?? 'portal.example.com',
    categorySchema: o.optional('categorySchema')?.array(readCategoryNode) ?? [],
    memberCategorySchema: o.optional('memberCategorySchema') ? o.required('memberCategorySchema').array(readCategoryNode) : null,
    securityPolicy,
    securityPolicyModified: o.optional('securityPolicyModified')?.integer() ?? (Object.keys(securityPolicy).length > 0 ? 0 : -1),
    collaborationPortalId: o.optional('collaborationPortalId')?.string() ?? guidFor(id),
    resources: o.optional('resources')?.array(readResource) ?? [],
    quotas: {
      ...(quotas?.optional('level1') ? { level1: quotas.required('level1').integer() } : {}),
      ...(quotas?.optional('level2') ? { level2: quotas.required('level2').integer() } : {}),
    },
  };
}

/** A stable GUID-form id derived from a short id (collaboration portal ids are GUIDs). */
export function guidFor(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function readCategoryNode(field: Field): CategoryNode {
  const o = field.object(['title', 'description', 'categories']);
  const description = o.optional('description')?.string();
  const categories = o.optional('categories')?.array(readCategoryNode);
  return {
    title: o.required('title').string(),
    ...(description !== undefined ? { description } : {}),
    ...(categories !== undefined ? { categories } : {}),
  };
}

const PASSWORD_RULES = ['minLength', 'minUpper', 'minLower', 'minLetter', 'minDigit', 'minOther', 'expirationInDays', 'historySize'] as const;

function readPasswordPolicy(field: Field): PasswordPolicy {
  const o = field.object([...PASSWORD_RULES]);
  const policy: PasswordPolicy = {};
  for (const rule of PASSWORD_RULES) {
    // null in the data file means "unset", like an absent rule.
    const value = o.optional(rule);
    if (value) policy[rule] = value.integer();
  }
  return policy;
}

function readResource(field: Field): PortalResource {
  const o = field.object(['key', 'size', 'created', 'contentBase64', 'contentType']);
  const key = o.required('key').string();
  const created = o.optional('created')?.integer() ?? 0;
  const contentType = o.optional('contentType')?.string();
  const contentField = o.optional('contentBase64');
  const sizeField = o.optional('size');
  if (!contentField) return { key, size: sizeField?.integer() ?? 0, created, ...(contentType !== undefined ? { contentType } : {}) };
  const contentBase64 = contentField.string();
  // Buffer.from skips what is not base64: checked first, so a typo is not a shorter file.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(contentBase64) || contentBase64.length % 4 !== 0) contentField.failHere('must be base64 text (A-Z, a-z, 0-9, +, /, = padding)');
  const size = Buffer.from(contentBase64, 'base64').length;
  if (sizeField && sizeField.integer() !== size) sizeField.failHere(`does not match contentBase64, which holds ${size} bytes; leave size out`);
  return { key, size, created, contentBase64, ...(contentType !== undefined ? { contentType } : {}) };
}

function readRole(field: Field): Role {
  const o = field.object(['id', 'name', 'description', 'privileges']);
  const id = o.required('id').string();
  return {
    id,
    name: o.optional('name')?.string() ?? id,
    description: o.optional('description')?.string() ?? '',
    privileges: o.optional('privileges')?.array((p) => p.string()) ?? [],
  };
}

function readUser(field: Field): User {
  const o = field.object(['username', 'fullName', 'role', 'level', 'password', 'licences', 'tasks', 'tags']);
  const username = o.required('username').string();
  const password = o.optional('password')?.string();
  return {
    username,
    fullName: o.optional('fullName')?.string() ?? username,
    role: o.optional('role')?.string() ?? 'org_user',
    level: o.optional('level')?.oneOf([1, 2] as const) ?? 2,
    tags: o.optional('tags')?.array((t) => t.string()) ?? [],
    ...(password !== undefined ? { password } : {}),
    licences: o.optional('licences')?.array(readLicence) ?? [],
    tasks: o.optional('tasks')?.array(readTask) ?? [],
  };
}

function readLicence(field: Field): Licence {
  const o = field.object(['app', 'minLevel']);
  return { app: o.required('app').string(), minLevel: o.optional('minLevel')?.oneOf([1, 2] as const) ?? 1 };
}

function readTask(field: Field): Task {
  const o = field.object(['id', 'title', 'active', 'type', 'itemId']);
  const id = o.required('id').string();
  return {
    id,
    title: o.optional('title')?.string() ?? id,
    active: o.optional('active')?.boolean() ?? true,
    type: o.optional('type')?.string() ?? 'ExecuteNotebook',
    itemId: o.optional('itemId')?.string() ?? '',
  };
}

function readToken(field: Field): Token {
  const o = field.object(['token', 'username', 'expires', 'referer', 'clientId', 'refreshOf']);
  const expires = o.optional('expires')?.integer();
  const referer = o.optional('referer')?.string();
  const clientId = o.optional('clientId')?.string();
  const refreshOf = o.optional('refreshOf')?.string();
  return {
    ...(clientId !== undefined ? { clientId } : {}),
    ...(refreshOf !== undefined ? { refreshOf } : {}),
    token: o.required('token').string(),
    username: o.required('username').string(),
    ...(expires !== undefined ? { expires } : {}),
    ...(referer !== undefined ? { referer } : {}),
  };
}

function readOAuthClient(field: Field): OAuthClient {
  const o = field.object(['clientId', 'clientSecret', 'username', 'title', 'privileges', 'authorizationCodes']);
  const clientId = o.required('clientId').string();
  return {
    clientId,
    clientSecret: o.required('clientSecret').string(),
    username: o.required('username').string(),
    title: o.optional('title')?.string() ?? clientId,
    privileges: o.optional('privileges')?.array((p) => p.string()) ?? [],
    authorizationCodes:
      o.optional('authorizationCodes')?.array((entry) => {
        const e = entry.object(['code', 'username']);
        return { code: e.required('code').string(), username: e.required('username').string() };
      }) ?? [],
  };
}

function readGroup(field: Field): Group {
  const o = field.object(['id', 'title', 'owner', 'managers', 'members', 'access', 'tags', 'categorySchema', 'created']);
  const id = o.required('id').string();
  return {
    id,
    title: o.optional('title')?.string() ?? id,
    owner: o.required('owner').string(),
    managers: o.optional('managers')?.array((m) => m.string()) ?? [],
    members: o.optional('members')?.array((m) => m.string()) ?? [],
    access: o.optional('access')?.oneOf(['private', 'org', 'public'] as const) ?? 'org',
    tags: o.optional('tags')?.array((t) => t.string()) ?? [],
    categorySchema: o.optional('categorySchema')?.array(readCategoryNode) ?? [],
    created: o.optional('created')?.integer() ?? 0,
  };
}

function readItem(field: Field): Item {
  const o = field.object(['id', 'title', 'owner', 'access', 'contentStatus', 'type', 'tags', 'categories', 'created']);
  const id = o.required('id').string();
  const status = o.optional('contentStatus')?.oneOf(['org_authoritative', 'public_authoritative', 'deprecated'] as const);
  return {
    id,
    title: o.optional('title')?.string() ?? id,
    owner: o.required('owner').string(),
    access: o.optional('access')?.oneOf(['private', 'org', 'public', 'shared'] as const) ?? 'private',
    ...(status !== undefined ? { contentStatus: status } : {}),
    type: o.optional('type')?.string() ?? 'Web Map',
    tags: o.optional('tags')?.array((t) => t.string()) ?? [],
    categories: o.optional('categories')?.array((c) => c.string()) ?? [],
    created: o.optional('created')?.integer() ?? 0,
  };
}

function readFederation(field: Field): Federation {
  const o = field.object([
    'id', 'name', 'discoveryServiceUrl', 'metadataServiceUrl', 'certificate', 'entityId', 'userCreditAssignment',
    'groups', 'encryptionSupported', 'supportSignedRequest', 'supportsLogoutRequest', 'updateProfileAtSignin',
    'updateGroupsAtSignin', 'signUpMode', 'roleId', 'level', 'userLicenseType', 'userType', 'useSHA256',
  ]);
  const optionalString = (key: string): Record<string, string> => {
    const value = o.optional(key)?.string();
    return value !== undefined ? { [key]: value } : {};
  };
  const credit = o.optional('userCreditAssignment')?.number();
  const id = o.required('id').string();
  return {
    id,
    name: o.optional('name')?.string() ?? id,
    ...optionalString('discoveryServiceUrl'),
    ...optionalString('metadataServiceUrl'),
    ...optionalString('certificate'),
    ...optionalString('entityId'),
    ...(credit !== undefined ? { userCreditAssignment: credit } : {}),
    groups: o.optional('groups')?.array((g) => g.string()) ?? [],
    encryptionSupported: o.optional('encryptionSupported')?.boolean() ?? false,
    supportSignedRequest: o.optional('supportSignedRequest')?.boolean() ?? false,
    supportsLogoutRequest: o.optional('supportsLogoutRequest')?.boolean() ?? false,
    updateProfileAtSignin: o.optional('updateProfileAtSignin')?.boolean() ?? false,
    updateGroupsAtSignin: o.optional('updateGroupsAtSignin')?.boolean() ?? false,
    useSHA256: o.optional('useSHA256')?.boolean() ?? false,
    signUpMode: o.optional('signUpMode')?.oneOf(['Automatic', 'Invitation'] as const) ?? 'Invitation',
    ...optionalString('roleId'),
    ...optionalString('level'),
    ...optionalString('userLicenseType'),
    userType: o.optional('userType')?.oneOf(['platformonly', 'both'] as const) ?? 'platformonly',
  };
}

const ACCESS_MODES = ['send', 'receive', 'sendAndReceive'] as const;

function readCollaboration(field: Field, organization: Organization, users: readonly User[]): Collaboration {
  const o = field.object(['id', 'name', 'description', 'hostPortalId', 'ownerUsername', 'workspaces', 'participants', 'invitations']);
  const id = o.required('id').string();
  const firstAdmin = users.find((user) => user.role === 'org_admin')?.username ?? '';
  const hostPortalId = o.optional('hostPortalId')?.string() ?? organization.collaborationPortalId;
  return {
    id,
    name: o.optional('name')?.string() ?? id,
    description: o.optional('description')?.string() ?? '',
    hostPortalId,
    ownerUsername: o.optional('ownerUsername')?.string() ?? firstAdmin,
    workspaces: o.optional('workspaces')?.array(readWorkspace) ?? [],
    participants: o.optional('participants')?.array((participant) => readParticipant(participant, hostPortalId)) ?? [],
    invitations: o.optional('invitations')?.array(readInvitation) ?? [],
  };
}

function readWorkspace(field: Field): Workspace {
  const o = field.object(['id', 'name', 'description', 'config', 'participantGroupLinks', 'participantsWithoutGroupLinks']);
  const id = o.required('id').string();
  return {
    id,
    name: o.optional('name')?.string() ?? id,
    description: o.optional('description')?.string() ?? '',
    config: o.optional('config')?.let(readWorkspaceConfig) ?? {},
    participantGroupLinks:
      o.optional('participantGroupLinks')?.array((link) => {
        const l = link.object(['portalId', 'portalGroupId', 'accessMode']);
        return {
          portalId: l.required('portalId').string(),
          portalGroupId: l.required('portalGroupId').string(),
          accessMode: l.optional('accessMode')?.oneOf(ACCESS_MODES) ?? 'sendAndReceive',
        };
      }) ?? [],
    participantsWithoutGroupLinks:
      o.optional('participantsWithoutGroupLinks')?.array((entry) => {
        const e = entry.object(['portalId', 'accessMode']);
        return { portalId: e.required('portalId').string(), accessMode: e.optional('accessMode')?.oneOf(ACCESS_MODES) ?? 'sendAndReceive' };
      }) ?? [],
  };
}

function readWorkspaceConfig(field: Field): WorkspaceConfig {
  const o = field.object(['maxItemSizeInMB', 'maxReplicationPackageSizeInMB', 'copyByRefIfCopyFail']);
  const maxItem = o.optional('maxItemSizeInMB')?.number();
  const maxPackage = o.optional('maxReplicationPackageSizeInMB')?.number();
  const copyByRef = o.optional('copyByRefIfCopyFail')?.boolean();
  return {
    ...(maxItem !== undefined ? { maxItemSizeInMB: maxItem } : {}),
    ...(maxPackage !== undefined ? { maxReplicationPackageSizeInMB: maxPackage } : {}),
    ...(copyByRef !== undefined ? { copyByRefIfCopyFail: copyByRef } : {}),
  };
}

function readWorkspaceModes(field: Field): Record<string, AccessMode> {
  const o = field.object(null);
  const modes: Record<string, AccessMode> = {};
  for (const key of o.keys()) modes[key] = o.required(key).oneOf(ACCESS_MODES);
  return modes;
}

/** The host participant is the one whose id is the collaboration's `hostPortalId`; `role` may only restate that. */
function readParticipant(field: Field, hostPortalId: string): Participant {
  const o = field.object(['portalId', 'url', 'name', 'role']);
  const portalId = o.required('portalId').string();
  const expected = portalId === hostPortalId ? 'Host' : 'Guest';
  const roleField = o.optional('role');
  const role = roleField?.oneOf(['Host', 'Guest'] as const) ?? expected;
  if (roleField && role !== expected) {
    roleField.failHere(`must be ${expected}: the host participant is the one whose portalId is the collaboration's hostPortalId (${hostPortalId})`);
  }
  return {
    portalId,
    url: o.required('url').string(),
    name: o.optional('name')?.string() ?? portalId,
    role,
  };
}

function readInvitation(field: Field): Invitation {
  const o = field.object(['id', 'guestPortalUrl', 'workspaces', 'expiration', 'created']);
  return {
    id: o.required('id').string(),
    guestPortalUrl: o.required('guestPortalUrl').string(),
    workspaces: o.optional('workspaces')?.let(readWorkspaceModes) ?? {},
    expiration: o.required('expiration').integer(),
    created: o.optional('created')?.integer() ?? 0,
  };
}

/** A value at a path in the document, with typed accessors that fail naming the path. */
class Field {
  constructor(
    readonly value: unknown,
    private readonly source: string,
    readonly path: string,
  ) {}

  fail(path: string, problem: string): never {
    throw new EmulatorDataError(this.source, path, problem);
  }

  failHere(problem: string): never {
    return this.fail(this.path, problem);
  }

  private expected(what: string): never {
    return this.failHere(`expected ${what}, found ${describe(this.value)}`);
  }

  string(): string {
    return typeof this.value === 'string' ? this.value : this.expected('a string');
  }

  number(): number {
    return typeof this.value === 'number' && Number.isFinite(this.value) ? this.value : this.expected('a number');
  }

  integer(): number {
    return typeof this.value === 'number' && Number.isInteger(this.value) ? this.value : this.expected('an integer');
  }

  boolean(): boolean {
    return typeof this.value === 'boolean' ? this.value : this.expected('true or false');
  }

  oneOf<const T extends string | number>(choices: readonly T[]): T {
    const found = choices.find((choice) => choice === this.value);
    return found !== undefined ? found : this.expected(`one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
  }

  let<T>(read: (field: Field) => T): T {
    return read(this);
  }

  array<T>(readElement: (field: Field) => T): T[] {
    if (!Array.isArray(this.value)) return this.expected('a list');
    return this.value.map((element, index) => readElement(new Field(element, this.source, `${this.path}[${index}]`)));
  }

  /** An object whose keys must be among `allowed` (null: any key). */
  object(allowed: readonly string[] | null): ObjectField {
    if (!isRecord(this.value)) return this.expected('a mapping');
    const record = this.value;
    if (allowed) {
      const unknownKey = Object.keys(record).find((key) => !allowed.includes(key));
      if (unknownKey !== undefined) {
        this.fail(this.child(unknownKey), `unknown field (expected one of: ${allowed.join(', ')})`);
      }
    }
    return new ObjectField(record, this.source, this);
  }

  child(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }
}

class ObjectField {
  constructor(
    private readonly record: Record<string, unknown>,
    private readonly source: string,
    private readonly parent: Field,
  ) {}

  keys(): string[] {
    return Object.keys(this.record);
  }

  /** The field, or undefined when absent or null (null means "unset" in a data file). */
  optional(key: string): Field | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    return new Field(value, this.source, this.parent.child(key));
  }

  required(key: string): Field {
    const field = this.optional(key);
    return field ?? this.parent.fail(this.parent.child(key), 'required field is missing');
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}
