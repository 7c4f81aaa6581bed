/**
 * Rules of the spec that the portal enforces, said by `validate` or `plan` through the real CLI,
 * at the declaration that breaks them, before anything is written: not learnt from the portal's
 * error during `apply`, after the operations ordered before it went through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { sampleOrg } from '../kinds/settings-support.js';
import { CONFIG_HEADER, NOT_FOUND_EXPECTED, startCliPortal, type CliPortal } from '../support/cli.js';

/** The sample organization at 10.6.1, where user levels (E4) can be set. */
const playing10_6_1 = (): EmulatorState => sampleOrg((state) => void (state.organization.version = '10.6.1'));
const HEADER_10_6_1 = CONFIG_HEADER.replace('"11.3"', '"10.6.1"');

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
  it('an invited portal URL that is not a URL (E13 `string (URL)`, HTTPS): validate and apply say it at the value, exit 1, nothing written', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n  - id: c0ffee\n    participants:\n      - guestPortalUrl: https://partner example.org/portal\n        workspaces: { w1: send }\n      - guestPortalUrl: https://maps.example.net:70000/portal\n        workspaces: { w2: receive }\n      - guestPortalUrl: http://plain.example.org/portal\n        workspaces: { w1: send }\n`,
      'invited-url',
    );
    await portal.clearRequests();
    for (const args of [['validate', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          'invited-url/portalctl.yaml:9:25: error: The invited portal URL is not a valid URL; the portal refuses it. [collaboration[c0ffee].invitation[https://partner example.org/portal]] (invitation/invalid-url)',
          '  9 |       - guestPortalUrl: https://partner example.org/portal',
          '    |                         ^',
          '  value: "https://partner example.org/portal"; expected: an https:// URL such as https://partner.example.org/portal',
        ].join('\n'),
      );
      expect(said).toContain(
        'invited-url/portalctl.yaml:11:25: error: The invited portal URL is not a valid URL; the portal refuses it. [collaboration[c0ffee].invitation[https://maps.example.net:70000/portal]] (invitation/invalid-url)',
      );
      expect(said).toContain(
        'invited-url/portalctl.yaml:13:25: error: The invited portal URL must use HTTPS. [collaboration[c0ffee].invitation[http://plain.example.org/portal]] (invitation/https-required)',
      );
    }
    // Before the fix the first two passed validate and the portal refused them during apply ("Invalid guestPortalUrl").
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('level 1 for a user with a built-in role, or who owns items or groups (E4, ORG_1084): plan and apply say it at the level, exit 1, nothing written', async () => {
    portal = await startCliPortal({ data: playing10_6_1() });
    const config = await portal.writeConfig(
      `${HEADER_10_6_1}roles:\n  - { id: r7HkQ2, description: Collects field data }\nusers:\n  - { username: publisher1, level: 1 }\n  - { username: jsmith, level: 1 }\n  - { username: mlopez, level: 1 }\n  - { username: viewer1, level: 1 }\n`,
      'level-one',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'level-one/portalctl.yaml:9:36: error: Level 1 is for users with a custom role only; publisher1 has the built-in role org_publisher, so the portal would refuse it. [user[publisher1].level] (user-level/custom-role-only)',
          '  9 |   - { username: publisher1, level: 1 }',
          '    |                                    ^',
          '  expected: level 2, or a custom role for the user first',
        ].join('\n'),
      );
      expect(result.stderr).toContain(
        [
          'level-one/portalctl.yaml:10:32: error: A level 1 user may not own items or groups; jsmith owns 2 items and 1 group, so the portal would refuse it (ORG_1084). [user[jsmith].level] (user-level/owns-content)',
          '  10 |   - { username: jsmith, level: 1 }',
          '     |                                ^',
          "  expected: level 2, or the user's items and groups reassigned first",
        ].join('\n'),
      );
      // mlopez (a custom role, owns nothing) may move; viewer1 is level 1 already: neither is refused.
      expect(result.stderr).not.toContain('mlopez');
      expect(result.stderr).not.toContain('viewer1');
      expect(result.stderr).toContain('Error: invalid configuration (2 errors above); nothing was changed on the portal.');
    }
    // Before the fix apply updated the role and mlopez's level, then failed on the other two.
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // Without the refused two, the others plan and apply as before; a user already at level 1 costs no ownership search.
    const allowed = await portal.writeConfig(`${HEADER_10_6_1}users:\n  - { username: mlopez, level: 1 }\n  - { username: viewer1, level: 1 }\n`, 'level-one-allowed');
    await portal.clearRequests();
    const applied = await portal.run(['apply', allowed, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await portal.requests({ writesOnly: true })).map((request) => request.path)).toEqual(['/portals/self/updateUserLevel']);
    const searches = (await portal.requests()).filter((request) => request.params['q']?.startsWith('owner:'));
    expect(searches.map((request) => `${request.path} ${request.params['q'] ?? ''}`).sort()).toEqual(['/community/groups owner:"mlopez"', '/search owner:"mlopez"']);
  });
  it("the host named for removal (E11): plan and apply say it at the participant, exit 1, nothing written; the prune never removes it", async () => {
    portal = await startCliPortal();
    const host = '0c1d2e3f-4a5b-4c6d-8e9f-0123456789ab';
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\ncollaborations:\n  - id: c0ffee\n    participants:\n      - { portalId: ${host}, absent: true }\n`,
      'host-removal',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          `host-removal/portalctl.yaml:11:7: error: Portal ${host} is the host of collaboration c0ffee: E11 removes guest participants, not the host; nothing would be left to host the collaboration. [collaboration[c0ffee].participant[${host}]] (participant/host)`,
        ].join('\n'),
      );
      expect(result.stderr).toContain("  expected: a guest participant's portal id");
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect((await portal.state()).collaborations.find((collaboration) => collaboration.id === 'c0ffee')?.participants.map((participant) => participant.portalId)).toContain(host);
  });
});
