/**
 * Rules of the spec that the portal enforces, said by `validate` or `plan` through the real CLI,
 * at the declaration that breaks them, before anything is written: not learnt from the portal's
 * error during `apply`, after the operations ordered before it went through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, NOT_FOUND_EXPECTED, startCliPortal, type CliPortal } from '../support/cli.js';

describe('refused before apply', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it("a federation's service URL that is not an http(s) URL (E6 `string (URL)`): validate, plan and apply say it at the value, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: J55ajJJ7MsY1QoQs\n    discoveryServiceUrl: idp.example.edu/discovery\n    metadataServiceUrl: ftp://idp.example.edu/metadata\n    entityId: https://gis.riverside.example.com/portal\n`,
      'federation-urls',
    );
    await portal.clearRequests();
    for (const args of [['validate', config], ['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      // validate reports on standard output, plan and apply on standard error.
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          "federation-urls/portalctl.yaml:10:26: error: The federation's discoveryServiceUrl must be an http or https URL; the portal refuses any other value. [federation[J55ajJJ7MsY1QoQs]] (federation/url)",
          '  10 |     discoveryServiceUrl: idp.example.edu/discovery',
          '     |                          ^',
          '  value: "idp.example.edu/discovery"; expected: an absolute URL such as https://idp.example.org/metadata',
        ].join('\n'),
      );
      expect(said).toContain(
        "federation-urls/portalctl.yaml:11:25: error: The federation's metadataServiceUrl must be an http or https URL; the portal refuses any other value. [federation[J55ajJJ7MsY1QoQs]] (federation/url)",
      );
      // The entityId is an identifier, not a service URL: never checked as one.
      expect(said).not.toContain('entityId');
    }
    // Before the fix the role was updated, then the federation failed with the portal's "Invalid URL for 'discoveryServiceUrl'".
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // An empty URL clears the field (the portal reads an empty parameter so): not refused.
    const cleared = await portal.writeConfig(`${CONFIG_HEADER}federations:\n  - { id: J55ajJJ7MsY1QoQs, discoveryServiceUrl: "", metadataServiceUrl: "HTTPS://idp.example.edu/metadata" }\n`, 'federation-cleared');
    const valid = await portal.run(['validate', cleared]);
    expect(valid.code, valid.stderr).toBe(0);
  });

  it('an invitation to a workspace the collaboration does not have (E13): plan and apply name it at the invitation, exit 1, nothing written', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, description: New words }\n    participants:\n      - guestPortalUrl: https://partner.example.org/portal\n        workspaces: { w1: send, w9: receive }\n`,
      'unknown-workspace',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'unknown-workspace/portalctl.yaml:11:7: error: workspace w9 of collaboration c0ffee does not exist on the portal, or this account cannot see it. [collaboration[c0ffee].invitation[https://partner.example.org/portal]] (portal/not-found)',
          '  11 |       - guestPortalUrl: https://partner.example.org/portal',
          '     |       ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      expect(result.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');
      // Not the portal's refusal of the request, after the workspace was updated.
      expect(result.stderr).not.toContain("Unknown workspace 'w9'");
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect((await portal.state()).collaborations[0]?.invitations).toEqual([]);

    // The workspaces it names exist: planned as before, the workspace list read once with the other lists.
    const known = await portal.writeConfig(`${CONFIG_HEADER}collaborations:\n  - id: c0ffee\n    participants:\n      - guestPortalUrl: https://partner.example.org/portal\n        workspaces: { w1: send, w2: receive }\n`, 'known-workspaces');
    await portal.clearRequests();
    const plan = await portal.run(['plan', known, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('+ collaboration[c0ffee].invitation[https://partner.example.org/portal]  (E13 Invite collaboration participant)');
    const workspaceLists = (await portal.requests()).filter((request) => request.path === '/portals/self/collaborations/c0ffee/workspaces');
    expect(workspaceLists).toHaveLength(1);
  });
});
