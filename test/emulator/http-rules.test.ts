/**
 * The spec's rules, one row each, over real HTTP: errors table, limits at and one past the
 * boundary, enums, version gates, the Authentication table, automatic status transitions and
 * paging. One emulator (port 0) for the file, reset before every row; every error row also shows
 * that the state is byte-for-byte unchanged.
 */
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { CategoryNode, EmulatorState } from '../../src/emulator/state/model.js';
import { emulatorPerFile, SAMPLE_DATA } from './server/helpers.js';


const OWNED_BY_JSMITH_GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const PLANNING_GROUP = 'b4850fb244bf4fbc8b918c96f267b2cf';
const ROAD = '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e';
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617';
const FLOOD_ZONES = '668187ae19cd4cae9460087d0ef47e60';
const FEDERATION = 'J55ajJJ7MsY1QoQs';
const COLLAB = '/portals/self/collaborations/c0ffee';
const E1 = `/community/groups/${PLANNING_GROUP}/assignCategorySchema`;
const E2 = '/portals/self/assignCategorySchema';
const E3 = `/content/items/${PARCELS}/setContentStatus`;
const E4 = '/portals/self/updateUserLevel';
const E5 = '/portals/self/deleteMemberCategorySchema';
const E6 = `/portals/self/idp/federation/${FEDERATION}/update`;
const E7 = '/community/users/jsmith/tasks/a1b2c3/enable';
const E8 = '/portals/self/securityPolicy/update';
const E9 = `${COLLAB}/workspaces/w1/updateInfo`;
const E10 = '/portals/self/roles/cAt5Ad/update';
const E11 = `${COLLAB}/participants/7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b/remove`;
const E12 = '/portals/self/removeResource';
const E13 = `${COLLAB}/inviteParticipant`;
const E14 = `${COLLAB}/workspaces/w1/removePortalGroupLink`;
const GUEST = 'https://maps.guest.example.org/portal';

type Adjustment = (state: EmulatorState) => void;

type Expected =
  /** The exact JSON body. */
  | { success: Record<string, unknown> }
  /** E13: a download named collaboration-<host>.invite. */
  | { invitationFor: string }
  /** The error envelope; messageCode undefined means the envelope has none. */
  | { error: { code: number; messageCode?: string; details?: string[]; says?: RegExp } };

interface Row {
  name: string;
  /** Each adjustment is one PUT /_emulator/state (so the portal's automatic transitions run between them). */
  setup?: Adjustment[];
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  params?: Record<string, string>;
  /** Sent as the whole request body (application/json) instead of a form (E2's sample). */
  rawBody?: string;
  /** Default admin-token; null sends none. */
  token?: string | null;
  expect: Expected;
  /** Checks on the state after a success. */
  effect?: (state: EmulatorState) => void;
}

// ---------------------------------------------------------------------------------------------
// Builders

const version =
  (value: string, edition: EmulatorState['organization']['edition'] = 'self-managed'): Adjustment =>
  (state) => {
    state.organization.version = value;
    state.organization.edition = edition;
  };

const schema = (trees: CategoryNode[]): string => JSON.stringify({ categorySchema: trees });
const treesOf = (count: number): CategoryNode[] => Array.from({ length: count }, (_, index) => ({ title: `Tree ${index + 1}` }));
/** One chain `levels` deep, the tree itself being level 1. */
function chainOf(levels: number): CategoryNode[] {
  let node: CategoryNode = { title: `Level ${levels}` };
  for (let level = levels - 1; level >= 1; level -= 1) node = { title: `Level ${level}`, categories: [node] };
  return [node];
}
/** One tree holding `count` categories below it. */
const categoriesOf = (count: number): CategoryNode[] => [
  { title: 'Tree', categories: Array.from({ length: count }, (_, index) => ({ title: `Category ${index + 1}` })) },
];
const titled = (title: string): CategoryNode[] => [{ title: 'Tree', categories: [{ title }] }];
const described = (length: number): CategoryNode[] => [{ title: 'Tree', description: 'd'.repeat(length) }];

const ok = (extra: Record<string, unknown> = {}): Expected => ({ success: { success: true, ...extra } });
const fails = (code: number, messageCode?: string, details?: string[]): Expected => ({
  error: { code, ...(messageCode !== undefined ? { messageCode } : {}), ...(details !== undefined ? { details } : {}) },
});
/** Code 400 without a messageCode (none is documented for the condition); `says` tells which condition it was. */
const refused = (says: RegExp): Expected => ({ error: { code: 400, says } });
const forbidden = fails(403, 'GWM_0003');
const gated = refused(/^Invalid URL/);
const TOO_MANY_OR_EMPTY = ['schema exceeds maximum tree size or is empty'];
const INVALID = ['invalid category schema'];

const invite = (modes: string, extra: Record<string, string> = {}): Record<string, string> => ({
  guestPortalUrl: GUEST,
  collaborationWorkspacesParticipantConfigJSON: modes,
  ...extra,
});

// ---------------------------------------------------------------------------------------------
// Rows

/** Category schema rules shared by E1 (group) and E2 (organization); the title/description limits differ. */
function categorySchemaRows(scope: 'group' | 'organization', path: string, maxTitle: number, maxDescription: number): Row[] {
  const row = (name: string, trees: CategoryNode[], expected: Expected): Row => ({
    name: `${scope === 'group' ? 'E1' : 'E2'} ${name}`,
    path,
    params: { categorySchema: schema(trees) },
    expect: expected,
  });
  return [
    {
      ...row('5 trees (limit) passes', treesOf(5), ok()),
      effect: (state) => {
        const stored = scope === 'group' ? state.groups.find((group) => group.id === PLANNING_GROUP)?.categorySchema : state.organization.categorySchema;
        expect(stored).toEqual(treesOf(5));
      },
    },
    row('6 trees: ORG_1132 exceeds maximum tree size', treesOf(6), fails(400, 'ORG_1132', TOO_MANY_OR_EMPTY)),
    row('no tree: ORG_1132 empty', [], fails(400, 'ORG_1132', TOO_MANY_OR_EMPTY)),
    { name: `${scope === 'group' ? 'E1' : 'E2'} not JSON: ORG_1132 invalid`, path, params: { categorySchema: '{"categorySchema": [' }, expect: fails(400, 'ORG_1132', INVALID) },
    {
      name: `${scope === 'group' ? 'E1' : 'E2'} wrong shape (trees not an array): ORG_1132 invalid`,
      path,
      params: { categorySchema: '{"categorySchema":{"title":"Themes"}}' },
      expect: fails(400, 'ORG_1132', INVALID),
    },
    {
      name: `${scope === 'group' ? 'E1' : 'E2'} unknown node field: ORG_1132 invalid`,
      path,
      params: { categorySchema: '{"categorySchema":[{"title":"Themes","colour":"red"}]}' },
      expect: fails(400, 'ORG_1132', INVALID),
    },
    row('4 levels (limit) passes', chainOf(4), ok()),
    row('5 levels fails', chainOf(5), refused(/more than 4 levels/)),
    row('200 categories (limit) passes', categoriesOf(200), ok()),
    row('201 categories fails', categoriesOf(201), refused(/more than 200 categories/)),
    row(`title of ${maxTitle} characters (limit) passes`, titled('t'.repeat(maxTitle)), ok()),
    row(`title of ${maxTitle + 1} characters fails`, titled('t'.repeat(maxTitle + 1)), refused(/title is too long/)),
    row(`description of ${maxDescription} characters (limit) passes`, described(maxDescription), ok()),
    row(`description of ${maxDescription + 1} characters fails`, described(maxDescription + 1), refused(/description is too long/)),
    row("reserved '/' in a title fails", titled('Roads/Rails'), refused(/reserved character/)),
    row("reserved ',' in a title fails", titled('Roads, Rails'), refused(/reserved character/)),
  ];
}

const groupRows: Row[] = [
  ...categorySchemaRows('group', E1, 99, 299),
  { name: 'E1 gate: self-managed 10.6.1 passes', setup: [version('10.6.1')], path: E1, params: { categorySchema: schema(treesOf(1)) }, expect: ok() },
  { name: 'E1 gate: self-managed 10.6 is refused', setup: [version('10.6')], path: E1, params: { categorySchema: schema(treesOf(1)) }, expect: gated },
  { name: 'E1 gate: hosted passes whatever its version', setup: [version('10.1', 'hosted')], path: E1, params: { categorySchema: schema(treesOf(1)) }, expect: ok() },
  {
    name: 'E1 auth: the group owner (jsmith) may assign',
    path: `/community/groups/${OWNED_BY_JSMITH_GROUP}/assignCategorySchema`,
    params: { categorySchema: schema(treesOf(1)) },
    token: 'jsmith-token',
    expect: ok(),
  },
  {
    name: 'E1 auth: a group manager (admin) may assign',
    path: `/community/groups/${OWNED_BY_JSMITH_GROUP}/assignCategorySchema`,
    params: { categorySchema: schema(treesOf(1)) },
    expect: ok(),
  },
  { name: 'E1 auth: neither owner nor manager (jsmith) gets 403', path: E1, params: { categorySchema: schema(treesOf(1)) }, token: 'jsmith-token', expect: forbidden },
  { name: 'E1 auth: no token gets 499', path: E1, params: { categorySchema: schema(treesOf(1)) }, token: null, expect: fails(499) },
  { name: 'E1 auth: expired token gets 498', path: E1, params: { categorySchema: schema(treesOf(1)) }, token: 'expired-token', expect: fails(498) },
];

const organizationSchemaRows: Row[] = [
  ...categorySchemaRows('organization', E2, 100, 300),
  { name: 'E2 the schema object as the whole JSON body passes', path: E2, rawBody: schema(treesOf(2)), expect: ok(), effect: (state) => expect(state.organization.categorySchema).toEqual(treesOf(2)) },
  { name: 'E2 auth: custom role with updateItemCategorySchema (steward) may assign', path: E2, params: { categorySchema: schema(treesOf(1)) }, token: 'steward-token', expect: ok() },
  { name: 'E2 auth: jsmith (no privilege) gets 403', path: E2, params: { categorySchema: schema(treesOf(1)) }, token: 'jsmith-token', expect: forbidden },
  { name: 'E2 auth: no token gets 499', path: E2, params: { categorySchema: schema(treesOf(1)) }, token: null, expect: fails(499) },
  { name: 'E2 auth: expired token gets 498', path: E2, params: { categorySchema: schema(treesOf(1)) }, token: 'expired-token', expect: fails(498) },
];

const verifiedPublic: Adjustment = (state) => {
  state.organization.access = 'public';
  state.organization.isVerified = true;
};

const contentRows: Row[] = [
  ...(['deprecated', 'org_authoritative'] as const).map(
    (status): Row => ({
      name: `E3 status ${status} passes`,
      path: E3,
      params: { status, clearEmptyFields: 'false' },
      expect: ok({ itemId: PARCELS }),
      effect: (state) => expect(state.items.find((item) => item.id === PARCELS)?.contentStatus).toBe(status),
    }),
  ),
  { name: 'E3 status public_authoritative in a public verified organization passes', setup: [verifiedPublic], path: E3, params: { status: 'public_authoritative' }, expect: ok({ itemId: PARCELS }) },
  { name: 'E3 CONT_0163: public_authoritative in a public, unverified organization', path: E3, params: { status: 'public_authoritative' }, expect: fails(400, 'CONT_0163', []) },
  {
    name: 'E3 CONT_0163: public_authoritative in a verified, private organization',
    setup: [(state) => {
      state.organization.access = 'private';
      state.organization.isVerified = true;
    }],
    path: E3,
    params: { status: 'public_authoritative' },
    expect: fails(400, 'CONT_0163', []),
  },
  { name: 'E3 enum: status "authoritative" is refused', path: E3, params: { status: 'authoritative' }, expect: refused(/must be one of/) },
  { name: 'E3 enum: clearEmptyFields "yes" is refused', path: E3, params: { status: 'deprecated', clearEmptyFields: 'yes' }, expect: refused(/must be true or false/) },
  {
    name: 'E3 empty status with clearEmptyFields=true clears it',
    path: `/content/items/${FLOOD_ZONES}/setContentStatus`,
    params: { status: '', clearEmptyFields: 'true' },
    expect: ok({ itemId: FLOOD_ZONES }),
    effect: (state) => expect(state.items.find((item) => item.id === FLOOD_ZONES)?.contentStatus).toBeUndefined(),
  },
  { name: 'E3 empty status without clearEmptyFields is refused', path: `/content/items/${FLOOD_ZONES}/setContentStatus`, params: { status: '' }, expect: refused(/empty status needs clearEmptyFields/) },
  { name: 'E3 auth: the item owner (jsmith) may set', path: `/content/items/${FLOOD_ZONES}/setContentStatus`, params: { status: 'org_authoritative' }, token: 'jsmith-token', expect: ok({ itemId: FLOOD_ZONES }) },
  { name: 'E3 auth: custom role with updateItems (steward) may set', path: E3, params: { status: 'deprecated' }, token: 'steward-token', expect: ok({ itemId: PARCELS }) },
  { name: 'E3 auth: neither owner nor privileged (jsmith) gets 403', path: E3, params: { status: 'deprecated' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E3 auth: no token gets 499', path: E3, params: { status: 'deprecated' }, token: null, expect: fails(499) },
  { name: 'E3 auth: expired token gets 498', path: E3, params: { status: 'deprecated' }, token: 'expired-token', expect: fails(498) },
  { name: 'E3 method: GET on a write is refused (405)', method: 'GET', path: E3, params: { status: 'deprecated' }, expect: fails(405) },
];

const itemView = (contentStatus: string, access: string, id = ROAD): Record<string, unknown> => {
  const sample: Record<string, { title: string; owner: string }> = {
    [ROAD]: { title: 'Road Centerlines', owner: 'publisher1' },
    [PARCELS]: { title: 'Parcels 2019', owner: 'publisher1' },
  };
  return { id, ...sample[id], access, contentStatus };
};
const setItem =
  (id: string, change: Partial<EmulatorState['items'][number]>): Adjustment =>
  (state) => {
    const item = state.items.find((candidate) => candidate.id === id);
    if (!item) throw new Error(`no item ${id} in the sample data`);
    Object.assign(item, change);
  };
const verify: Adjustment = (state) => {
  state.organization.isVerified = true;
};

const transitionRows: Row[] = [
  { name: 'transition: verifying the organization turns its public org_authoritative item public_authoritative', setup: [verify], method: 'GET', path: `/content/items/${ROAD}`, expect: { success: itemView('public_authoritative', 'public') } },
  {
    name: 'transition: unsharing a public_authoritative item turns it org_authoritative',
    setup: [verify, setItem(ROAD, { access: 'org' })],
    method: 'GET',
    path: `/content/items/${ROAD}`,
    expect: { success: itemView('org_authoritative', 'org') },
  },
  {
    name: 'transition: sharing an org_authoritative item publicly in a verified organization turns it public_authoritative',
    setup: [verify, setItem(PARCELS, { contentStatus: 'org_authoritative' }), setItem(PARCELS, { access: 'public' })],
    method: 'GET',
    path: `/content/items/${PARCELS}`,
    expect: { success: itemView('public_authoritative', 'public', PARCELS) },
  },
  {
    name: 'transition: sharing publicly in an unverified organization keeps org_authoritative',
    setup: [setItem(PARCELS, { contentStatus: 'org_authoritative' }), setItem(PARCELS, { access: 'public' })],
    method: 'GET',
    path: `/content/items/${PARCELS}`,
    expect: { success: itemView('org_authoritative', 'public', PARCELS) },
  },
];

const at1061 = version('10.6.1');
const userRows: Row[] = [
  {
    name: 'E4 gate: self-managed 10.6.1, level 1 for a custom-role user passes',
    setup: [at1061],
    path: E4,
    params: { user: 'mlopez', level: '1' },
    expect: ok(),
    effect: (state) => expect(state.users.find((user) => user.username === 'mlopez')?.level).toBe(1),
  },
  { name: 'E4 gate: self-managed 10.5 passes', setup: [version('10.5')], path: E4, params: { user: 'mlopez', level: '1' }, expect: ok() },
  { name: 'E4 gate: self-managed 10.7 is refused', setup: [version('10.7')], path: E4, params: { user: 'mlopez', level: '1' }, expect: gated },
  { name: 'E4 gate: self-managed 11.3 (sample) is refused', path: E4, params: { user: 'mlopez', level: '1' }, expect: gated },
  { name: 'E4 gate: hosted is refused even at 10.6.1', setup: [version('10.6.1', 'hosted')], path: E4, params: { user: 'mlopez', level: '1' }, expect: gated },
  { name: 'E4 the sample name userName passes', setup: [at1061], path: E4, params: { userName: 'mlopez', level: '1' }, expect: ok() },
  {
    name: 'E4 enum: level 2 passes',
    setup: [at1061],
    path: E4,
    params: { user: 'viewer1', level: '2' },
    expect: ok(),
    effect: (state) => expect(state.users.find((user) => user.username === 'viewer1')?.level).toBe(2),
  },
  { name: 'E4 enum: level 3 is refused', setup: [at1061], path: E4, params: { user: 'mlopez', level: '3' }, expect: refused(/must be one of/) },
  { name: 'E4 ORG_1084: level 1 for a user who owns items and groups', setup: [at1061], path: E4, params: { user: 'jsmith', level: '1' }, expect: fails(400, 'ORG_1084', []) },
  { name: 'E4 auth: jsmith gets 403', setup: [at1061], path: E4, params: { user: 'mlopez', level: '1' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E4 auth: steward (custom admin privileges, not a default administrator) gets 403', setup: [at1061], path: E4, params: { user: 'mlopez', level: '1' }, token: 'steward-token', expect: forbidden },
  { name: 'E7 gate: 10.8.1 passes', setup: [version('10.8.1')], path: E7, expect: ok({ taskId: 'a1b2c3' }), effect: (state) => expect(state.users.find((user) => user.username === 'jsmith')?.tasks[0]?.active).toBe(true) },
  { name: 'E7 gate: 10.8 is refused', setup: [version('10.8')], path: E7, expect: gated },
  { name: 'E7 auth: the task owner (jsmith) may enable', path: E7, token: 'jsmith-token', expect: ok({ taskId: 'a1b2c3' }) },
  { name: 'E7 auth: another user (viewer1) gets 403', path: E7, token: 'viewer-token', expect: forbidden },
  { name: 'E7 unknown task: 404', path: '/community/users/jsmith/tasks/nope/enable', expect: fails(404) },
];

const withUpdateUsers: Adjustment = (state) => {
  state.roles.find((role) => role.id === 'cAt5Ad')?.privileges.push('portal:admin:updateUsers');
};
const organizationRows: Row[] = [
  { name: 'E5 passes', path: E5, expect: ok(), effect: (state) => expect(state.organization.memberCategorySchema).toBeNull() },
  {
    name: 'E5 404: no member category schema',
    setup: [(state) => {
      state.organization.memberCategorySchema = null;
    }],
    path: E5,
    expect: fails(404, undefined, []),
  },
  { name: 'E5 auth: custom role with updateUsers may delete', setup: [withUpdateUsers], path: E5, token: 'steward-token', expect: ok() },
  { name: 'E5 auth: steward without updateUsers gets 403', path: E5, token: 'steward-token', expect: forbidden },
  { name: 'E5 auth: jsmith gets 403', path: E5, token: 'jsmith-token', expect: forbidden },

  { name: 'E8 gate: 10.4 passes', setup: [version('10.4')], path: E8, params: { minLength: '10' }, expect: ok() },
  { name: 'E8 gate: 10.3 is refused', setup: [version('10.3')], path: E8, params: { minLength: '10' }, expect: gated },
  { name: 'E8 minLength 8 (lower limit) passes', path: E8, params: { minLength: '8' }, expect: ok() },
  { name: 'E8 minLength 7 fails', path: E8, params: { minLength: '7' }, expect: refused(/'minLength' must be between 8 and 1000/) },
  { name: 'E8 minLength 1000 (upper limit) passes', path: E8, params: { minLength: '1000' }, expect: ok(), effect: (state) => expect(state.organization.securityPolicy.minLength).toBe(1000) },
  { name: 'E8 minLength 1001 fails', path: E8, params: { minLength: '1001' }, expect: refused(/'minLength' must be between 8 and 1000/) },
  { name: 'E8 minLength empty (null) fails', path: E8, params: { minLength: '' }, expect: refused(/cannot be empty/) },
  { name: 'E8 expirationInDays 1095 (limit) passes', path: E8, params: { expirationInDays: '1095' }, expect: ok() },
  { name: 'E8 expirationInDays 1096 fails', path: E8, params: { expirationInDays: '1096' }, expect: refused(/'expirationInDays' must be between 1 and 1095/) },
  { name: 'E8 expirationInDays 0 fails', path: E8, params: { expirationInDays: '0' }, expect: refused(/'expirationInDays' must be between 1 and 1095/) },
  { name: 'E8 historySize 24 (limit) passes', path: E8, params: { historySize: '24' }, expect: ok() },
  { name: 'E8 historySize 25 fails', path: E8, params: { historySize: '25' }, expect: refused(/'historySize' must be between 1 and 24/) },
  { name: 'E8 minUpper 0 fails', path: E8, params: { minUpper: '0' }, expect: refused(/'minUpper' must be at least 1/) },
  {
    name: 'E8 minUpper empty (null) clears it',
    path: E8,
    params: { minUpper: '' },
    expect: ok(),
    effect: (state) => expect(state.organization.securityPolicy).toEqual({ minLength: 8, minDigit: 1, expirationInDays: 180 }),
  },
  { name: 'E8 minUpper not an integer fails', path: E8, params: { minUpper: '1.5' }, expect: refused(/must be an integer|must be a number/) },
  { name: 'E8 auth: jsmith gets 403', path: E8, params: { minLength: '10' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E8 auth: no token gets 499', path: E8, params: { minLength: '10' }, token: null, expect: fails(499) },
  { name: 'E8 auth: expired token gets 498', path: E8, params: { minLength: '10' }, token: 'expired-token', expect: fails(498) },
  { name: 'E8 method: PUT on a write is refused (405)', method: 'PUT', path: E8, params: { minLength: '10' }, expect: fails(405) },

  { name: 'E12 passes', path: E12, params: { key: 'old-banner.png' }, expect: ok() },
  { name: 'E12 unknown key: 404', path: E12, params: { key: 'no-such-file.png' }, expect: fails(404) },
  { name: 'E12 auth: jsmith gets 403', path: E12, params: { key: 'old-banner.png' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E12 auth: steward gets 403 (default administrator only)', path: E12, params: { key: 'old-banner.png' }, token: 'steward-token', expect: forbidden },
];

const hosted: Adjustment = (state) => {
  state.organization.edition = 'hosted';
};
const federationRows: Row[] = [
  ...(['Automatic', 'Invitation'] as const).map(
    (signUpMode): Row => ({
      name: `E6 enum: signUpMode ${signUpMode} passes`,
      path: E6,
      params: { signUpMode },
      expect: ok({ federationId: FEDERATION }),
      effect: (state) => expect(state.federation?.signUpMode).toBe(signUpMode),
    }),
  ),
  { name: 'E6 enum: signUpMode Sometimes is refused', path: E6, params: { signUpMode: 'Sometimes' }, expect: refused(/must be one of/) },
  ...(['platformonly', 'both'] as const).map(
    (userType): Row => ({
      name: `E6 enum: userType ${userType} on hosted passes`,
      setup: [hosted],
      path: E6,
      params: { userType },
      expect: ok({ federationId: FEDERATION }),
      effect: (state) => expect(state.federation?.userType).toBe(userType),
    }),
  ),
  { name: 'E6 enum: userType everyone on hosted is refused', setup: [hosted], path: E6, params: { userType: 'everyone' }, expect: refused(/must be one of/) },
  {
    name: 'E6 userType on self-managed is accepted and ignored',
    path: E6,
    params: { userType: 'everyone' },
    expect: ok({ federationId: FEDERATION }),
    effect: (state) => expect(state.federation?.userType).toBe('platformonly'),
  },
  { name: 'E6 auth: jsmith gets 403', path: E6, params: { signUpMode: 'Automatic' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E6 unknown federation: 404', path: '/portals/self/idp/federation/nope/update', params: { signUpMode: 'Automatic' }, expect: fails(404) },

  { name: 'E10 passes', path: E10, params: { name: 'Readers', description: 'Reads' }, expect: ok() },
  { name: 'E10 name of 128 characters (limit) and description of 250 pass', path: E10, params: { name: 'n'.repeat(128), description: 'd'.repeat(250) }, expect: ok() },
  { name: 'E10 name of 129 characters fails', path: E10, params: { name: 'n'.repeat(129) }, expect: refused(/maximum length of 128/) },
  { name: 'E10 description of 251 characters fails', path: E10, params: { description: 'd'.repeat(251) }, expect: refused(/maximum length of 250/) },
  { name: "E10 a default role's name fails, ignoring case", path: E10, params: { name: 'data EDITOR' }, expect: refused(/cannot be used as the name of a custom role/) },
  { name: 'E10 the pre-built Viewer is not updated', path: '/portals/self/roles/vW3rLv/update', params: { description: 'Reads' }, expect: refused(/pre-built role 'Viewer' cannot be updated/) },
  { name: 'E10 auth: jsmith gets 403', path: E10, params: { name: 'Readers' }, token: 'jsmith-token', expect: forbidden },
  { name: 'E10 auth: steward (custom role) gets 403: default administrators only', path: E10, params: { name: 'Readers' }, token: 'steward-token', expect: forbidden },
];

const below105 = version('10.4.1');
const at105 = version('10.5');
const collaborationRows: Row[] = [
  { name: 'E9 name of 100 characters (limit) passes', path: E9, params: { name: 'n'.repeat(100) }, expect: ok() },
  { name: 'E9 name of 101 characters fails', path: E9, params: { name: 'n'.repeat(101) }, expect: refused(/too long/) },
  { name: 'E9 description of 250 characters (limit) passes', path: E9, params: { description: 'd'.repeat(250) }, expect: ok() },
  { name: 'E9 description of 251 characters fails', path: E9, params: { description: 'd'.repeat(251) }, expect: refused(/too long/) },
  { name: 'E9 gate: 10.5 passes', setup: [at105], path: E9, params: { name: 'Basemaps 2' }, expect: ok() },
  { name: 'E9 gate: 10.4.1 is refused', setup: [below105], path: E9, params: { name: 'Basemaps 2' }, expect: gated },
  { name: 'E9 auth: jsmith gets 403', path: E9, params: { name: 'Basemaps 2' }, token: 'jsmith-token', expect: forbidden },

  { name: 'E11 passes', path: E11, expect: ok(), effect: (state) => expect(state.collaborations[0]?.participants.map((p) => p.portalId)).toEqual(['0c1d2e3f-4a5b-4c6d-8e9f-0123456789ab', '02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f']) },
  { name: 'E11 gate: 10.5 passes', setup: [at105], path: E11, expect: ok() },
  { name: 'E11 gate: 10.4.1 is refused', setup: [below105], path: E11, expect: gated },
  { name: 'E11 auth: jsmith gets 403', path: E11, token: 'jsmith-token', expect: forbidden },
  { name: 'E11 unknown participant: 404', path: `${COLLAB}/participants/nope/remove`, expect: fails(404) },

  ...(['send', 'receive', 'sendAndReceive'] as const).map(
    (mode): Row => ({
      name: `E13 enum: access mode ${mode} passes`,
      path: E13,
      params: invite(JSON.stringify([{ w1: mode }])),
      expect: { invitationFor: 'maps.guest.example.org' },
      effect: (state) => expect(state.collaborations[0]?.invitations.map((invitation) => invitation.workspaces)).toEqual([{ w1: mode }]),
    }),
  ),
  { name: 'E13 enum: access mode readWrite is refused', path: E13, params: invite('[{"w1":"readWrite"}]'), expect: refused(/must be one of/) },
  { name: 'E13 non-https guestPortalUrl is refused', path: E13, params: invite('[{"w1":"send"}]', { guestPortalUrl: 'http://maps.guest.example.org/portal' }), expect: refused(/https:\/\/ URL/) },
  { name: 'E13 gate: 10.5 passes', setup: [at105], path: E13, params: invite('[{"w1":"send"}]'), expect: { invitationFor: 'maps.guest.example.org' } },
  { name: 'E13 gate: 10.4.1 is refused', setup: [below105], path: E13, params: invite('[{"w1":"send"}]'), expect: gated },
  { name: 'E13 auth: jsmith gets 403', path: E13, params: invite('[{"w1":"send"}]'), token: 'jsmith-token', expect: forbidden },
  { name: 'E13 auth: no token gets 499', path: E13, params: invite('[{"w1":"send"}]'), token: null, expect: fails(499) },

  {
    name: 'E14 passes with its exact body',
    path: E14,
    expect: { success: { collaborationId: 'c0ffee', collaborationWorkspaceId: 'w1', success: true } },
    effect: (state) => expect(state.collaborations[0]?.workspaces[0]?.participantGroupLinks.map((link) => link.portalId)).toEqual(['02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f']),
  },
  { name: 'E14 gate: 10.5 passes', setup: [at105], path: E14, expect: { success: { collaborationId: 'c0ffee', collaborationWorkspaceId: 'w1', success: true } } },
  { name: 'E14 gate: 10.4.1 is refused', setup: [below105], path: E14, expect: gated },
  { name: 'E14 auth: jsmith gets 403', path: E14, token: 'jsmith-token', expect: forbidden },
  { name: 'E14 workspace without this portal’s group link: 404', path: `${COLLAB}/workspaces/w2/removePortalGroupLink`, expect: fails(404) },
];

const resource = (key: string, size: number, created: number): Record<string, unknown> => ({ key, size, created });
const task = (id: string, title: string, active: boolean): Record<string, unknown> => ({ id, title, active, taskState: active ? 'active' : 'completed' });
const pagingRows: Row[] = [
  {
    name: 'paging: resources num=1, first page points to the next',
    method: 'GET',
    path: '/portals/self/resources',
    params: { num: '1' },
    expect: { success: { total: 3, start: 1, num: 1, nextStart: 2, resources: [resource('old-banner.png', 48213, 1690000000000)] } },
  },
  {
    name: 'paging: resources num=1, last page has nextStart -1',
    method: 'GET',
    path: '/portals/self/resources',
    params: { num: '1', start: '3' },
    expect: { success: { total: 3, start: 3, num: 1, nextStart: -1, resources: [resource('legacy-logo.png', 10242, 1650000000000)] } },
  },
  {
    name: 'paging: resources read as a POST form pages too',
    path: '/portals/self/resources',
    params: { num: '1', start: '2' },
    expect: { success: { total: 3, start: 2, num: 1, nextStart: 3, resources: [resource('home-background.jpg', 912344, 1700000000000)] } },
  },
  {
    name: 'paging: jsmith tasks num=1, first page points to the next',
    method: 'GET',
    path: '/community/users/jsmith/tasks',
    params: { num: '1' },
    expect: { success: { total: 2, start: 1, num: 1, nextStart: 2, tasks: [task('a1b2c3', 'Survey culverts', false)] } },
  },
  {
    name: 'paging: jsmith tasks num=1, last page has nextStart -1',
    method: 'GET',
    path: '/community/users/jsmith/tasks',
    params: { num: '1', start: '2' },
    expect: { success: { total: 2, start: 2, num: 1, nextStart: -1, tasks: [task('d4e5f6', 'Update road centerlines', true)] } },
  },
];

const rows: Row[] = [
  ...groupRows,
  ...organizationSchemaRows,
  ...contentRows,
  ...transitionRows,
  ...userRows,
  ...organizationRows,
  ...federationRows,
  ...collaborationRows,
  ...pagingRows,
];

// ---------------------------------------------------------------------------------------------
// Harness

const emulator = emulatorPerFile(() => startEmulator({ port: 0, host: '127.0.0.1', data: SAMPLE_DATA }));

async function stateText(): Promise<string> {
  const response = await fetch(`${emulator.controlUrl}/state`);
  expect(response.status).toBe(200);
  return response.text();
}

async function adjustState(adjust: Adjustment): Promise<void> {
  const state = JSON.parse(await stateText()) as EmulatorState;
  adjust(state);
  const response = await fetch(`${emulator.controlUrl}/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** The row's request: a form for POST/PUT/DELETE, a query for GET; the token as a form field or, for GET, a Bearer header. */
function request(row: Row): Promise<Response> {
  const method = row.method ?? 'POST';
  const token = row.token === undefined ? 'admin-token' : row.token;
  if (row.rawBody !== undefined) {
    return fetch(`${emulator.url}${row.path}?f=json`, {
      method,
      headers: { 'content-type': 'application/json', ...(token !== null ? { authorization: `Bearer ${token}` } : {}) },
      body: row.rawBody,
    });
  }
  if (method === 'GET') {
    const query = new URLSearchParams({ f: 'json', ...row.params }).toString();
    return fetch(`${emulator.url}${row.path}?${query}`, { headers: token !== null ? { authorization: `Bearer ${token}` } : {} });
  }
  const form = new URLSearchParams({ f: 'json', ...row.params, ...(token !== null ? { token } : {}) });
  return fetch(`${emulator.url}${row.path}`, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
}

describe('spec rules over HTTP', () => {
  it('has one row per name', () => {
    const names = rows.map((row) => row.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    for (const adjust of row.setup ?? []) await adjustState(adjust);
    const before = await stateText();
    const response = await request(row);
    const text = await response.text();
    // The portal answers its errors with HTTP 200 and the code in the body.
    expect(response.status, text).toBe(200);
    const expected = row.expect;

    if ('error' in expected) {
      expect(response.headers.get('content-type')).toContain('application/json');
      const body = JSON.parse(text) as { error?: { code: number; messageCode?: string; message: string; details: unknown } };
      expect(body.error, text).toBeDefined();
      expect(body.error?.code, text).toBe(expected.error.code);
      expect(body.error?.messageCode, text).toBe(expected.error.messageCode);
      expect(typeof body.error?.message).toBe('string');
      expect(Array.isArray(body.error?.details)).toBe(true);
      if (expected.error.details) expect(body.error?.details).toEqual(expected.error.details);
      if (expected.error.says) expect([body.error?.message, ...(Array.isArray(body.error?.details) ? body.error.details : [])].join('\n')).toMatch(expected.error.says);
      expect(await stateText()).toBe(before);
      return;
    }

    if ('invitationFor' in expected) {
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename=collaboration-${expected.invitationFor}.invite`);
      expect(JSON.parse(text)).toMatchObject({ invitationRequest: { guestPortalUrl: row.params?.guestPortalUrl } });
    } else {
      expect(response.headers.get('content-type')).toContain('application/json');
      // Reads carry the documented fields beyond those asserted here (see the contract test).
      if ((row.method ?? 'POST') === 'GET') expect(JSON.parse(text)).toMatchObject(expected.success);
      else expect(JSON.parse(text)).toEqual(expected.success);
    }
    if (row.effect) row.effect(JSON.parse(await stateText()) as EmulatorState);
  });
});
