/**
 * Rules the portal holds a change to (role names unique ignoring case, the pre-built roles and the
 * default roles' names, the federation's default
 * role and groups, its credits and level, names that are not empty), said by `validate` or `plan`
 * through the real CLI at the value that breaks them, before anything is written: not learnt
 * from the portal's refusal during `apply`, after the operations ordered before it went through.
 * And a federation identifier declared with surrounding spaces, which the portal stores trimmed,
 * plans no change once applied.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, NOT_FOUND_EXPECTED, startCliPortal, type CliPortal } from '../support/cli.js';

const FEDERATION = 'J55ajJJ7MsY1QoQs';
const GROUP = '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c';

describe('portal rules said before apply', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it('two roles named alike ignoring case, and names of only spaces: validate, plan and apply say it at the name, exit 1, nothing written', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Same, description: Collects field data }\n  - { id: vW3rLv, name: same }\nfederations:\n  - { id: ${FEDERATION}, name: "" }\ncollaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w1, name: " ", description: New words }\n`,
      'role-names',
    );
    await portal.clearRequests();
    for (const args of [['validate', config], ['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          'role-names/portalctl.yaml:8:25: error: Role names are unique in the organization, ignoring case; role[r7HkQ2] is named "Same" too, so the portal would refuse one of them. [role[vW3rLv]] (role/duplicate-name)',
          '  8 |   - { id: vW3rLv, name: same }',
          '    |                         ^',
          '  value: "same"; expected: a name no other role has, ignoring case',
        ].join('\n'),
      );
      expect(said).toContain(
        `role-names/portalctl.yaml:10:${19 + FEDERATION.length}: error: The federation's name cannot be empty (or only spaces). [federation[${FEDERATION}]] (federation/empty-name)`,
      );
      expect(said).toContain(
        "role-names/portalctl.yaml:14:25: error: A workspace's name cannot be empty (or only spaces). [collaboration[c0ffee].workspace[w1]] (workspace/empty-name)",
      );
    }
    // Before the fix role r7HkQ2 was renamed, then the portal refused the second ("A role named 'same' already exists").
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it("a rename onto another role's name, ignoring case: plan and apply say it at the name, exit 1, nothing written; a name the other role gives up is no clash", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\n  - { id: cAt5Ad, name: FIELD ANALYST }\n`, 'role-rename');
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'role-rename/portalctl.yaml:8:25: error: Role names are unique in the organization, ignoring case; role[r7HkQ2] is already named "Field Analyst", so the portal would refuse this rename. [role[cAt5Ad]] (role/name-taken)',
          '  8 |   - { id: cAt5Ad, name: FIELD ANALYST }',
          '    |                         ^',
          '  expected: a name no other role has, ignoring case, or the other role renamed in the config as well',
        ].join('\n'),
      );
      expect(result.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // The role's own name in other letters, or a name the config takes from the other role: planned.
    const ownName = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: cAt5Ad, name: CATEGORY STEWARD }\n`, 'role-own-name');
    const givenUp = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Analysts }\n  - { id: cAt5Ad, name: field analyst }\n`, 'role-given-up');
    for (const allowed of [ownName, givenUp]) {
      const plan = await portal.run(['plan', allowed, '--detailed-exitcode']);
      expect(plan.code, plan.stderr).toBe(2);
      expect(plan.stderr).not.toContain('role/name-taken');
    }
  });

  it("the pre-built Viewer changed, a rename onto a default role's name, a name past 128 characters: validate or plan say it at the value, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\n  - { id: vW3rLv, name: Viewer, description: Reads everything }\n  - { id: cAt5Ad, name: publisher }\n`,
      'role-reserved',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'role-reserved/portalctl.yaml:8:46: error: role[vW3rLv] is the pre-built "Viewer" role, which the portal does not let anyone update; this would change its description. [role[vW3rLv]] (role/pre-built)',
          '  8 |   - { id: vW3rLv, name: Viewer, description: Reads everything }',
          '    |                                              ^',
          '  expected: the role left as the portal has it (its fields as they are, or not declared), or a custom role of your own',
        ].join('\n'),
      );
      expect(result.stderr).toContain(
        [
          'role-reserved/portalctl.yaml:9:25: error: "publisher" is the name of one of the portal\'s default roles, which no custom role may take. [role[cAt5Ad]] (role/reserved-name)',
          '  9 |   - { id: cAt5Ad, name: publisher }',
          '    |                         ^',
        ].join('\n'),
      );
    }
    // Before the fix role r7HkQ2 was updated, then the portal refused the pre-built role's update and the rename.
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    const long = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: cAt5Ad, name: ${'n'.repeat(129)}, description: ${'d'.repeat(251)} }\n`, 'role-long');
    const validated = await portal.run(['validate', long]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain('role-long/portalctl.yaml:7:25: error: roles[0].name has 129 characters; at most 128 are allowed. [role[cAt5Ad]] (schema/max-length)');
    expect(validated.stdout).toContain(`role-long/portalctl.yaml:7:${25 + 129 + 15}: error: roles[0].description has 251 characters; at most 250 are allowed. [role[cAt5Ad]] (schema/max-length)`);

    // The pre-built role declared as the portal has it: nothing to do.
    const asItIs = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: vW3rLv, name: Viewer, description: Views organization content }\n`, 'role-as-it-is');
    const plan = await portal.run(['plan', asItIs, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
  });

  it("a federation's default role or group the portal does not have: plan and apply name it at its place, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: ${FEDERATION}\n    signUpMode: Automatic\n    roleId: nOsUcHrOlE\n    groups: [${GROUP}]\n`,
      'unknown-role',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          `unknown-role/portalctl.yaml:11:13: error: role[nOsUcHrOlE] does not exist on the portal, or this account cannot see it. [federation[${FEDERATION}]] (portal/not-found)`,
          '  11 |     roleId: nOsUcHrOlE',
          '     |             ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
    }
    // Before the fix the role was updated, then the portal refused the federation ("Unknown roleId 'nOsUcHrOlE'").
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    const groups = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: ${FEDERATION}\n    roleId: r7HkQ2\n    groups:\n      - ${GROUP}\n      - deadbeefdeadbeefdeadbeefdeadbeef\n`,
      'unknown-group',
    );
    for (const args of [['plan', groups], ['apply', groups, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          `unknown-group/portalctl.yaml:13:7: error: group deadbeefdeadbeefdeadbeefdeadbeef does not exist on the portal, or this account cannot see it. [federation[${FEDERATION}]] (portal/not-found)`,
          '  13 |       - deadbeefdeadbeefdeadbeefdeadbeef',
          '     |       ^',
        ].join('\n'),
      );
      expect(result.stderr).not.toContain(GROUP);
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // A custom role, a built-in role and existing groups: applied.
    for (const roleId of ['r7HkQ2', 'org_user']) {
      const known = await portal.writeConfig(`${CONFIG_HEADER}federations:\n  - { id: ${FEDERATION}, roleId: ${roleId}, groups: [${GROUP}] }\n`, `known-${roleId}`);
      const applied = await portal.run(['apply', known, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      expect((await portal.state()).federation).toMatchObject({ roleId, groups: [GROUP] });
    }
  });

  it("every default role and group of a federation the portal does not have is said in one run, each at its place, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}federations:\n  - id: ${FEDERATION}\n    signUpMode: Automatic\n    roleId: nOsUcHrOlE\n    groups:\n      - deadbeefdeadbeefdeadbeefdeadbeef\n      - ${GROUP}\n      - feedfacefeedfacefeedfacefeedface\n`,
      'unknown-ids',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          `unknown-ids/portalctl.yaml:9:13: error: role[nOsUcHrOlE] does not exist on the portal, or this account cannot see it. [federation[${FEDERATION}]] (portal/not-found)`,
          '  9 |     roleId: nOsUcHrOlE',
          '    |             ^',
          `  ${NOT_FOUND_EXPECTED}`,
          `unknown-ids/portalctl.yaml:11:7: error: group deadbeefdeadbeefdeadbeefdeadbeef does not exist on the portal, or this account cannot see it. [federation[${FEDERATION}]] (portal/not-found)`,
          '  11 |       - deadbeefdeadbeefdeadbeefdeadbeef',
          '     |       ^',
          `  ${NOT_FOUND_EXPECTED}`,
          `unknown-ids/portalctl.yaml:13:7: error: group feedfacefeedfacefeedfacefeedface does not exist on the portal, or this account cannot see it. [federation[${FEDERATION}]] (portal/not-found)`,
          '  13 |       - feedfacefeedfacefeedfacefeedface',
          '     |       ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      expect(result.stderr).not.toContain(`group ${GROUP}`);
      // Before the fix only the role was said; the groups came one run at a time.
      expect(result.stderr).toContain('Error: invalid configuration (3 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a credit allocation below -1 or a level other than 1 or 2: validate, plan and apply say it at the value, exit 1, nothing written', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: ${FEDERATION}\n    userCreditAssignment: -5\n    level: "3"\n`,
      'credits-level',
    );
    await portal.clearRequests();
    for (const args of [['validate', config], ['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          `credits-level/portalctl.yaml:10:27: error: federations[0].userCreditAssignment must be at least -1. [federation[${FEDERATION}]] (schema/minimum)`,
          '  10 |     userCreditAssignment: -5',
          '     |                           ^',
          '  value: -5; expected: at least -1',
        ].join('\n'),
      );
    }
    // The credits refused by the schema, the level is checked on its own config.
    const level = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: ${FEDERATION}\n    level: "3"\n`, 'level');
    for (const args of [['validate', level], ['plan', level], ['apply', level, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          `level/portalctl.yaml:10:12: error: The federation's level is a user level, "1" or "2"; the portal refuses any other value. [federation[${FEDERATION}]] (federation/level)`,
          '  10 |     level: "3"',
          '     |            ^',
          '  value: "3"; expected: "1", "2", or "" for none',
        ].join('\n'),
      );
    }
    // Before the fix the role was updated, then the portal refused the federation's value.
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a federation identifier declared with surrounding spaces: sent trimmed, then no change planned on the next run', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}federations:\n  - id: ${FEDERATION}\n    entityId: " https://gis.riverside.example.com/portal/saml "\n    userLicenseType: "creatorUT  "\n`,
      'spaces',
    );
    await portal.clearRequests();
    const applied = await portal.run(['apply', config, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const sent = (await portal.requests({ writesOnly: true })).map((request) => request.params);
    expect(sent).toEqual([expect.objectContaining({ entityId: 'https://gis.riverside.example.com/portal/saml', userLicenseType: 'creatorUT' })]);
    // Before the fix every plan found " https://…/saml " unlike the stored "https://…/saml" and planned the update again.
    const again = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
