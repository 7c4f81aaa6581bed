/**
 * Names instead of ids (README "Names instead of ids"), end to end against the emulator: a name
 * found (the plan keeps the id-based address and shows the id beside the name), not found (the
 * closest candidates listed, at the name), ambiguous (every match listed; the optional field
 * tells them apart), renamed on the portal after an apply; resolving costs no request beyond the
 * list reads a plan by id makes; the names recorded in the state and resolved from it by
 * `--refresh=false`; `import --by-name` writes names that plan empty, online and offline.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/engine/config/index.js';
import { renderPlanText } from '../../src/engine/render/text.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { sampleOrg } from '../kinds/settings-support.js';
import { CONFIG_HEADER, startCliPortal } from '../support/cli.js';

const portal = portalPerTest();

/** A role, a collaboration's workspace and a group, each by name. */
const NAMED = `roles:
  - id: { name: Field Analyst }
    description: Collects field data
collaborations:
  - id: { name: Regional basemap exchange }
    workspaces:
      - id: { name: Emergency response }
        description: Incidents
groups:
  - id: { title: Planning Department }
    categorySchema: [{ title: Zoning }]
`;

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('names instead of ids', () => {
  it('found: the plan addresses the object by its id and shows the name beside it; state and convergence as by id', async () => {
    const config = await portal.config(`${HEADER}${NAMED}items:
  - id: { title: Parcels 2019, type: Web Map, owner: publisher1 }
    status: deprecated
federations:
  - id: { name: Campus federation }
    signUpMode: Automatic
`);
    const { plan } = await portal.plan(config);
    expect(plan.operations.map((op) => [op.address, op.names?.map((name) => `${name.noun} ${JSON.stringify(name.name)} = ${name.id}`)])).toEqual([
      ['collaboration[c0ffee].workspace[w2]', ['collaboration {"name":"Regional basemap exchange"} = c0ffee', 'workspace {"name":"Emergency response"} = w2']],
      ['federation[J55ajJJ7MsY1QoQs]', ['federation {"name":"Campus federation"} = J55ajJJ7MsY1QoQs']],
      ['group[b4850fb244bf4fbc8b918c96f267b2cf].categorySchema', ['group {"title":"Planning Department"} = b4850fb244bf4fbc8b918c96f267b2cf']],
      ['item[1105a1562c9c4dd98e557595bf8a2617].status', ['item {"title":"Parcels 2019","type":"Web Map","owner":"publisher1"} = 1105a1562c9c4dd98e557595bf8a2617']],
      ['role[r7HkQ2]', ['role {"name":"Field Analyst"} = r7HkQ2']],
    ]);
    expect(renderPlanText(plan, { color: false })).toContain('~ role[r7HkQ2] — Field Analyst  (by name: role "Field Analyst" → r7HkQ2)  (E10 Update role)');
    const applied = await portal.apply(config);
    expect(applied.result.failed).toEqual([]);
    expect(applied.after.plan.operations).toEqual([]);
    expect(Object.keys(applied.state?.resources ?? {})).toContain('role[r7HkQ2]');
    // The same objects by id: the same addresses, nothing to do.
    const byId = await portal.config(`${HEADER}roles:\n  - id: r7HkQ2\n    description: Collects field data\n`);
    expect((await portal.plan(byId)).plan.operations).toEqual([]);
  });

  it('costs no request beyond the reads a plan by id makes', async () => {
    const byId = await portal.config(`${HEADER}roles:\n  - { id: r7HkQ2, description: A }\n  - { id: cAt5Ad, description: B }\ngroups:\n  - { id: b4850fb244bf4fbc8b918c96f267b2cf, categorySchema: [{ title: Zoning }] }\n`);
    await portal.clearRequests();
    await portal.plan(byId);
    const idReads = (await portal.requests()).map((entry) => entry.path).sort();
    const byName = await portal.config(`${HEADER}roles:\n  - { id: { name: Field Analyst }, description: A }\n  - { id: { name: Category Steward }, description: B }\ngroups:\n  - { id: { title: Planning Department }, categorySchema: [{ title: Zoning }] }\n`);
    await portal.clearRequests();
    await portal.plan(byName);
    const nameReads = (await portal.requests()).map((entry) => entry.path).sort();
    expect(nameReads).toEqual(idReads);
  });

  it('not found: an error at the name listing the closest candidates; nothing is read beyond the lists, nothing sent', async () => {
    const config = await portal.config(`${HEADER}roles:\n  - id: { name: Field Analysts }\n    description: x\n`);
    const error = await refusal(portal.plan(config));
    expect(error.diagnostics).toEqual([
      expect.objectContaining({
        code: 'names/not-found',
        message: 'No role named "Field Analysts" on the portal; the closest: "Field Analyst" = r7HkQ2; "Viewer" = vW3rLv; "Category Steward" = cAt5Ad.',
        location: expect.objectContaining({ line: 7, column: 5 }),
        expected: "the role's name as the portal shows it, or its id",
      }),
    ]);
    expect((await portal.requests()).filter((entry) => entry.access === 'write')).toEqual([]);
  });

  it('ambiguous: every match listed with the field that tells them apart; giving it resolves the name', async () => {
    await portal.restart({
      data: sampleOrg((state) => {
        state.groups.push({ ...(state.groups[1] as (typeof state.groups)[number]), id: 'c0c0c0c0c0c04fbc8b918c96f267b2cf', owner: 'jsmith' });
      }),
    });
    const ambiguous = await portal.config(`${HEADER}groups:\n  - id: { title: Planning Department }\n    categorySchema: [{ title: Zoning }]\n`);
    const error = await refusal(portal.plan(ambiguous));
    expect(error.diagnostics).toEqual([
      expect.objectContaining({
        code: 'names/ambiguous',
        message: '2 groups are named "Planning Department": "Planning Department" (owner admin) = b4850fb244bf4fbc8b918c96f267b2cf; "Planning Department" (owner jsmith) = c0c0c0c0c0c04fbc8b918c96f267b2cf.',
        expected: 'add owner to tell them apart, or give the id',
      }),
    ]);
    const narrowed = await portal.config(`${HEADER}groups:\n  - id: { title: Planning Department, owner: jsmith }\n    categorySchema: [{ title: Zoning }]\n`);
    expect((await portal.plan(narrowed)).plan.operations.map((op) => op.address)).toEqual(['group[c0c0c0c0c0c04fbc8b918c96f267b2cf].categorySchema']);
  });

  it('renamed on the portal after an apply: the next plan stops at the name and offers the new one', async () => {
    const config = await portal.config(`${HEADER}roles:\n  - id: { name: Category Steward }\n    description: Keeps the categories\n`);
    expect((await portal.apply(config)).after.plan.operations).toEqual([]);
    const state = await portal.state();
    const steward = state.roles.find((role) => role.id === 'cAt5Ad');
    if (!steward) throw new Error('the sample organization has the Category Steward role');
    steward.name = 'Readers';
    await portal.replaceState(state);
    const error = await refusal(portal.plan(config));
    expect(error.diagnostics[0]).toMatchObject({ code: 'names/not-found' });
    expect(error.diagnostics[0]?.message).toContain('"Readers" = cAt5Ad');
  });

  it('one object by id and by name is declared twice; --refresh=false without a state has no names to resolve from', async () => {
    const twice = await portal.config(`${HEADER}roles:\n  - { id: r7HkQ2, description: A }\n  - { id: { name: Field Analyst }, name: Field Analyst }\n`);
    const error = await refusal(portal.plan(twice));
    expect(error.diagnostics).toEqual([expect.objectContaining({ code: 'config/duplicate-object', address: 'role[r7HkQ2]' })]);

    const named = await portal.config(`${HEADER}roles:\n  - { id: { name: Field Analyst }, description: A }\n`);
    const offline = await refusal(portal.plan(named, { refresh: false }));
    expect(offline.diagnostics).toEqual([
      expect.objectContaining({
        code: 'names/needs-refresh',
        message: 'role name=Field Analyst is named, not given by id: --refresh=false resolves names from those the state recorded, and there is no state yet.',
        location: expect.objectContaining({ line: 7 }),
      }),
    ]);
  });

  it('--refresh=false resolves names from those the last apply recorded, with every field the portal showed', async () => {
    const config = await portal.config(`${HEADER}${NAMED}`);
    const online = await portal.plan(config);
    const applied = await portal.apply(config);
    expect(applied.after.plan.operations).toEqual([]);
    const resources = applied.state?.resources ?? {};
    expect(resources['role[r7HkQ2]']?.names).toEqual([{ noun: 'role', name: { name: 'Field Analyst' }, id: 'r7HkQ2' }]);
    expect(resources['collaboration[c0ffee].workspace[w2]']?.names).toEqual([
      { noun: 'collaboration', name: { name: 'Regional basemap exchange' }, id: 'c0ffee' },
      { noun: 'workspace', name: { name: 'Emergency response' }, id: 'w2' },
    ]);
    // The owner the config left out is recorded too, so the name with it resolves offline as well.
    expect(resources['group[b4850fb244bf4fbc8b918c96f267b2cf].categorySchema']?.names).toEqual([
      { noun: 'group', name: { title: 'Planning Department', owner: 'admin' }, id: 'b4850fb244bf4fbc8b918c96f267b2cf' },
    ]);

    // Offline: the same addresses, nothing to do; a change shows the name beside the id as online.
    await portal.clearRequests();
    expect((await portal.plan(config, { refresh: false })).plan.operations).toEqual([]);
    const changed = await portal.config(`${HEADER}roles:\n  - id: { name: Field Analyst }\n    description: Changed offline\ngroups:\n  - id: { title: Planning Department, owner: admin }\n    categorySchema: [{ title: Zoning }]\n`);
    const offline = (await portal.plan(changed, { refresh: false })).plan;
    expect(offline.operations.map((op) => [op.address, op.names])).toEqual([['role[r7HkQ2]', [{ noun: 'role', name: { name: 'Field Analyst' }, id: 'r7HkQ2' }]]]);
    expect(await portal.requests()).toEqual([]);
    expect(online.plan.operations.find((op) => op.address === 'role[r7HkQ2]')?.names).toEqual(offline.operations[0]?.names);

    // A name the state never recorded stops the offline plan at the name, with the recorded ones nearest.
    const unknown = await portal.config(`${HEADER}roles:\n  - id: { name: Viewer }\n    description: x\n`);
    const error = await refusal(portal.plan(unknown, { refresh: false }));
    expect(error.diagnostics).toEqual([
      expect.objectContaining({
        code: 'names/not-found',
        message: 'No role named "Viewer" among the names the state recorded when it last read the portal; the closest: "Field Analyst" = r7HkQ2.',
        location: expect.objectContaining({ line: 7, column: 5 }),
      }),
    ]);

    // Declared by id again: the next apply records no names for it.
    const byId = await portal.config(`${HEADER}roles:\n  - id: r7HkQ2\n    description: Collects field data\n`);
    const again = await portal.apply(byId);
    expect(again.state?.resources['role[r7HkQ2]']).not.toHaveProperty('names');
    // Named again with nothing to change: the apply writes the names alone.
    const namedAgain = await portal.apply(await portal.config(`${HEADER}roles:\n  - id: { name: Field Analyst }\n    description: Collects field data\n`));
    expect(namedAgain.prepared.plan.operations).toEqual([]);
    expect(namedAgain.namesRecorded).toBe(true);
    expect(namedAgain.state?.serial).toBe((again.state?.serial ?? 0) + 1);
    expect(namedAgain.state?.resources['role[r7HkQ2]']?.names).toEqual([{ noun: 'role', name: { name: 'Field Analyst' }, id: 'r7HkQ2' }]);
  });
});

describe('names in fields that hold another object\'s id', () => {
  const federation = (roleName: string): string => `${HEADER}federations:
  - id: { name: Campus federation }
    signUpMode: Automatic
    roleId: { name: ${roleName} }
    groups: [{ title: Planning Department }, 3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c]
`;

  it("the federation's default role and groups by name: sent as ids, shown beside them, recorded, and resolved offline from the state", async () => {
    const config = await portal.config(federation('Viewer'));
    const { plan } = await portal.plan(config);
    const [op] = plan.operations;
    expect(op?.address).toBe('federation[J55ajJJ7MsY1QoQs]');
    expect(op?.after).toMatchObject({ roleId: 'vW3rLv', groups: ['b4850fb244bf4fbc8b918c96f267b2cf', '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c'] });
    expect(op?.names).toEqual([
      { noun: 'federation', name: { name: 'Campus federation' }, id: 'J55ajJJ7MsY1QoQs' },
      { noun: 'role', name: { name: 'Viewer' }, id: 'vW3rLv', field: 'roleId' },
      { noun: 'group', name: { title: 'Planning Department' }, id: 'b4850fb244bf4fbc8b918c96f267b2cf', field: 'groups' },
    ]);
    expect(renderPlanText(plan, { color: false })).toContain(
      '(by name: federation "Campus federation" → J55ajJJ7MsY1QoQs, roleId: role "Viewer" → vW3rLv, groups: group "Planning Department" → b4850fb244bf4fbc8b918c96f267b2cf)',
    );
    const applied = await portal.apply(config);
    expect(applied.result.failed).toEqual([]);
    expect(applied.after.plan.operations).toEqual([]);
    expect((await portal.state()).federation).toMatchObject({ roleId: 'vW3rLv', groups: ['b4850fb244bf4fbc8b918c96f267b2cf', '3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c'] });
    expect(applied.state?.resources['federation[J55ajJJ7MsY1QoQs]']?.names).toContainEqual({ noun: 'role', name: { name: 'Viewer' }, id: 'vW3rLv', field: 'roleId' });
    await portal.clearRequests();
    expect((await portal.plan(config, { refresh: false })).plan.operations).toEqual([]);
    expect(await portal.requests()).toEqual([]);
  });

  it('a referred name that matches nothing stops the plan at the field, with the closest names; validate takes it', async () => {
    const config = await portal.config(federation('Viewers'));
    expect(config.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    const error = await refusal(portal.plan(config));
    expect(error.diagnostics).toEqual([
      expect.objectContaining({
        code: 'names/not-found',
        message: expect.stringMatching(/^No role named "Viewers" on the portal; the closest: "Viewer" = vW3rLv; /),
        location: expect.objectContaining({ line: 9, column: 5 }),
      }),
    ]);
    expect((await portal.requests()).filter((entry) => entry.access === 'write')).toEqual([]);
    const offline = await refusal(portal.plan(config, { refresh: false }));
    // Without a state, each name is said: the federation's key, its role and its group.
    expect(offline.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.location?.line, diagnostic.message.split(' is named')[0]])).toEqual([
      ['names/needs-refresh', 7, 'federation name=Campus federation'],
      ['names/needs-refresh', 9, 'role name=Viewers'],
      ['names/needs-refresh', 10, 'group title=Planning Department'],
    ]);
  });

  it('a referred name must give the fields the lookup requires (schema)', async () => {
    const config = await portal.config(`${HEADER}federations:\n  - id: J55ajJJ7MsY1QoQs\n    roleId: { title: Viewer }\n`);
    expect(config.diagnostics.map((d) => [d.severity, d.location?.line, d.message])).toEqual([
      ['error', 8, 'Missing required property "name" in federations[0].roleId.'],
      ['error', 8, 'Unknown property "title" in federations[0].roleId.'],
    ]);
  });
});

describe('import --by-name', () => {
  it('writes names that tell the objects apart (keys and the fields that refer to objects), and the import plans empty; applied, it plans empty without reading the portal', async () => {
    const cli = await startCliPortal();
    try {
      // The federation's default role and groups, which import writes by name too.
      const portalState = await cli.state();
      if (!portalState.federation) throw new Error('the sample organization has a federation');
      Object.assign(portalState.federation, { signUpMode: 'Automatic', roleId: 'vW3rLv', groups: ['b4850fb244bf4fbc8b918c96f267b2cf'] });
      await cli.replaceState(portalState);
      const imported = await cli.run(['import', '--by-name', '--out', 'imported.yaml']);
      expect(imported.code, imported.stderr).toBe(0);
      const text = await (await import('node:fs/promises')).readFile(`${cli.dir}/imported.yaml`, 'utf8');
      expect(text).toContain('    groups:\n      - title: Planning Department\n');
      expect(text).toContain('    roleId:\n      name: Viewer\n');
      expect(text).toContain('- id: { name: Field Analyst }');
      expect(text).toContain('- id: { title: Planning Department }');
      expect(text).toContain('- id: { title: Road Centerlines, type: Web Map, owner: publisher1 }');
      expect(text).toContain('- id: { name: Regional basemap exchange }');
      expect(text).not.toMatch(/^ *- id: r7HkQ2$/m);
      const plan = await cli.run(['plan', 'imported.yaml', '--detailed-exitcode']);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      // An apply with nothing to send records the objects and their names; then the offline plan resolves them.
      const applied = await cli.run(['apply', 'imported.yaml', '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(await cli.requests({ writesOnly: true })).toEqual([]);
      const reads = (await cli.requests()).length;
      const offline = await cli.run(['plan', 'imported.yaml', '--refresh=false', '--detailed-exitcode']);
      expect(offline.code, offline.stdout + offline.stderr).toBe(0);
      expect(offline.stdout).toContain('No changes.');
      expect((await cli.requests()).length).toBe(reads);
    } finally {
      await cli.dispose();
    }
  });

  it('apply --refresh-only with no value to record writes the names alone, says so, and the offline plan resolves them', async () => {
    const cli = await startCliPortal();
    try {
      const role = (id: string) => `${CONFIG_HEADER}roles:\n  - id: ${id}\n    description: Edits field data\n`;
      await cli.writeConfig(role('r7HkQ2'));
      const byId = await cli.run(['apply', 'config', '--auto-approve']);
      expect(byId.code, byId.stderr).toBe(0);
      await cli.writeConfig(role('{ name: Field Analyst }'));
      const serial = (await cli.recorded())?.serial ?? 0;
      const refreshed = await cli.run(['apply', 'config', '--refresh-only', '--auto-approve']);
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(refreshed.stdout).toContain('No changes to record');
      expect(refreshed.stdout).toContain(`The state now records the names the configuration gives, as the portal resolved them (serial ${serial + 1}; \`plan --refresh=false\` uses them). Nothing was sent to the portal.`);
      expect((await cli.recorded())?.resources['role[r7HkQ2]']?.names).toEqual([{ noun: 'role', name: { name: 'Field Analyst' }, id: 'r7HkQ2' }]);
      expect(await cli.requests({ writesOnly: true })).toEqual([]);
      await cli.clearRequests();
      const offline = await cli.run(['plan', 'config', '--refresh=false', '--detailed-exitcode']);
      expect(offline.code, offline.stdout + offline.stderr).toBe(0);
      expect(await cli.requests()).toEqual([]);
      // Recorded already: the next one writes nothing and says nothing of names.
      const again = await cli.run(['apply', 'config', '--refresh-only', '--auto-approve', '--format', 'json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ recorded: [], namesRecorded: false, state: { serial: serial + 1 } });
      // Declared by id again, an apply with nothing to send drops them, and says so too.
      await cli.writeConfig(role('r7HkQ2'));
      const dropped = await cli.run(['apply', 'config', '--auto-approve']);
      expect(dropped.stdout).toBe(`No changes. The portal matches the configuration.\nThe state now records the names the configuration gives, as the portal resolved them (serial ${serial + 2}; \`plan --refresh=false\` uses them).\n`);
      expect((await cli.recorded())?.resources['role[r7HkQ2]']).not.toHaveProperty('names');
    } finally {
      await cli.dispose();
    }
  });

  it('a target by the id a plan shows selects an object declared by name; an id that is not it is refused, naming the resolved address', async () => {
    const cli = await startCliPortal();
    try {
      const config = await cli.writeConfig(`${HEADER}roles:
  - id: { name: Field Analyst }
    description: Collects field data
organization:
  securityPolicy: { minLength: 13 }
collaborations:
  - id: { name: Regional basemap exchange }
    workspaces:
      - id: { name: Emergency response }
        description: Incidents
`);
      const only = (result: { stdout: string }) => (JSON.parse(result.stdout) as { operations: { address: string }[] }).operations.map((op) => op.address);
      const byId = await cli.run(['plan', config, '--format', 'json', '--target', 'role[r7HkQ2]']);
      expect(byId.code, byId.stderr).toBe(0);
      expect(only(byId)).toEqual(['role[r7HkQ2]']);
      // A name as the target, as before; and an id inside a named collaboration.
      const byName = await cli.run(['plan', config, '--format', 'json', '--target', 'role[name=Field Analyst]']);
      expect(only(byName)).toEqual(['role[r7HkQ2]']);
      const inside = await cli.run(['plan', config, '--format', 'json', '--target', 'collaboration[c0ffee]']);
      expect(only(inside)).toEqual(['collaboration[c0ffee].workspace[w2]']);
      // Another role's id: refused once the name is resolved, before any write, with the address it may have meant.
      const other = await cli.run(['apply', config, '--auto-approve', '--target', 'role[r7HkQ3]']);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain('--target "role[r7HkQ3]" selects no declared object. Did you mean role[r7HkQ2]');
      expect(await cli.requests({ writesOnly: true })).toEqual([]);
      // A name mistyped: the name as declared is suggested (it was checked only against the ids resolved).
      const misnamed = await cli.run(['plan', config, '--target', 'role[name=Field Analys]']);
      expect(misnamed.code).toBe(1);
      expect(misnamed.stderr).toContain('--target "role[name=Field Analys]" selects no declared object. Did you mean role[name=Field Analyst]');
      // A step no declaration has is refused before the portal is read, as before.
      const reads = (await cli.requests()).length;
      const typo = await cli.run(['plan', config, '--target', 'rol[r7HkQ2]']);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain('--target "rol[r7HkQ2]" selects no declared object.');
      expect((await cli.requests()).length).toBe(reads);
    } finally {
      await cli.dispose();
    }
  });
});
