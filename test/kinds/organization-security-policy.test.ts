/**
 * E8 end to end against the emulator: the sample organization's policy is
 * minLength 8, minUpper 1, minDigit 1, expirationInDays 180 (the other rules unset).
 */
import { describe, expect, it } from 'vitest';
import { organizationSecurityPolicy } from '../../src/kinds/organization-security-policy.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { applyAndConverge, applyConfigText, desired, expectNothingToSend, expectPlanRefused, HEADER_WITHOUT_VERSION, planned, sampleOrg, writes } from './settings-support.js';

const CHANGING = `${HEADER}organization:
  securityPolicy:
    minLength: 12
    minDigit: 1
    minOther: null
    historySize: 5
`;

describe('organization.securityPolicy (E8) against the emulator', () => {
  const portal = portalPerTest();

  it('plans one update with the declared rules only', async () => {
    const prepared = await portal.plan(await portal.config(CHANGING));
    expect(planned(prepared)).toEqual([
      {
        address: 'organization.securityPolicy',
        action: 'update',
        operation: 'E8',
        before: { minLength: 8, minDigit: 1, minOther: null, historySize: null },
        after: { minLength: 12, minDigit: 1, minOther: null, historySize: 5 },
      },
    ]);
    expect(prepared.plan.operations[0]?.request).toEqual({
      method: 'POST',
      path: '/portals/self/securityPolicy/update',
      form: { minLength: '12', minDigit: '1', minOther: '', historySize: '5' },
      response: 'json',
      idempotent: true,
    });
  });

  it('sends exactly the planned write, converges, and a second apply sends nothing', async () => {
    const { config, sent } = await applyConfigText(portal, CHANGING);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/portals/self/securityPolicy/update' });
    expect(sent[0]?.params).toEqual({ minLength: '12', minDigit: '1', minOther: '', historySize: '5' });
    expect(sent[0]?.rawBody).toBe('minLength=12&minDigit=1&minOther=&historySize=5&f=json');

    // Omitted rules were left alone.
    const policy = (await portal.state()).organization.securityPolicy;
    expect(policy).toEqual({ minLength: 12, minUpper: 1, minDigit: 1, expirationInDays: 180, historySize: 5 });

    await expectNothingToSend(portal, config);
  });

  it('clears a rule declared null by sending it empty', async () => {
    const config = await portal.config(`${HEADER}organization:\n  securityPolicy:\n    minUpper: null\n    expirationInDays: null\n`);
    expect(planned(await portal.plan(config))).toEqual([
      {
        address: 'organization.securityPolicy',
        action: 'update',
        operation: 'E8',
        before: { minUpper: 1, expirationInDays: 180 },
        after: { minUpper: null, expirationInDays: null },
      },
    ]);
    await portal.clearRequests();
    await applyAndConverge(portal, config);
    const sent = await writes(portal);
    expect(sent.map((write) => write.params)).toEqual([{ minUpper: '', expirationInDays: '' }]);
    expect((await portal.state()).organization.securityPolicy).toEqual({ minLength: 8, minDigit: 1 });
  });

  it('an answer without its passwordPolicy object is an error, not every rule unset to be set again', async () => {
    await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', rewrite: { passwordPolicy: null }, count: 0 });
    await expect(portal.plan(await portal.config(CHANGING))).rejects.toThrow('GET /portals/self/securityPolicy failed: unexpected answer: no "passwordPolicy" object in it');
  });

  it('plans nothing and sends nothing when the declared rules already match', async () => {
    const config = await portal.config(`${HEADER}organization:\n  securityPolicy:\n    minLength: 8\n    minUpper: 1\n    minLower: null\n`);
    await expectNothingToSend(portal, config);
  });

  it("refuses the plan when the live portal's version is older than 10.4", async () => {
    await portal.restart({ data: sampleOrg((state) => void (state.organization.version = '10.3')) });
    const config = await portal.config(`${HEADER_WITHOUT_VERSION}organization:\n  securityPolicy:\n    minLength: 12\n`);
    const error = await expectPlanRefused(portal, config, 'version/security-policy', 'organization.securityPolicy');
    expect(error.message).toMatch(/10\.4/);
  });
});

describe('organization.securityPolicy (E8) request', () => {
  const policy = (value: Record<string, number | null>) =>
    desired({ kind: 'organization.securityPolicy', address: 'organization.securityPolicy', ids: {}, value });

  it('sends every declared rule, nulls as empty values, nothing else', () => {
    const change = organizationSecurityPolicy.change(policy({ minLength: 10, minOther: null }), { minLength: 8, minOther: 2 });
    expect(change).toEqual({
      action: 'update',
      before: { minLength: 8, minOther: 2 },
      after: { minLength: 10, minOther: null },
      request: {
        method: 'POST',
        path: '/portals/self/securityPolicy/update',
        form: { minLength: '10', minOther: '' },
        response: 'json',
        idempotent: true,
      },
    });
  });

  it('compares a declared null with an unset rule as equal', () => {
    expect(organizationSecurityPolicy.inSync(policy({ minOther: null }), { minOther: null })).toBe(true);
    expect(organizationSecurityPolicy.inSync(policy({ minOther: 1 }), { minOther: null })).toBe(false);
    expect(organizationSecurityPolicy.inSync(policy({ minLength: 8 }), null)).toBe(false);
  });
});
