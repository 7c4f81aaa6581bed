/**
 * Role renames that go through each other, through the real CLI. Names are unique in the
 * organization, so a rename onto a name another declared role gives up waits for that role's
 * rename (a dependency the portal's present names decide, shown in the plan and kept by a saved
 * plan); renames that take each other's names (a swap, a ring of three) can never be applied in
 * one run and are refused by `plan` at each name, also offline from the recorded names.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sampleOrg } from '../kinds/settings-support.js';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

/** The sample organization's two custom roles, as the emulator holds them. */
const ANALYST = { id: 'r7HkQ2', name: 'Field Analyst' };
const STEWARD = { id: 'cAt5Ad', name: 'Category Steward' };

/** The sample organization with a third custom role. */
const withThirdRole = () => sampleOrg((state) => void state.roles.push({ id: 'tHr33x', name: 'Reviewer', description: 'Reviews content', privileges: [] }));

const rolesConfig = (roles: readonly { id: string; name: string }[]): string => `${CONFIG_HEADER}roles:\n${roles.map(({ id, name }) => `  - { id: ${id}, name: ${name} }\n`).join('')}`;

describe('role renames that go through each other', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  for (const [order, roles] of [
    ['the role giving the name up first', [{ id: ANALYST.id, name: 'Analysts' }, { id: STEWARD.id, name: ANALYST.name }]],
    ['the role taking the name first', [{ id: STEWARD.id, name: ANALYST.name }, { id: ANALYST.id, name: 'Analysts' }]],
  ] as const) {
    it(`a chain of two renames declared with ${order}: the plan shows the order, apply renames the giver first, the next plan is empty`, async () => {
      portal = await startCliPortal();
      const config = await portal.writeConfig(rolesConfig(roles), 'chain');
      const plan = await portal.run(['plan', config]);
      expect(plan.code, plan.stderr).toBe(0);
      // role[cAt5Ad] sorts first by address: before the fix it went first, and the portal refused it.
      expect(plan.stdout).toContain(
        ['Operations, in order:', '  ~ role[r7HkQ2] — Field Analyst  (E10 Update role)', '  ~ role[cAt5Ad] — Category Steward  (E10 Update role)  [after role[r7HkQ2]]'].join('\n'),
      );

      await portal.clearRequests();
      const applied = await portal.run(['apply', config, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      const writes = await portal.requests({ writesOnly: true });
      expect(writes.map((request) => [request.path, request.params['name']])).toEqual([
        [`/portals/self/roles/${ANALYST.id}/update`, 'Analysts'],
        [`/portals/self/roles/${STEWARD.id}/update`, ANALYST.name],
      ]);
      const live = (await portal.state()).roles.map(({ id, name }) => ({ id, name }));
      expect(live).toEqual(expect.arrayContaining([{ id: ANALYST.id, name: 'Analysts' }, { id: STEWARD.id, name: ANALYST.name }]));
      const next = await portal.run(['plan', config, '--detailed-exitcode']);
      expect(next.code, next.stdout + next.stderr).toBe(0);
    });
  }

  it('--target on the role taking the name brings the rename it waits for, as Terraform\'s -target does, and says so; the rest is left out', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${rolesConfig([{ id: STEWARD.id, name: ANALYST.name }, { id: ANALYST.id, name: 'Analysts' }])}organization:\n  securityPolicy: { minLength: 12 }\n`,
      'targeted-chain',
    );
    const plan = await portal.run(['plan', config, '--target', `role[${STEWARD.id}]`]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`Targets: role[${STEWARD.id}] (with role[${ANALYST.id}], which they wait for; 1 more change outside them is left out of this plan)`);
    expect(plan.stdout).toMatch(/^Plan: 0 to create, 2 to update, 0 to delete\.$/m);

    const applied = await portal.run(['apply', config, '--auto-approve', '--target', `role[${STEWARD.id}]`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await portal.requests({ writesOnly: true })).map((request) => request.path)).toEqual([
      `/portals/self/roles/${ANALYST.id}/update`,
      `/portals/self/roles/${STEWARD.id}/update`,
    ]);
    const markdown = await portal.run(['plan', config, '--format', 'markdown']);
    expect(markdown.stdout).not.toContain('Targets');
  });

  it('a saved plan of a chain keeps its order: the JSON plan carries it, apply --plan applies it in one run', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(rolesConfig([{ id: STEWARD.id, name: ANALYST.name }, { id: ANALYST.id, name: 'Analysts' }]), 'saved-chain');
    const planFile = `${portal.dir}/chain.plan.json`;
    const saved = await portal.run(['plan', config, '--out', planFile]);
    expect(saved.code, saved.stderr).toBe(0);
    const json = await portal.run(['show', planFile, '--format', 'json']);
    const operations = (JSON.parse(json.stdout) as { operations: { address: string; dependsOn: string[] }[] }).operations;
    expect(operations.map(({ address, dependsOn }) => ({ address, dependsOn }))).toEqual([
      { address: `role[${ANALYST.id}]`, dependsOn: [] },
      { address: `role[${STEWARD.id}]`, dependsOn: [`role[${ANALYST.id}]`] },
    ]);
    const graph = await portal.run(['graph', config]);
    expect(graph.code, graph.stderr).toBe(0);
    expect(graph.stdout).toContain('-->');

    const applied = await portal.run(['apply', '--plan', planFile, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await portal.state()).roles.find((role) => role.id === STEWARD.id)?.name).toBe(ANALYST.name);
  });

  it('a swap of two names: plan, apply and the offline plan refuse it at each name, exit 1, nothing written', async () => {
    portal = await startCliPortal();
    // Recorded first, so that the offline plan knows the names the roles have.
    const asTheyAre = await portal.writeConfig(rolesConfig([ANALYST, STEWARD]), 'as-they-are');
    expect((await portal.run(['apply', asTheyAre, '--auto-approve'])).code).toBe(0);
    const config = await portal.writeConfig(rolesConfig([{ id: ANALYST.id, name: STEWARD.name }, { id: STEWARD.id, name: ANALYST.name }]), 'swap');
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve'], ['plan', config, '--refresh=false']]) {
      const result = await portal.run(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(
        [
          'swap/portalctl.yaml:7:25: error: Role names are unique in the organization, ignoring case, and these renames go round in a ring: role[r7HkQ2] takes "Category Steward" from role[cAt5Ad] and role[cAt5Ad] takes "Field Analyst" from role[r7HkQ2]; whichever is sent first, the portal refuses it, as the other role still has the name. [role[r7HkQ2]] (role/rename-cycle)',
          '  7 |   - { id: r7HkQ2, name: Category Steward }',
          '    |                         ^',
          '  expected: one of these roles renamed to a temporary name first, in an apply of its own, then the renames',
        ].join('\n'),
      );
      expect(result.stderr).toContain(
        [
          'swap/portalctl.yaml:8:25: error: Role names are unique in the organization, ignoring case, and these renames go round in a ring: role[cAt5Ad] takes "Field Analyst" from role[r7HkQ2] and role[r7HkQ2] takes "Category Steward" from role[cAt5Ad]; whichever is sent first, the portal refuses it, as the other role still has the name. [role[cAt5Ad]] (role/rename-cycle)',
          '  8 |   - { id: cAt5Ad, name: Field Analyst }',
          '    |                         ^',
        ].join('\n'),
      );
      expect(result.stderr).toContain('Error: invalid configuration (2 errors above); nothing was changed on the portal.');
    }
    // Before the fix role cAt5Ad's rename was sent first and refused ("A role named 'Field Analyst' already exists").
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a ring of three renames: plan refuses it at each name, naming the three, exit 1, nothing written', async () => {
    portal = await startCliPortal({ data: withThirdRole() });
    const config = await portal.writeConfig(
      rolesConfig([
        { id: ANALYST.id, name: STEWARD.name },
        { id: STEWARD.id, name: 'Reviewer' },
        { id: 'tHr33x', name: ANALYST.name },
      ]),
      'ring',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      const ring = [
        'role[r7HkQ2] takes "Category Steward" from role[cAt5Ad]',
        'role[cAt5Ad] takes "Reviewer" from role[tHr33x]',
        'role[tHr33x] takes "Field Analyst" from role[r7HkQ2]',
      ];
      const message = (first: number): string =>
        `Role names are unique in the organization, ignoring case, and these renames go round in a ring: ${ring[first]}, ${ring[(first + 1) % 3]} and ${ring[(first + 2) % 3]}; whichever is sent first, the portal refuses it, as the other role still has the name.`;
      expect(result.stderr).toContain(`ring/portalctl.yaml:7:25: error: ${message(0)} [role[r7HkQ2]] (role/rename-cycle)`);
      expect(result.stderr).toContain(`ring/portalctl.yaml:8:25: error: ${message(1)} [role[cAt5Ad]] (role/rename-cycle)`);
      expect(result.stderr).toContain(`ring/portalctl.yaml:9:25: error: ${message(2)} [role[tHr33x]] (role/rename-cycle)`);
      expect(result.stderr).toContain('Error: invalid configuration (3 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });
});
