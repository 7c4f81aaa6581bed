/**
 * E6 (federation) live half, end to end against the emulator: plan, exact writes, convergence,
 * certificate whitespace, fields the portal may not return, and the request without network.
 */
import { describe, expect, it } from 'vitest';
import { federation } from '../../src/kinds/federation.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { declared, expectConverged, expectNothingToDo, formBody, planned, sentWrites, withoutToken } from './live-half-helpers.js';

const FEDERATION_ID = 'J55ajJJ7MsY1QoQs';
const ADDRESS = `federation[${FEDERATION_ID}]`;
const UPDATE_PATH = `/portals/self/idp/federation/${FEDERATION_ID}/update`;
const GROUP_A = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';
const GROUP_B = 'b4850fb244bf4fbc8b918c96f267b2cf';
const CERT_LINES = [
  'MIIBszCCAVmgAwIBAgIUQ2FtcHVzRmVkZXJhdGlvbkNlcnQwCgYIKoZIzj0EAwIw',
  'FjEUMBIGA1UEAwwLZXhhbXBsZS5lZHUwHhcNMjYwMTAxMDAwMDAwWhcNMzYwMTAx',
];
const SAMPLE_CERT = ['-----BEGIN CERTIFICATE-----', ...CERT_LINES, '-----END CERTIFICATE-----', ''].join('\n');

const portal = portalPerTest();

describe('federation (E6) against the emulator', () => {
  it('plans one update with only the declared fields, sends exactly that, then converges', async () => {
    const config = await portal.config(
      HEADER +
        `federations:
  - id: ${FEDERATION_ID}
    name: Campus federation 2
    signUpMode: Automatic
    roleId: r7HkQ2
    groups: [${GROUP_A}, ${GROUP_B}]
    updateProfileAtSignin: true
    userCreditAssignment: 250
roles:
  - id: r7HkQ2
    description: Collects field data
`,
    );
    const prepared = await portal.plan(config);
    expect(planned(prepared)).toEqual([
      {
        address: 'role[r7HkQ2]',
        action: 'update',
        operation: 'E10',
        destructive: false,
        before: { description: 'Edits field data' },
        after: { description: 'Collects field data' },
      },
      {
        address: ADDRESS,
        action: 'update',
        operation: 'E6',
        destructive: false,
        before: {
          name: 'Campus federation',
          // The documented GET does not return userCreditAssignment: unknown (nothing recorded
          // yet), so the declared value is sent.
          groups: [],
          updateProfileAtSignin: false,
          signUpMode: 'Invitation',
          roleId: null,
        },
        after: {
          name: 'Campus federation 2',
          userCreditAssignment: 250,
          groups: [GROUP_A, GROUP_B],
          updateProfileAtSignin: true,
          signUpMode: 'Automatic',
          roleId: 'r7HkQ2',
        },
      },
    ]);
    // The federation names the role: the role goes first.
    expect(prepared.plan.operations[1]?.dependsOn).toEqual(['role[r7HkQ2]']);

    await portal.clearRequests();
    const report = await portal.apply(config);
    expect(report.result.failed).toEqual([]);
    const federationForm = {
      name: 'Campus federation 2',
      userCreditAssignment: '250',
      groups: `${GROUP_A},${GROUP_B}`,
      updateProfileAtSignin: 'true',
      signUpMode: 'Automatic',
      roleId: 'r7HkQ2',
    };
    const writes = await sentWrites(portal);
    expect(writes.map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: '/portals/self/roles/r7HkQ2/update', params: { description: 'Collects field data' } },
      { method: 'POST', path: UPDATE_PATH, params: federationForm },
    ]);
    expect(withoutToken(writes[1]?.rawBody ?? '')).toBe(formBody(federationForm));

    const state = await portal.state();
    expect(state.federation).toMatchObject({ name: 'Campus federation 2', groups: [GROUP_A, GROUP_B], userCreditAssignment: 250, signUpMode: 'Automatic' });
    expect(report.after.plan.operations).toEqual([]);
    await expectConverged(portal, config);
  });

  it('plans nothing for a config that matches, whatever the group order', async () => {
    const state = await portal.state();
    if (!state.federation) throw new Error('the sample has a federation');
    state.federation.groups = [GROUP_B, GROUP_A];
    await portal.replaceState(state);
    const config = await portal.config(
      HEADER +
        `federations:
  - id: ${FEDERATION_ID}
    name: Campus federation
    signUpMode: Invitation
    groups: [${GROUP_A}, ${GROUP_B}]
    encryptionSupported: false
    entityId: https://gis.riverside.example.com/portal
`,
    );
    await expectNothingToDo(portal, config);
  });

  it('compares the certificate with whitespace and line breaks removed', async () => {
    const rewrapped = ['-----BEGIN CERTIFICATE-----', CERT_LINES.join('').replace(/(.{40})/g, '$1\r\n  '), '-----END CERTIFICATE-----'].join('\r\n');
    const config = await portal.config({
      'portalctl.yaml': HEADER + `federations:\n  - id: ${FEDERATION_ID}\n    certificate: \${file:federation.pem}\n`,
      'federation.pem': rewrapped,
    });
    await expectNothingToDo(portal, config);
  });

  it('sends a different certificate exactly as declared', async () => {
    const newCert = ['-----BEGIN CERTIFICATE-----', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=', '-----END CERTIFICATE-----', ''].join('\n');
    const config = await portal.config({
      'portalctl.yaml': HEADER + `federations:\n  - id: ${FEDERATION_ID}\n    certificate: \${file:federation.pem}\n`,
      'federation.pem': newCert,
    });
    expect(planned(await portal.plan(config))).toEqual([
      { address: ADDRESS, action: 'update', operation: 'E6', destructive: false, before: { certificate: SAMPLE_CERT }, after: { certificate: newCert } },
    ]);
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ path, params }) => ({ path, params }))).toEqual([{ path: UPDATE_PATH, params: { certificate: newCert } }]);
    await expectConverged(portal, config);
  });

  it('takes a field the portal does not return (userCreditAssignment) as what portalctl recorded: sent once, then no change, and sent again when changed', async () => {
    const state = await portal.state();
    if (!state.federation) throw new Error('the sample has a federation');
    delete state.federation.userCreditAssignment;
    await portal.replaceState(state);
    const config = await portal.config(HEADER + `federations:\n  - id: ${FEDERATION_ID}\n    userCreditAssignment: 100\n    name: Campus federation\n`);
    // Nothing recorded: unknown, so the declared value is sent.
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ params }) => params)).toEqual([{ userCreditAssignment: '100', name: 'Campus federation' }]);
    expect((await portal.state()).federation?.userCreditAssignment).toBe(100);
    // Recorded: what portalctl set stands for it.
    await expectNothingToDo(portal, config);

    // A changed declaration alone is sent.
    const changed = await portal.config(HEADER + `federations:\n  - id: ${FEDERATION_ID}\n    userCreditAssignment: 200\n    name: Campus federation\n`);
    expect(planned(await portal.plan(changed))).toEqual([
      { address: ADDRESS, action: 'update', operation: 'E6', destructive: false, before: { name: 'Campus federation', userCreditAssignment: 100 }, after: { name: 'Campus federation', userCreditAssignment: 200 } },
    ]);
    await portal.clearRequests();
    await portal.apply(changed);
    expect((await sentWrites(portal)).map(({ params }) => params)).toEqual([{ userCreditAssignment: '200', name: 'Campus federation' }]);
    await expectNothingToDo(portal, changed);
  });

  it('turns flags off and clears groups with explicit values', async () => {
    const state = await portal.state();
    if (!state.federation) throw new Error('the sample has a federation');
    state.federation.groups = [GROUP_A];
    state.federation.encryptionSupported = true;
    await portal.replaceState(state);
    const config = await portal.config(HEADER + `federations:\n  - id: ${FEDERATION_ID}\n    groups: []\n    encryptionSupported: false\n`);
    await portal.clearRequests();
    await portal.apply(config);
    expect((await sentWrites(portal)).map(({ params }) => params)).toEqual([{ groups: '', encryptionSupported: 'false' }]);
    await expectConverged(portal, config);
  });
});

describe('federation change() request, without network', () => {
  it('encodes every declared field and nothing else', () => {
    const obj = declared('federation', ADDRESS, { federationId: FEDERATION_ID }, {
      name: 'F',
      certificate: SAMPLE_CERT,
      userCreditAssignment: -1,
      groups: ['g1', 'g2'],
      supportSignedRequest: true,
      updateGroupsAtSignin: false,
      signUpMode: 'Automatic',
      userType: 'both',
    });
    const change = federation.change(obj, null);
    expect(change).toEqual({
      action: 'update',
      before: null,
      after: obj.value,
      request: {
        method: 'POST',
        path: UPDATE_PATH,
        form: {
          name: 'F',
          certificate: SAMPLE_CERT,
          userCreditAssignment: '-1',
          groups: 'g1,g2',
          supportSignedRequest: 'true',
          updateGroupsAtSignin: 'false',
          signUpMode: 'Automatic',
          userType: 'both',
        },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('is in sync when only certificate whitespace differs, and not when a flag differs from its default', () => {
    const obj = declared('federation', ADDRESS, { federationId: FEDERATION_ID }, { certificate: SAMPLE_CERT, supportsLogoutRequest: true });
    expect(federation.inSync(obj, { certificate: SAMPLE_CERT.replace(/\n/g, '\r\n   '), supportsLogoutRequest: true })).toBe(true);
    expect(federation.inSync(obj, { certificate: SAMPLE_CERT, supportsLogoutRequest: null })).toBe(false);
    expect(federation.inSync(obj, null)).toBe(false);
  });

  it('waits for the role it names only when that role is declared', () => {
    const obj = declared('federation', ADDRESS, { federationId: FEDERATION_ID }, { roleId: 'r1' });
    const role = declared('role', 'role[r1]', { roleId: 'r1' }, { name: 'R' });
    expect(federation.dependsOn(obj, [obj, role], new Map())).toEqual(['role[r1]']);
    expect(federation.dependsOn(obj, [obj], new Map())).toEqual([]);
  });
});
