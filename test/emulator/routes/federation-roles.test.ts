import { describe, expect, it } from 'vitest';
import { body, call, expectApiError, ORG_ID, sampleState } from './helpers.js';

const FED = 'J55ajJJ7MsY1QoQs';
const UPDATE_FED = '/portals/:portalId/idp/federation/:federationId/update';
const GROUP_A = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const GROUP_B = 'b4850fb244bf4fbc8b918c96f267b2cf';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n';

const updateFed = (params: Record<string, string>, state = sampleState(), federationId = FED) =>
  call(state, UPDATE_FED, { params, pathParams: { federationId } });

describe('E6 federation update', () => {
  it('changes only the given fields and answers {success, federationId}', () => {
    const state = sampleState();
    const before = body(call(state, '/portals/:portalId/idp/federation'));
    const result = updateFed(
      { name: 'New name', signUpMode: 'Automatic', roleId: 'vW3rLv', encryptionSupported: 'true', groups: `${GROUP_A}, ${GROUP_B}`, userCreditAssignment: '500', level: '2', userLicenseType: 'creatorUT' },
      state,
    );
    expect(body(result)).toEqual({ success: true, federationId: FED });
    const read = body(call(state, '/portals/:portalId/idp/federation'));
    expect(read).toEqual({
      ...before,
      name: 'New name',
      signUpMode: 'Automatic',
      roleId: 'vW3rLv',
      encryptionSupported: true,
      groups: [GROUP_A, GROUP_B],
      // The GET shows the default user type as userLicenseTypeId (documented); update-only fields are stored, not shown.
      userLicenseTypeId: 'creatorUT',
    });
    expect(state.federation).toMatchObject({ userCreditAssignment: 500, level: '2', userLicenseType: 'creatorUT' });
  });

  it('accepts groups as a JSON array, built-in roleIds, and clears optional fields with empty values', () => {
    const state = sampleState();
    updateFed({ groups: JSON.stringify([GROUP_B]), roleId: 'org_publisher', entityId: '', certificate: CERT }, state);
    expect(state.federation).toMatchObject({ groups: [GROUP_B], roleId: 'org_publisher', certificate: CERT });
    expect(state.federation).not.toHaveProperty('entityId');
    updateFed({ groups: '' }, state);
    expect(state.federation!.groups).toEqual([]);
  });

  it('rejects bad values', () => {
    expectApiError(() => updateFed({ signUpMode: 'automatic' }), { code: 400, says: /must be one of/ });
    expectApiError(() => updateFed({ supportSignedRequest: 'yes' }), { code: 400, says: /must be true or false/ });
    expectApiError(() => updateFed({ certificate: 'MIIBszCCAVmgAwIBAgIU' }), { code: 400, says: /certificate/ });
    expectApiError(() => updateFed({ certificate: '-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----' }), { code: 400, says: /certificate/ });
    expectApiError(() => updateFed({ groups: `${GROUP_A},nope` }), { code: 400, messageCode: 'CONT_0006', detail: 'nope' });
    expectApiError(() => updateFed({ groups: '[1]' }), { code: 400, says: /not valid JSON|wrong shape/ });
    expectApiError(() => updateFed({ roleId: 'unknown' }), { code: 400, says: /Unknown roleId/ });
    expectApiError(() => updateFed({ metadataServiceUrl: 'not a url' }), { code: 400, says: /http or https URL/ });
    expectApiError(() => updateFed({ userCreditAssignment: 'lots' }), { code: 400, says: /must be an integer|must be a number/ });
    expectApiError(() => updateFed({ userCreditAssignment: '-2' }), { code: 400, says: /'userCreditAssignment' must be at least -1/ });
    expectApiError(() => updateFed({ name: '' }), { code: 400, says: /is required|cannot be empty/ });
  });

  it('ignores userType on self-managed and validates and stores it on hosted', () => {
    const selfManaged = sampleState();
    updateFed({ userType: 'both' }, selfManaged);
    updateFed({ userType: 'anything' }, selfManaged);
    expect(selfManaged.federation!.userType).toBe('platformonly');
    const hosted = sampleState();
    hosted.organization.edition = 'hosted';
    updateFed({ userType: 'both' }, hosted);
    expect(hosted.federation!.userType).toBe('both');
    expectApiError(() => updateFed({ userType: 'anything' }, hosted), { code: 400, says: /must be one of/ });
  });

  it('answers 404 for another federation id or no federation, and GWM_0003 for non admins', () => {
    expectApiError(() => updateFed({ name: 'x' }, sampleState(), 'other'), { code: 404, messageCode: undefined });
    const none = sampleState();
    none.federation = null;
    expectApiError(() => updateFed({ name: 'x' }, none), { code: 404, messageCode: undefined });
    expectApiError(() => call(none, '/portals/:portalId/idp/federation'), { code: 404, messageCode: undefined });
    expectApiError(() => call(sampleState(), UPDATE_FED, { params: { name: 'x' }, pathParams: { federationId: FED }, as: 'steward' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
  });
});

describe('E10 role update and role reads', () => {
  const UPDATE_ROLE = '/portals/:portalId/roles/:roleId/update';

  it('updates name and description and reads the role back', () => {
    const state = sampleState();
    expect(body(call(state, UPDATE_ROLE, { params: { name: 'Field Editor', description: '' }, pathParams: { roleId: 'r7HkQ2' } }))).toEqual({ success: true });
    // The role resource has no privileges (documented); they are under roles/{id}/privileges.
    expect(body(call(state, '/portals/:portalId/roles/:roleId', { pathParams: { roleId: 'r7HkQ2' } }))).toEqual({
      id: 'r7HkQ2',
      name: 'Field Editor',
      description: '',
      created: 0,
      modified: 0,
    });
    expect(body(call(state, '/portals/:portalId/roles/:roleId/privileges', { pathParams: { roleId: 'r7HkQ2' } }))).toEqual({
      privileges: state.roles[0]!.privileges,
    });
    const withPrivileges = body(call(state, '/portals/:portalId/roles', { params: { returnPrivileges: 'true' } }));
    expect((withPrivileges['roles'] as Record<string, unknown>[])[0]).toMatchObject({ id: 'r7HkQ2', privileges: state.roles[0]!.privileges });
    const list = body(call(state, '/portals/:portalId/roles', { params: { num: '2' } }));
    expect(list).toMatchObject({ total: 3, num: 2, nextStart: 3 });
  });

  it('rejects unknown or built-in roles (404), empty and duplicate names, and non default admins', () => {
    const state = sampleState();
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: 'x' }, pathParams: { roleId: 'nope' } }), { code: 404, messageCode: undefined });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: 'x' }, pathParams: { roleId: 'org_admin' } }), { code: 404, messageCode: undefined });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: ' ' }, pathParams: { roleId: 'r7HkQ2' } }), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: 'category STEWARD' }, pathParams: { roleId: 'r7HkQ2' } }), { code: 400, says: /already exists/ });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: 'viewer' }, pathParams: { roleId: 'r7HkQ2' } }), { code: 400, says: /cannot be used as the name of a custom role/ });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { description: 'x' }, pathParams: { roleId: 'vW3rLv' } }), { code: 400, says: /pre-built role 'Viewer' cannot be updated/ });
    expectApiError(() => call(state, UPDATE_ROLE, { params: { name: 'x' }, pathParams: { roleId: 'r7HkQ2' }, as: 'steward' }), {
      code: 403,
      messageCode: 'GWM_0003',
    });
    expectApiError(() => call(state, '/portals/:portalId/roles/:roleId', { pathParams: { roleId: 'nope' } }), { code: 404, messageCode: undefined });
  });
});

describe('group reads', () => {
  it('lists groups and reads one; unknown ids are CONT_0006', () => {
    const state = sampleState();
    const list = body(call(state, '/community/groups', { params: { q: `orgid:${ORG_ID}` } }));
    expect(list).toMatchObject({ total: 2, nextStart: -1 });
    // q is required (documented practice: always send it).
    expectApiError(() => call(state, '/community/groups'), { code: 400, messageCode: undefined });
    expect(body(call(state, '/community/groups', { params: { q: `id:${GROUP_B}` } }))).toMatchObject({ total: 1 });
    expect(body(call(state, '/community/groups/:groupId', { pathParams: { groupId: GROUP_B } }))).toMatchObject({
      id: GROUP_B,
      title: 'Planning Department',
      owner: 'admin',
      userMembership: { username: 'admin', memberType: 'owner' },
    });
    expectApiError(() => call(state, '/community/groups/:groupId/categorySchema', { pathParams: { groupId: 'x' } }), { code: 400, messageCode: 'CONT_0006' });
  });
});
