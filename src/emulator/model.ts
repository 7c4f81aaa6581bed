/**
 * The emulator's state: one organization, as described by a data file (YAML or JSON,
 * `examples/emulator/portal.yaml`). This file is the data file's documented format.
 * The emulator imports nothing from the rest of portalctl, so these types are its own.
 */

export type Edition = 'self-managed' | 'hosted';
export type ItemStatus = 'org_authoritative' | 'public_authoritative' | 'deprecated';
export type AccessMode = 'send' | 'receive' | 'sendAndReceive';

export interface CategoryNode {
  title: string;
  description?: string;
  categories?: CategoryNode[];
}

/** Password policy; an unset rule is absent (null in the data file is accepted and dropped). */
export interface PasswordPolicy {
  minLength?: number;
  minUpper?: number;
  minLower?: number;
  minLetter?: number;
  minDigit?: number;
  minOther?: number;
  expirationInDays?: number;
  historySize?: number;
}

export interface PortalResource {
  key: string;
  size: number;
  /** Epoch milliseconds. */
  created: number;
}

export interface Organization {
  id: string;
  name: string;
  edition: Edition;
  /** Product version, a string such as "11.3" or "2025.1" (never compared as a float). */
  version: string;
  access: 'public' | 'private';
  isVerified: boolean;
  /** Hostname used in `portals/self` (`portalHostname`) and collaboration participant URLs. */
  hostname: string;
  categorySchema: CategoryNode[];
  /** The member category schema; null when the organization has none. */
  memberCategorySchema: CategoryNode[] | null;
  securityPolicy: PasswordPolicy;
  resources: PortalResource[];
  /** Remaining seats per user level; a level that is absent is unlimited. */
  quotas: { level1?: number; level2?: number };
}

export interface Task {
  id: string;
  title: string;
  active: boolean;
}

/** A premium app licence and the lowest user level it is allowed at. */
export interface Licence {
  app: string;
  minLevel: 1 | 2;
}

export type BuiltInRole = 'org_admin' | 'org_publisher' | 'org_user';

export interface User {
  username: string;
  fullName: string;
  /** A built-in role, or the id of a custom role in `roles`. */
  role: BuiltInRole | string;
  level: 1 | 2;
  /** For generateToken; never returned by any read. */
  password?: string;
  licences: Licence[];
  tasks: Task[];
}

export interface Role {
  id: string;
  name: string;
  description: string;
  privileges: string[];
}

export interface Token {
  token: string;
  username: string;
  /** Epoch milliseconds; absent = never expires. */
  expires?: number;
  /** Tokens made with client=referer are accepted only with this Referer header. */
  referer?: string;
}

/** An OAuth application for the client-credentials grant; its tokens act as `username`. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  username: string;
}

export interface Group {
  id: string;
  title: string;
  owner: string;
  managers: string[];
  categorySchema: CategoryNode[];
}

export interface Item {
  id: string;
  title: string;
  owner: string;
  access: 'private' | 'org' | 'public' | 'shared';
  /** Absent = no status. */
  contentStatus?: ItemStatus;
}

export interface Federation {
  id: string;
  name: string;
  discoveryServiceUrl?: string;
  metadataServiceUrl?: string;
  certificate?: string;
  entityId?: string;
  userCreditAssignment?: number;
  groups: string[];
  encryptionSupported: boolean;
  supportSignedRequest: boolean;
  supportsLogoutRequest: boolean;
  updateProfileAtSignin: boolean;
  updateGroupsAtSignin: boolean;
  signUpMode: 'Automatic' | 'Invitation';
  roleId?: string;
  level?: string;
  userLicenseType?: string;
  userType: 'platformonly' | 'both';
}

export interface WorkspaceConfig {
  maxItemSizeInMB?: number;
  maxReplicationPackageSizeInMB?: number;
  copyByRefIfCopyFail?: boolean;
}

export interface Workspace {
  id: string;
  name: string;
  description: string;
  config: WorkspaceConfig;
  participantGroupLinks: { portalId: string; portalGroupId: string }[];
  participantsWithoutGroupLinks: string[];
}

export interface Participant {
  portalId: string;
  url: string;
  name: string;
  /** Workspace id -> access mode. */
  workspaces: Record<string, AccessMode>;
}

export interface Invitation {
  id: string;
  guestPortalUrl: string;
  status: 'pending';
  /** Workspace id -> access mode. */
  workspaces: Record<string, AccessMode>;
  /** Epoch milliseconds. */
  expiration: number;
  created: number;
}

export interface Collaboration {
  id: string;
  name: string;
  /** The portal that hosts the collaboration; only its administrators may update or invite. */
  hostPortalId: string;
  workspaces: Workspace[];
  participants: Participant[];
  invitations: Invitation[];
}

export interface EmulatorState {
  organization: Organization;
  users: User[];
  roles: Role[];
  tokens: Token[];
  oauthClients: OAuthClient[];
  groups: Group[];
  items: Item[];
  /** One federation per organization, or none. */
  federation: Federation | null;
  collaborations: Collaboration[];
}

/** Privileges a level 1 user may hold; any other privilege of a custom role is disabled. */
export const LEVEL_1_PRIVILEGES: readonly string[] = [
  'portal:user:joinGroup',
  'portal:user:viewOrgGroups',
  'portal:user:viewOrgItems',
  'portal:user:viewOrgUsers',
  'premium:user:geocode',
  'premium:user:networkanalysis',
  'premium:user:demographics',
  'premium:user:elevation',
  'portal:user:joinNonOrgGroup',
];
