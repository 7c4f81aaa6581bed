/**
 * Fleet runs through the real CLI (README "Environments"): plan, drift and apply over the three
 * portals of examples/environments, each environment with its own portal, credentials (the
 * variables it names) and state file; one summary table, one report; a failure in one
 * environment never stops the others; the exit code is the worst of all.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/state/index.js';
import { REPO_ROOT, startCliPortal, waitFor } from '../support/cli.js';
import { startFleet, stateFiles, type Fleet } from '../support/fleet.js';

let fleet: Fleet;
beforeEach(async () => {
  fleet = await startFleet();
});
afterEach(async () => {
  await fleet.dispose();
});

/** A summary row of the text table: environment, changes, drift, outcome. */
const row = (environment: string, changes: string, drift: string, outcome: string) => new RegExp(`^${environment} +${changes} +${drift} +${outcome}`, 'm');

/** A change made on the portal behind portalctl's back. */
async function changePolicy(url: string, token: string, minLength: number): Promise<void> {
  const response = await fetch(`${url}/portals/self/securityPolicy/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esri-authorization': `Bearer ${token}` },
    body: `minLength=${minLength}&f=json`,
  });
  expect(await response.json()).toMatchObject({ success: true });
}

describe('a fleet run', () => {
  it('plans every environment in one command with one summary, exit 2 for changes', async () => {
    const result = await fleet.run(['plan', 'config', '--all-envs', '--detailed-exitcode']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('portalctl plan over 3 environments (3 with changes).');
    expect(result.stdout).toMatch(row('development', '4', '0', 'changes'));
    expect(result.stdout).toMatch(row('test', '5', '0', 'changes'));
    expect(result.stdout).toMatch(row('production', '6', '0', 'changes'));
    // Each environment's own plan, under its name, in the order they were declared.
    const sections = [...result.stdout.matchAll(/^=== (\w+) \(/gm)].map((match) => match[1]);
    expect(sections).toEqual(['development', 'test', 'production']);
    expect(await stateFiles(fleet.dir)).toEqual([]);
  });

  it('applies the environments whose portal answers when one is down, naming the one that failed', async () => {
    await fleet.portals.production.close();
    const result = await fleet.run(['apply', 'config', '--all-envs', '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(row('development', '4', '0', 'applied'));
    expect(result.stdout).toMatch(row('test', '5', '0', 'applied'));
    expect(result.stdout).toMatch(/^production +- +- +failed: .*could not reach the portal/m);
    expect(result.stderr).toMatch(/^production: failed \(.*could not reach the portal/m);
    expect((await fleet.portals.development.requests({ writesOnly: true })).length).toBe(4);
    expect((await fleet.portals.test.requests({ writesOnly: true })).length).toBe(5);
    // Each environment its own state file (production's state name is `prod`); none for the one that failed.
    expect(await stateFiles(fleet.dir)).toEqual(['portalctl.development.state.json', 'portalctl.test.state.json']);
    const again = await fleet.run(['plan', 'config', '--env', 'development,test', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('apply --plan against other states than the plans were made with: nothing applied, advised --state alone (a fleet refuses --state-name)', async () => {
    expect((await fleet.run(['plan', 'config', '--env', 'development,test', '--out', 'plan.json'])).code).toBe(0);
    const applied = await fleet.run(['apply', '--plan', 'plan.json', '--state', 'states/']);
    expect(applied.code).toBe(1);
    for (const environment of ['development', 'test']) {
      const made = join(fleet.dir, `portalctl.${environment}.state.json`);
      const other = join(fleet.dir, 'states', `portalctl.${environment}.state.json`);
      expect(applied.stdout).toContain(
        `The saved plan was made against the state file ${made}, not file ${other}: apply it with the --state it was made with (each environment's state name is its environments.<name>.state); nothing was applied.`,
      );
    }
    expect(`${applied.stdout}${applied.stderr}`).not.toContain('--state-name');
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('two environments keeping one state: said once for the fleet, before any environment is read, not once by each', async () => {
    const file = join(fleet.dir, 'config', 'environments.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('    state: prod', '    state: test'));
    for (const request of [['--env', 'development,test,production'], ['--all-envs']]) {
      const planned = await fleet.run(['plan', 'config', ...request]);
      expect(planned.code).toBe(1);
      const said = `${planned.stdout}${planned.stderr}`.match(/environment\/shared-state/g) ?? [];
      expect(said).toHaveLength(1);
      expect(`${planned.stdout}${planned.stderr}`).toContain(
        "config/environments.yaml:38:12: error: Environments test and production keep the same state, test: each would find the other's records there (refused as another portal's, or taken for its own). (environment/shared-state)",
      );
    }
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests()).toEqual([]);
  });

  it('--state DIR/ keeps each environment\'s state file in that directory, under its default name', async () => {
    const result = await fleet.run(['apply', 'config', '--env', 'development,test', '--auto-approve', '--state', 'states/']);
    expect(result.code, result.stderr).toBe(0);
    expect(await stateFiles(join(fleet.dir, 'states'))).toEqual(['portalctl.development.state.json', 'portalctl.test.state.json']);
    expect(await stateFiles(fleet.dir)).toEqual([]);
  });

  it('exits with the worst outcome: drift in one environment wins over the others in sync', async () => {
    expect((await fleet.run(['apply', 'config', '--all-envs', '--auto-approve'])).code).toBe(0);
    await changePolicy(fleet.portals.test.url, 'test-token', 30);
    const result = await fleet.run(['drift', 'config', '--all-envs']);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(row('development', '0', '0', 'in sync'));
    expect(result.stdout).toMatch(row('test', '1', '1', 'drift'));
    expect(result.stdout).toMatch(row('production', '0', '0', 'in sync'));
  });

  it('drift in an environment without a recorded state is unknown, not 0, in the summary and the JSON report', async () => {
    expect((await fleet.run(['apply', 'config', '--env', 'development', '--auto-approve'])).code).toBe(0);
    const result = await fleet.run(['drift', 'config', '--all-envs']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(row('development', '0', '0', 'in sync'));
    expect(result.stdout).toMatch(row('test', '5', '-', 'pending'));
    expect(result.stdout).toMatch(row('production', '6', '-', 'pending'));
    expect(result.stdout).toContain('Drift cannot be judged: there is no recorded state yet.');
    const json = await fleet.run(['drift', 'config', '--all-envs', '--format', 'json']);
    const report = JSON.parse(json.stdout) as { environments: { environment: string; changes: number; drift?: number }[] };
    expect(report.environments.map(({ environment, changes, drift }) => ({ environment, changes, drift }))).toEqual([
      { environment: 'development', changes: 0, drift: 0 },
      { environment: 'test', changes: 5, drift: undefined },
      { environment: 'production', changes: 6, drift: undefined },
    ]);
  });

  it('apply --refresh-only over the fleet records each environment\'s drift, asks nothing, and sends nothing', async () => {
    expect((await fleet.run(['apply', 'config', '--all-envs', '--auto-approve'])).code).toBe(0);
    await changePolicy(fleet.portals.test.url, 'test-token', 30);
    await changePolicy(fleet.portals.production.url, 'prod-token', 31);
    const unapproved = await fleet.run(['apply', 'config', '--all-envs', '--refresh-only']);
    expect(unapproved.code).toBe(1);
    expect(unapproved.stderr).toContain('pass --auto-approve');
    const writesBefore = await Promise.all(Object.values(fleet.portals).map(async (portal) => (await portal.requests({ writesOnly: true })).length));
    const result = await fleet.run(['apply', 'config', '--all-envs', '--refresh-only', '--auto-approve']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('portalctl apply --refresh-only over 3 environments (1 nothing to record, 2 recorded).');
    expect(result.stdout).toMatch(row('development', '0', '0', 'nothing to record'));
    expect(result.stdout).toMatch(row('test', '1', '1', 'recorded'));
    expect(result.stdout).toMatch(row('production', '1', '1', 'recorded'));
    expect(result.stdout).toMatch(/=== test \(.*\) ===\nRefresh-only: 1 object to record from the portal/);
    expect(await Promise.all(Object.values(fleet.portals).map(async (portal) => (await portal.requests({ writesOnly: true })).length))).toEqual(writesBefore);
    // Recorded: no drift left; the configuration still asks for its own value, so the change is pending.
    const drift = await fleet.run(['drift', 'config', '--all-envs']);
    expect(drift.code, drift.stdout).toBe(2);
    expect(drift.stdout).toMatch(row('test', '1', '0', 'pending'));
    expect(drift.stdout).toMatch(row('development', '0', '0', 'in sync'));
    const json = await fleet.run(['apply', 'config', '--env', 'test,production', '--refresh-only', '--auto-approve', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ command: 'apply --refresh-only', exitCode: 0, environments: [{ environment: 'test', outcome: 'nothing to record', report: { refreshOnly: true, recorded: [] } }, { environment: 'production' }] });
  });

  it('writes one markdown report with a section per environment, and one JSON report', async () => {
    const markdown = await fleet.run(['plan', 'config', '--env', 'development,production', '--format', 'markdown']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^### portalctl plan: 2 environments$/m);
    expect(markdown.stdout).toMatch(/^\| development \| 4 \| 0 \| changes \| [\d.]+ s \|$/m);
    expect(markdown.stdout).toContain(`#### development — ${fleet.portals.development.url}`);
    expect(markdown.stdout).toContain(`#### production — ${fleet.portals.production.url}`);
    expect(markdown.stdout).not.toContain('#### test');
    // An environment's own headings sit under its heading, not beside it.
    expect(markdown.stdout).toMatch(/^##### Changes$/m);
    expect(markdown.stdout).not.toMatch(/^#### Changes$/m);

    const json = await fleet.run(['drift', 'config', '--all-envs', '--format', 'json']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as { command: string; exitCode: number; environments: { environment: string; outcome: string; report: { status: string; pending: unknown[] } }[] };
    expect(report.command).toBe('drift');
    expect(report.exitCode).toBe(2);
    expect(report.environments.map((entry) => [entry.environment, entry.outcome, entry.report.status, entry.report.pending.length])).toEqual([
      ['development', 'pending', 'pending', 4],
      ['test', 'pending', 'pending', 5],
      ['production', 'pending', 'pending', 6],
    ]);
  });

  it('takes each environment\'s credentials from the variables it names: one unset fails that environment alone, naming the variable', async () => {
    const result = await fleet.run(['plan', 'config', '--all-envs'], { drop: ['TEST_PORTAL_TOKEN'], env: { PORTALCTL_TOKEN: 'dev-token' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^test +- +- +failed: Environment test takes its token from TEST_PORTAL_TOKEN, which is not set\./m);
    expect(result.stdout).toMatch(row('development', '4', '0', 'changes'));
    expect(result.stdout).toMatch(row('production', '6', '0', 'changes'));
    for (const token of ['dev-token', 'prod-token']) expect(result.stdout + result.stderr).not.toContain(token);
  });

  it('an environment that failed to plan has no plan in the saved file: apply --plan applies the others and names why', async () => {
    const planned = await fleet.run(['plan', 'config', '--all-envs', '--out', 'plan.json'], { drop: ['TEST_PORTAL_TOKEN'] });
    expect(planned.code).toBe(1);
    const applied = await fleet.run(['apply', '--plan', 'plan.json']);
    expect(applied.code).toBe(1);
    expect(applied.stdout).toMatch(/^test +- +- +failed: No saved plan for test: Environment test takes its token from TEST_PORTAL_TOKEN, which is not set\. {2}/m);
    expect(applied.stdout).toMatch(row('development', '4', '0', 'applied'));
    expect(applied.stdout).toMatch(row('production', '6', '0', 'applied'));
    expect(await fleet.portals.test.requests({ writesOnly: true })).toEqual([]);
  });

  it('a config with environments needs one chosen; PORTALCTL_ENV chooses', async () => {
    const none = await fleet.run(['plan', 'config']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('The config declares environments (development, test, production): choose one with --env NAME');

    const chosen = await fleet.run(['plan', 'config', '--detailed-exitcode'], { env: { PORTALCTL_ENV: 'test' } });
    expect(chosen.code).toBe(2);
    expect(chosen.stdout).toMatch(/^Plan: 0 to create, 5 to update, 0 to delete\.$/m);
    expect(chosen.stdout).toContain('role[tStA11] — Field Analyst');
    expect(chosen.stdout).not.toContain('environment  changes');
  });

  it('an unknown name in --env (or PORTALCTL_ENV) stops the whole command before any environment is read or written', async () => {
    const declaredAt = (message: string, value: string) =>
      [
        `config/environments.yaml:11:1: error: ${message} (environment/unknown)`,
        '  11 | environments:',
        '     | ^',
        `  value: "${value}"; expected: one of development, test, production`,
        'Error: invalid configuration (1 error above); nothing was changed on the portal.',
        '',
      ].join('\n');
    const applied = await fleet.run(['apply', 'config', '--env', 'development,prodution', '--auto-approve']);
    expect(applied.stderr).toBe(declaredAt('No environment named prodution; declared: development, test, production. Did you mean "production"?', 'prodution'));
    expect(applied.stdout).toBe('');
    expect(applied.code).toBe(1);

    // Each unknown name is named, with its own suggestion; PORTALCTL_ENV is checked alike.
    for (const command of [['plan'], ['drift'], ['apply', '--refresh-only', '--auto-approve'], ['validate']]) {
      const several = await fleet.run([command[0] ?? '', 'config', ...command.slice(1)], { env: { PORTALCTL_ENV: 'staging,test,prodution' } });
      expect(several.stderr, command.join(' ')).toBe(declaredAt('No environments named staging or prodution (did you mean "production"?); declared: development, test, production.', 'staging,prodution'));
      expect(several.stdout).toBe('');
      expect(several.code).toBe(1);
    }
    const json = await fleet.run(['plan', 'config', '--env', 'test,staging', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, exitCode: 1, diagnostics: [{ code: 'environment/unknown', value: 'staging', location: { file: 'config/environments.yaml', line: 11, column: 1 } }] });
    expect(json.code).toBe(1);

    for (const portal of Object.values(fleet.portals)) expect(await portal.requests()).toEqual([]);
    expect(await stateFiles(fleet.dir)).toEqual([]);
  });

  it('saves every environment\'s plan in one file, and applies the reviewed plans from it', async () => {
    const planned = await fleet.run(['plan', 'config', '--all-envs', '--out', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr).toContain('Saved the plans of 3 environment(s) to plan.json; apply them with: portalctl apply --plan plan.json');
    const saved = JSON.parse(await readFile(join(fleet.dir, 'plan.json'), 'utf8')) as { fleet: { environment: string; plan: { environment: string; sources: string[]; summary: { update: number } } }[] };
    expect(saved.fleet.map((entry) => [entry.environment, entry.plan.environment, entry.plan.summary.update])).toEqual([
      ['development', 'development', 4],
      ['test', 'test', 5],
      ['production', 'production', 6],
    ]);
    expect(saved.fleet[2]?.plan.sources).toEqual(['config/content.yaml', 'config/environments.yaml', 'config/organization.yaml']);
    const shown = await fleet.run(['show', 'plan.json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect([...shown.stdout.matchAll(/^=== (\w+) ===$/gm)].map((match) => match[1])).toEqual(['development', 'test', 'production']);
    expect(shown.stdout).toContain('role[r7HkQ2] — Field Analyst  (by name: role "Field Analyst" → r7HkQ2)');
    // As markdown, nested as the fleet's own report is: each plan's headings under its environment's.
    const markdown = await fleet.run(['show', 'plan.json', '--format', 'markdown', '--env', 'test,production']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout.split('\n').filter((line) => line.startsWith('#'))).toEqual([
      '### portalctl plan: 2 environments',
      `#### test — ${fleet.portals.test.url}`,
      '##### Changes',
      `#### production — ${fleet.portals.production.url}`,
      '##### Changes',
    ]);
    // --env shows those environments' plans alone, as apply --plan applies them alone.
    const shownOne = await fleet.run(['show', 'plan.json', '--env', 'production,test']);
    expect(shownOne.code, shownOne.stderr).toBe(0);
    expect([...shownOne.stdout.matchAll(/^=== (\w+) ===$/gm)].map((match) => match[1])).toEqual(['production', 'test']);
    const shownNone = await fleet.run(['show', 'plan.json', '--env', 'staging']);
    expect(shownNone.code).toBe(1);
    expect(shownNone.stderr).toBe('Error: The plan file has no plan for staging; it holds development, test, production.\n');
    const shownTypos = await fleet.run(['show', 'plan.json', '--env', 'tset,staging,production']);
    expect(shownTypos.code).toBe(1);
    expect(shownTypos.stdout).toBe('');
    expect(shownTypos.stderr).toBe('Error: The plan file has no plan for tset (did you mean "test"?) or staging; it holds development, test, production.\n');
    // apply --plan alike: nothing applied where one name is not in the file.
    const appliedTypo = await fleet.run(['apply', '--plan', 'plan.json', '--env', 'development,prodution']);
    expect(appliedTypo.code).toBe(1);
    expect(appliedTypo.stdout).toBe('');
    expect(appliedTypo.stderr).toBe('Error: The plan file has no plan for prodution; it holds development, test, production. Did you mean "production"?\n');
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // A reviewed plan that went stale is refused in its environment alone.
    await changePolicy(fleet.portals.development.url, 'dev-token', 20);
    const applied = await fleet.run(['apply', '--plan', 'plan.json']);
    expect(applied.code).toBe(1);
    expect(applied.stdout).toMatch(/^development +- +- +failed: The saved plan is stale: the portal changed since the plan was made/m);
    expect(applied.stdout).toMatch(row('test', '5', '0', 'applied'));
    expect(applied.stdout).toMatch(row('production', '6', '0', 'applied'));
    expect(await fleet.portals.development.requests({ writesOnly: true })).toHaveLength(1);
    // One environment's plan out of the file, named with --env.
    const one = await fleet.run(['apply', '--plan', 'plan.json', '--env', 'test']);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(/^test +- +- +failed: The saved plan is stale/m);
    expect(one.stdout).not.toMatch(/^production /m);
  });

  it('one environment\'s saved plan is not applied over several environments: refused, nothing sent', async () => {
    const planned = await fleet.run(['plan', 'config', '--env', 'test', '--out', 'test-plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    for (const environments of [['--all-envs'], ['--env', 'test,production']]) {
      const applied = await fleet.run(['apply', 'config', '--plan', 'test-plan.json', ...environments, '--auto-approve']);
      expect(applied.code).toBe(1);
      expect(applied.stderr).toContain('test-plan.json holds the plan of one environment (test); apply it alone with `portalctl apply --plan test-plan.json`');
    }
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect(await stateFiles(fleet.dir)).toEqual([]);
    const shown = await fleet.run(['show', 'test-plan.json', '--env', 'production']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('test-plan.json holds the plan of environment test alone, not of production.');
    // As the refusal says: alone, it applies in its own environment.
    const alone = await fleet.run(['apply', '--plan', 'test-plan.json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(await fleet.portals.test.requests({ writesOnly: true })).toHaveLength(5);
    expect(await fleet.portals.production.requests({ writesOnly: true })).toEqual([]);
  });

  it('an overlay that gives the same object twice in one list is refused, naming both places; two overlays change it in order', async () => {
    const overlay = ['version: 1', 'roles:', '  - id: { name: Field Analyst }', '    description: First', '  - id: { name: Field Analyst }', '    description: Second', ''].join('\n');
    await writeFile(join(fleet.config, 'overlays', 'test.yaml'), overlay);
    const refused = await fleet.run(['plan', 'config', '--env', 'test']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      [
        'config/overlays/test.yaml:5:3: error: The element id={"name":"Field Analyst"} is given twice in this overlay\'s list: here and at config/overlays/test.yaml:3:3. (overlay/duplicate-element)',
        '  5 |   - id: { name: Field Analyst }',
        '    |   ^',
      ].join('\n'),
    );
    expect(await fleet.portals.test.requests({ writesOnly: true })).toEqual([]);

    // In two overlays of one environment, the later one wins, and says where.
    await writeFile(join(fleet.config, 'overlays', 'test.yaml'), ['version: 1', 'roles:', '  - id: { name: Field Analyst }', '    description: First', ''].join('\n'));
    await writeFile(join(fleet.config, 'overlays', 'later.yaml'), ['version: 1', 'roles:', '  - id: { name: Field Analyst }', '    description: Second', ''].join('\n'));
    const environments = await readFile(join(fleet.config, 'environments.yaml'), 'utf8');
    await writeFile(join(fleet.config, 'environments.yaml'), environments.replace('overlays: [overlays/test.yaml]', 'overlays: [overlays/test.yaml, overlays/later.yaml]'));
    const config = await fleet.run(['config', 'config', '--env', 'test']);
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).toContain('description: Second # config/overlays/later.yaml:4');
  });

  it('validate checks every environment; config prints one environment\'s effective config, graph its plan; state reads an environment\'s state', async () => {
    await writeFile(join(fleet.config, 'overlays', 'test.yaml'), 'version: 1\norganization:\n  securityPolicy:\n    minLength: 2\n');
    const validated = await fleet.run(['validate', 'config', '--format', 'json']);
    expect(validated.code).toBe(1);
    const report = JSON.parse(validated.stdout) as { valid: boolean; environments: { environment: string; valid: boolean; diagnostics: { location: { file: string; line: number } }[] }[] };
    expect(report.environments.map((entry) => [entry.environment, entry.valid])).toEqual([
      ['development', true],
      ['test', false],
      ['production', true],
    ]);
    expect(report.environments[1]?.diagnostics[0]?.location).toMatchObject({ file: 'config/overlays/test.yaml', line: 4 });

    const config = await fleet.run(['config', 'config', '--env', 'production']);
    expect(config.code).toBe(0);
    expect(config.stdout).toContain('minLength: 14 # config/organization.yaml:5');
    expect(config.stdout).toContain('historySize: 5 # config/overlays/production.yaml:5');
    expect(config.stdout).toContain('url: ${env:PROD_PORTAL_URL} # config/environments.yaml:33');
    expect(config.stdout).not.toContain(fleet.portals.production.url);

    // graph draws one environment's plan, against that environment's portal.
    const graph = await fleet.run(['graph', 'config', '--env', 'production']);
    expect(graph.code, graph.stderr).toBe(0);
    // Production's six operations (development has 4, test 5), none depending on another.
    expect(graph.stderr).toBe("No operation depends on another: the plan's 6 operations can run in any order, so the graph draws them without arrows.\n");
    expect(graph.stdout.match(/^ {2}op\d+\[/gm)).toHaveLength(6);
    expect(await fleet.portals.production.requests({ writesOnly: true })).toEqual([]);
    const graphs = await fleet.run(['graph', 'config', '--all-envs']);
    expect(graphs.code).toBe(1);
    expect(graphs.stderr).toContain("graph draws one environment's plan: name it with --env NAME.");
    // Without --env, the commands that run in one environment say so, and offer neither several nor --all-envs, which they refuse.
    const declared = 'Error: The config declares environments (development, test, production), and';
    for (const [command, why] of [
      ['graph', "graph draws one environment's plan"],
      ['config', 'config prints one environment'],
      ['import', 'import reads one portal'],
    ] as const) {
      const none = await fleet.run([command, 'config']);
      expect(none.stderr, command).toBe(`${declared} ${why}: name one with --env NAME (or PORTALCTL_ENV).\n`);
      expect(none.code, command).toBe(1);
    }

    expect((await fleet.run(['apply', 'config', '--env', 'production', '--auto-approve'])).code).toBe(0);
    expect(existsSync(join(fleet.dir, 'portalctl.prod.state.json'))).toBe(true);
    const listed = await fleet.run(['state', 'list', '--env', 'production', '--config', 'config']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('role[r7HkQ2]');
    // --config without --env would be passed over, and the default state file listed (or changed) in its place.
    const refused = 'Error: --config config names the config that declares the environment of --env; give --env NAME with it for that environment\'s state, or leave it out for the state at --state (default portalctl.state.json).\n';
    for (const args of [['list'], ['rm', 'role[r7HkQ2]']]) {
      const withoutEnv = await fleet.run(['state', ...args, '--config', 'config']);
      expect(withoutEnv.stdout, args[0]).toBe('');
      expect(withoutEnv.stderr, args[0]).toBe(refused);
      expect(withoutEnv.code, args[0]).toBe(1);
    }
    expect((await fleet.run(['state', 'list', '--env', 'production', '--config', 'config'])).stdout).toContain('role[r7HkQ2]');
  });

  it('import --portal: a job-wide PORTALCTL_ENV reads no config and brings no credentials; --env on the command line brings its credentials to that portal', async () => {
    const development = fleet.portals.development.url;
    // No config in the working directory, and none needed: the portal and PORTALCTL_TOKEN say it all.
    const jobWide = await fleet.run(['import', '--portal', development], { env: { PORTALCTL_ENV: 'production', PORTALCTL_TOKEN: 'dev-token' } });
    expect(jobWide.stderr).toBe('');
    expect(jobWide.code).toBe(0);
    expect(jobWide.stdout).toContain(`  url: ${development}\n`);
    // With PATH too: production's token is not sent to development's portal in place of PORTALCTL_TOKEN.
    const withPath = await fleet.run(['import', 'config', '--portal', development], { env: { PORTALCTL_ENV: 'production', PORTALCTL_TOKEN: 'dev-token' } });
    expect(withPath.stderr).toBe('');
    expect(withPath.code).toBe(0);
    // --env named on the command line: that environment's credentials, at the portal --portal names (a copy, or another address).
    const named = await fleet.run(['import', 'config', '--env', 'production', '--portal', development], { env: { PORTALCTL_TOKEN: 'dev-token' } });
    expect(named.stderr).toContain('Invalid token');
    expect(named.code).toBe(1);
    const namedWithItsToken = await fleet.run(['import', 'config', '--env', 'production', '--portal', development], { env: { PROD_PORTAL_TOKEN: 'dev-token' } });
    expect(namedWithItsToken.stderr).toBe('');
    expect(namedWithItsToken.code).toBe(0);
    expect(await fleet.portals.production.requests()).toEqual([]);
  });

  it('--portal and --state-name name one portal and one state: refused over several environments, nothing sent', async () => {
    for (const command of [['plan'], ['drift'], ['apply', '--auto-approve'], ['apply', '--refresh-only', '--auto-approve']]) {
      const result = await fleet.run([...command, 'config', '--all-envs', '--portal', fleet.portals.production.url]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('--portal names one portal, but each environment of a fleet has its own (environments.<name>.portal.url); leave it out, or run one environment with --env NAME.');
    }
    const named = await fleet.run(['plan', 'config', '--env', 'test,production', '--state-name', 'one']);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('--state-name names one state');
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests()).toEqual([]);
    // One environment takes --portal over its own URL, as a config without environments does,
    // and then the variable its own URL comes from need not be set.
    const one = await fleet.run(['plan', 'config', '--env', 'production', '--portal', fleet.portals.production.url, '--detailed-exitcode'], { drop: ['PROD_PORTAL_URL'] });
    expect(one.code, one.stderr).toBe(2);
    expect(one.stdout).toContain('Plan: 0 to create, 6 to update, 0 to delete.');
    expect(await fleet.portals.production.requests()).not.toEqual([]);
  });

  it('a fleet apply asks no questions: it needs --auto-approve', async () => {
    const result = await fleet.run(['apply', 'config', '--all-envs']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Applying to several environments asks no questions');
    for (const portal of Object.values(fleet.portals)) expect(await portal.requests()).toEqual([]);
  });
});

describe('an interrupted fleet apply', () => {
  it('the first SIGINT stops an environment waiting for its lock at once (nothing in flight there), while another finishes its write in flight', async () => {
    // The development state is locked by a live process (this test's), for the whole run.
    const held = new FileStateStore({ path: join(fleet.dir, 'portalctl.development.state.json') });
    const lock = await held.lock({ operation: 'apply' });
    try {
      await fleet.portals.test.control('/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '*', method: 'POST', hold: true, count: 0 }) });
      const run = fleet.start(['apply', 'config', '--env', 'development,test', '--auto-approve', '--parallelism', '1', '--lock-timeout', '596h']);
      await waitFor(async () => (await fleet.portals.test.requests({ writesOnly: true })).length > 0, 'a write in flight in test', run.done);
      run.child.kill('SIGINT');
      await waitFor(() => run.stderr().includes('Interrupted: finishing the operations in flight'), 'the interrupt noted', run.done);
      await fleet.portals.test.control('/faults', { method: 'DELETE' });
      await fleet.portals.test.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      // One Ctrl-C ends the run: development does not wait out its --lock-timeout.
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain(`development: interrupted (Interrupted while waiting for the state lock of ${join(fleet.dir, 'portalctl.development.state.json')}: nothing was changed.) in `);
      expect(result.stdout).toMatch(/^test +1 +0 +interrupted: Apply was interrupted: 1 applied and recorded, \d not started/m);
      expect(await fleet.portals.development.requests({ writesOnly: true })).toEqual([]);
      // This test's lock is still its own: the interrupted run released only what it held.
      expect((await held.currentLock())?.id).toBe(lock.info.id);
    } finally {
      await held.unlock(lock);
    }
  });

  it('the first SIGINT stops an environment reading the portal at once, interrupted with nothing changed, while another finishes its write in flight', async () => {
    const hold = (method: 'GET' | 'POST') => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '*', method, hold: true, count: 0 }) });
    // development's reads wait at its portal until released (they are not, until the run ended); test's writes until released.
    await fleet.portals.development.control('/faults', hold('GET'));
    await fleet.portals.test.control('/faults', hold('POST'));
    try {
      const run = fleet.start(['apply', 'config', '--env', 'development,test', '--auto-approve', '--parallelism', '1']);
      await waitFor(async () => (await fleet.portals.development.requests()).some((entry) => entry.response === undefined), 'a read in flight in development', run.done);
      await waitFor(async () => (await fleet.portals.test.requests({ writesOnly: true })).length > 0, 'a write in flight in test', run.done);
      run.child.kill('SIGINT');
      await waitFor(() => run.stderr().includes('Interrupted: finishing the operations in flight'), 'the interrupt noted', run.done);
      // development is let go: its read in flight is abandoned, and no other starts.
      await waitFor(() => run.stderr().includes('development: interrupted'), 'development to stop reading', run.done);
      const readsWhenStopped = (await fleet.portals.development.requests()).length;
      await fleet.portals.test.control('/faults', { method: 'DELETE' });
      await fleet.portals.test.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('development: interrupted (Interrupted while reading the portal: nothing was changed.) in ');
      expect(result.stdout).toMatch(/^development +- +- +interrupted: Interrupted while reading the portal: nothing was changed\./m);
      expect(result.stdout).toMatch(/^test +1 +0 +interrupted: Apply was interrupted: 1 applied and recorded, \d not started/m);
      expect(await fleet.portals.development.requests({ writesOnly: true })).toEqual([]);
      expect((await fleet.portals.development.requests()).length).toBe(readsWhenStopped);
      // Nothing recorded in development: no state file; its lock was released.
      expect(await stateFiles(fleet.dir)).toEqual(['portalctl.test.state.json']);
      expect(existsSync(join(fleet.dir, 'portalctl.development.state.json.lock'))).toBe(false);
    } finally {
      await fleet.portals.development.control('/faults', { method: 'DELETE' });
      await fleet.portals.development.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    }
  });

  it('the first SIGINT between the reads and the first write stops that environment before writing, and starts no other', async () => {
    // Two environments on one portal; the plan sends an invitation, so apply checks the invites
    // directory after its reads and before its first write: a preloaded hook holds that check.
    const portal = await startCliPortal();
    try {
      const config = await portal.writeConfig(
        'version: 1\nenvironments:\n' +
          ['east', 'west'].map((name) => `  ${name}:\n    portal:\n      url: \${env:PORTAL_URL}\n      edition: self-managed\n      version: "11.3"\n`).join('') +
          'organization:\n  securityPolicy:\n    minLength: 12\n' +
          'collaborations:\n  - id: c0ffee\n    participants:\n      - guestPortalUrl: https://partner.example.org/portal\n        workspaces: { w1: sendAndReceive }\n',
      );
      const invites = join(portal.dir, 'invites');
      const ready = join(portal.dir, 'reads-done');
      const release = join(portal.dir, 'release');
      const run = portal.start(['apply', config, '--env', 'east,west', '--env-parallelism', '1', '--auto-approve', '--invites-dir', invites], {
        portal: null,
        env: {
          NODE_OPTIONS: `--require ${join(REPO_ROOT, 'test/support/hold-before-writing.cjs')}`,
          PORTALCTL_TEST_HOLD_PATH: invites,
          PORTALCTL_TEST_HOLD_READY: ready,
          PORTALCTL_TEST_HOLD_RELEASE: release,
        },
      });
      await waitFor(() => existsSync(ready), "east's reads done, its first write not sent", run.done);
      const readsWhenStopped = (await portal.requests()).length;
      run.child.kill('SIGINT');
      await waitFor(() => run.output().stderr.includes('Interrupted: finishing the operations in flight'), 'the interrupt noted', run.done);
      await writeFile(release, '');
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('east: interrupted (Apply was interrupted before writing: nothing was changed.) in ');
      expect(result.stdout).toMatch(/^east +- +- +interrupted: Apply was interrupted before writing: nothing was changed\./m);
      expect(result.stdout).toMatch(/^west +- +- +not run/m);
      // Nothing sent after the stop, no write at all; nothing recorded, no lock left.
      expect((await portal.requests()).length).toBe(readsWhenStopped);
      expect(await portal.requests({ writesOnly: true })).toEqual([]);
      expect((await readdir(portal.dir)).filter((name) => name.startsWith('state.'))).toEqual([]);
    } finally {
      await portal.dispose();
    }
  });

  it('the first SIGINT while an environment checks that its portal converged abandons the check, saying what it applied and recorded', async () => {
    const hold = (method: 'GET' | 'POST') => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '*', method, hold: true, count: 0 }) });
    const development = fleet.portals.development;
    // development's writes wait at its portal, while test applies and checks in full.
    await development.control('/faults', hold('POST'));
    try {
      const run = fleet.start(['apply', 'config', '--env', 'development,test', '--auto-approve', '--parallelism', '1']);
      await waitFor(async () => (await development.requests({ writesOnly: true })).length > 0, 'a write in flight in development', run.done);
      await waitFor(() => run.stderr().includes('test: applied in '), 'test to finish', run.done);
      // Then its writes go on, and the check that follows waits at its first read.
      await development.control('/faults', { method: 'DELETE' });
      await development.control('/faults', hold('GET'));
      await development.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await waitFor(
        async () => {
          const log = await development.requests();
          const lastWrite = log.map((entry) => entry.access).lastIndexOf('write');
          return log.filter((entry) => entry.access === 'write').length === 4 && log.slice(lastWrite + 1).some((entry) => entry.response === undefined);
        },
        "development's check to read its portal",
        run.done,
      );
      run.child.kill('SIGINT');
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      const stopped = 'Apply was interrupted: 4 applied and recorded; the check that the portal converged did not finish (run plan to see what is left).';
      expect(result.stderr).toContain(`development: interrupted (${stopped}) in `);
      expect(result.stdout).toMatch(/^development +4 +0 +interrupted: Apply was interrupted: 4 applied and recorded; the check that the portal converged did not finish/m);
      expect(result.stdout).toMatch(/^test +5 +0 +applied/m);
      // development's section says what it applied, as an apply stopped while writing does.
      expect(result.stdout).toMatch(new RegExp(`\n(applied  .*\n){4}\n?Apply finished: 4 applied, 0 failed, 0 skipped\\.\n${stopped.replace(/[.()]/g, '\\$&')}\n\n=== test `));
      // Each applied write recorded; the lock released.
      const recorded = JSON.parse(await readFile(join(fleet.dir, 'portalctl.development.state.json'), 'utf8')) as { resources: Record<string, unknown> };
      expect(Object.keys(recorded.resources)).toHaveLength(4);
      expect(existsSync(join(fleet.dir, 'portalctl.development.state.json.lock'))).toBe(false);
    } finally {
      await development.control('/faults', { method: 'DELETE' });
      await development.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    }
    const plan = await fleet.run(['plan', 'config', '--env', 'development,test', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('apply --refresh-only: the first SIGINT stops an environment reading its portal, while one that recorded keeps it, and the run reports both', async () => {
    const development = fleet.portals.development;
    await development.control('/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '*', method: 'GET', hold: true, count: 0 }) });
    try {
      const run = fleet.start(['apply', '--refresh-only', 'config', '--env', 'development,test', '--auto-approve']);
      await waitFor(async () => (await development.requests()).some((entry) => entry.response === undefined), 'a read in flight in development', run.done);
      await waitFor(() => run.stderr().includes('test: recorded in '), 'test to record', run.done);
      run.child.kill('SIGINT');
      await waitFor(() => run.stderr().includes('development: interrupted'), 'development to stop reading', run.done);
      const readsWhenStopped = (await development.requests()).length;
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('\nInterrupted: finishing the recordings under way (nothing is sent to the portal), starting no other. Press Ctrl-C again to stop at once.\n');
      expect(result.stderr).toContain('development: interrupted (Interrupted while reading the portal: nothing was changed.) in ');
      expect(result.stdout).toMatch(/^development +- +- +interrupted: Interrupted while reading the portal: nothing was changed\./m);
      expect(result.stdout).toMatch(/^test +\d+ +0 +recorded/m);
      expect((await development.requests()).length).toBe(readsWhenStopped);
      expect(await stateFiles(fleet.dir)).toEqual(['portalctl.test.state.json']);
      expect(existsSync(join(fleet.dir, 'portalctl.development.state.json.lock'))).toBe(false);
      for (const portal of Object.values(fleet.portals)) expect(await portal.requests({ writesOnly: true })).toEqual([]);
    } finally {
      await development.control('/faults', { method: 'DELETE' });
      await development.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    }
  });

  it('SIGINT while every environment has a write in flight: each finishes and records it, starts no other, exits 130; the next apply finishes the rest', async () => {
    // Every write waits at the portal until released: the signal arrives with writes in flight in all three.
    for (const portal of Object.values(fleet.portals)) {
      await portal.control('/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '*', method: 'POST', hold: true, count: 0 }) });
    }
    const writes = async (portal: (typeof fleet.portals)[keyof typeof fleet.portals]) => portal.requests({ writesOnly: true });
    // One operation at a time in each environment: one write in flight in each when the signal comes.
    const run = fleet.start(['apply', 'config', '--all-envs', '--auto-approve', '--parallelism', '1']);
    for (const portal of Object.values(fleet.portals)) await waitFor(async () => (await writes(portal)).length > 0, 'a write in each environment', run.done);
    run.child.kill('SIGINT');
    // The stop is noted (the CLI says so) before the held writes are let go.
    await waitFor(() => run.stderr().includes('Interrupted: finishing the operations in flight'), 'the interrupt noted', run.done);
    const inFlight = new Map<string, number>();
    for (const [name, portal] of Object.entries(fleet.portals)) {
      inFlight.set(name, (await writes(portal)).length);
      // Faults off first: a write sent after the signal (a bug) would then show in the count, not hang.
      await portal.control('/faults', { method: 'DELETE' });
      await portal.control('/faults/release', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    for (const [name, portal] of Object.entries(fleet.portals)) {
      // What it applied before it stopped is counted in the summary.
      expect(result.stdout).toMatch(new RegExp(`^${name} +1 +0 +interrupted: Apply was interrupted: 1 applied and recorded, \\d not started`, 'm'));
      // No write started after the signal; each sent before it was answered and recorded.
      const sent = await writes(portal);
      expect(sent.length, name).toBe(inFlight.get(name));
      expect(sent.every((entry) => entry.response?.status === 200)).toBe(true);
    }
    const states = await stateFiles(fleet.dir);
    expect(states).toEqual(['portalctl.development.state.json', 'portalctl.prod.state.json', 'portalctl.test.state.json']);
    for (const file of states) expect(JSON.parse(await readFile(join(fleet.dir, file), 'utf8'))).toMatchObject({ serial: expect.any(Number) });

    const again = await fleet.run(['apply', 'config', '--all-envs', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    // What the first run applied and recorded is not sent again: the two runs together made each environment's writes once.
    expect((await writes(fleet.portals.development)).length).toBe(4);
    expect((await writes(fleet.portals.test)).length).toBe(5);
    expect((await writes(fleet.portals.production)).length).toBe(6);
    const plan = await fleet.run(['plan', 'config', '--all-envs', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});
