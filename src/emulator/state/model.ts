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
  /** Bytes; the length of `contentBase64` when that is given. */
  size: number;
  /** Epoch milliseconds. */
  created: number;
  /**
   * The file itself, base64 (the state is JSON), as `addResource` stored it; absent for a
   * resource the data file only names, which `portals/self/resources/<key>` serves empty.
   */
  contentBase64?: string;
  /** What `portals/self/resources/<key>` answers as Content-Type; default application/octet-stream. */
  contentType?: string;
}

export interface Organization {
  id: string;
  name: string;
  edition: Edition;
  /**
   * The product release the emulator plays, a string compared part by part (never as a float):
   * an ArcGIS Enterprise release such as "11.3" or "10.6.1" on the self-managed edition, a dated
   * release such as "2024.1" on the hosted one. Every version gate of the spec follows it.
   */
  version: string;
  /**
   * The REST API version the portal reports as `currentVersion` (root and `portals/self`): not
   * the release ("2024.1" on Enterprise 11.3, per the documentation's Root resource page).
   * Default: the documented API version of `version` (routes/versions.ts), and on the hosted
   * edition the dated release itself; any other release must state it.
   */
  apiVersion: string;
  /** The build number: `enterpriseBuild` at the root from 11.3, and the Portal Administration root's `currentbuild`. */
  build: string;
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
  /**
   * The organization's portal id in collaborations (GUID form with dashes, as in
   * `collaborationHostPortalId` and `participants[].portalInfo.id`); distinct from the short `id`.
   */
  collaborationPortalId: string;
  /** Epoch ms; -1 while the password policy was never customised (`passwordPolicy.type` "default"). */
  securityPolicyModified: number;
}

export interface Task {
  id: string;
  title: string;
  active: boolean;
  /** The task kind (ExecuteNotebook, UpdateInsightsWorkbook, ...). */
  type: string;
  /** The item the task runs (a notebook, ...). */
  itemId: string;
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
  tags: string[];
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
  /** Set for app tokens (oauth2/token client credentials): the app whose privileges apply. */
  clientId?: string;
  /** Set for refresh tokens (authorization_code grant): the app they were issued to. Never an access token. */
  refreshOf?: string;
}

/**
 * An OAuth application for the client-credentials grant. Its tokens act with the app's own
 * `privileges` (not its owner's), and `portals/self` shows them in `appInfo`.
 */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  /** The app's owner (`appInfo.appOwner`). */
  username: string;
  title: string;
  privileges: string[];
  /** Codes for the authorization_code grant (as if the user had signed in); each works once. */
  authorizationCodes: { code: string; username: string }[];
}

export interface Group {
  id: string;
  title: string;
  owner: string;
  managers: string[];
  /** Plain members (the owner and managers are members too). */
  members: string[];
  access: 'private' | 'org' | 'public';
  tags: string[];
  categorySchema: CategoryNode[];
  /** Epoch milliseconds. */
  created: number;
}

export interface Item {
  id: string;
  title: string;
  owner: string;
  access: 'private' | 'org' | 'public' | 'shared';
  /** Absent = no status. */
  contentStatus?: ItemStatus;
  type: string;
  tags: string[];
  categories: string[];
  /** Epoch milliseconds. */
  created: number;
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
  useSHA256: boolean;
  userType: 'platformonly' | 'both';
}

export interface WorkspaceConfig {
  maxItemSizeInMB?: number;
  maxReplicationPackageSizeInMB?: number;
  copyByRefIfCopyFail?: boolean;
}

/** A participant's group linked to a workspace, with the participant's access to that workspace. */
export interface GroupLink {
  /** A collaboration portal id (GUID form). */
  portalId: string;
  portalGroupId: string;
  accessMode: AccessMode;
}

/** A participant that takes part in a workspace without a linked group. */
export interface UnlinkedParticipant {
  portalId: string;
  accessMode: AccessMode;
}

/** Per-participant access lives here, never on the participant (documented shape). */
export interface Workspace {
  id: string;
  name: string;
  description: string;
  config: WorkspaceConfig;
  participantGroupLinks: GroupLink[];
  participantsWithoutGroupLinks: UnlinkedParticipant[];
}

export interface Participant {
  /** The participant's collaboration portal id (GUID form): `portalInfo.id`. */
  portalId: string;
  url: string;
  name: string;
  role: 'Host' | 'Guest';
}

export interface Invitation {
  id: string;
  guestPortalUrl: string;
  /** Workspace id -> access mode the guest is invited with. */
  workspaces: Record<string, AccessMode>;
  /** Epoch milliseconds; past it the invitation reads as status "expired". */
  expiration: number;
  created: number;
}

export interface Collaboration {
  id: string;
  name: string;
  description: string;
  /** The portal that hosts the collaboration (GUID form); only its administrators may update or invite. */
  hostPortalId: string;
  ownerUsername: string;
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
