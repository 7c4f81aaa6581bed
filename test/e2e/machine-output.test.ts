/**
 * State commands as Terraform users type them, and `--format json` on every command that prints
 * a result, errors included, through the real CLI.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THREE_CHANGES, startCliPortal, type CliPortal } from '../support/cli.js';

const ITEM = 'item[1105a1562c9c4dd98e557595bf8a2617].status';
const TASK = 'user[jsmith].task[a1b2c3]';
const WITH_ROLE = `${THREE_CHANGES}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: Edits field data for Public Works }\n`;

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

describe('state commands and machine output', () => {
  let portal: CliPortal;
  let config: string;
  beforeAll(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(WITH_ROLE);
    const applied = await portal.run(['apply', config, '--auto-approve', '--format', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(json(applied.stdout)).toMatchObject({
      applied: expect.arrayContaining([ITEM, TASK, 'role[r7HkQ2]']),
      converged: true,
      // What it was about, as the README says (it was missing: only refresh-only gave it).
      about: { config: [config], state: `file ${portal.statePath}`, portalctl: expect.any(String) },
      plan: { about: { config: [config] } },
    });
  });
  afterAll(async () => portal.dispose());

  it('state list has a header and --format json', async () => {
    const text = await portal.run(['state', 'list']);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^# .*: lineage \S+, serial \d+, portal \S+; 4 resources$/);
    expect(lines[1]).toBe('address\tkind\tstatus\tlast applied or seen');
    expect(lines.slice(2).filter(Boolean).map((line) => line.split('\t')[0])).toEqual([ITEM, 'organization.securityPolicy', 'role[r7HkQ2]', TASK]);

    const listed = json((await portal.run(['state', 'list', '--format', 'json'])).stdout);
    expect(listed).toMatchObject({ lineage: expect.any(String), serial: expect.any(Number) });
    expect((listed['resources'] as { address: string; kind: string }[]).map((entry) => [entry.address, entry.kind])).toContainEqual(['role[r7HkQ2]', 'role']);
  });

  it('state show ADDR shows one resource, as text and as JSON; an unknown address gets the closest', async () => {
    const text = await portal.run(['state', 'show', 'role[r7HkQ2]']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^# role\[r7HkQ2\] \(serial \d+\)\nkind: role\n/);
    expect(text.stdout).toContain('description: Edits field data for Public Works');
    const shown = json((await portal.run(['state', 'show', 'role[r7HkQ2]', '--format', 'json'])).stdout);
    expect(shown).toMatchObject({ address: 'role[r7HkQ2]', kind: 'role', status: 'present', value: { description: 'Edits field data for Public Works' } });

    const typo = await portal.run(['state', 'show', 'rolse[r7HkQ2]']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe('Error: The state has no resource at rolse[r7HkQ2]; nothing to show. Did you mean "role[r7HkQ2]"?\n');
    const rm = await portal.run(['state', 'rm', 'user[jsmith].task[a1b2c4]', '--dry-run']);
    expect(rm.stderr).toContain(`Did you mean "${TASK}"?`);
  });

  it('state history --format json lists the kept serials', async () => {
    const history = json((await portal.run(['state', 'history', '--format', 'json'])).stdout);
    expect((history['serials'] as { serial: number; command: string }[])[0]).toMatchObject({ serial: expect.any(Number), command: expect.stringContaining('portalctl apply') });
  });

  it('state mv refuses a malformed destination and a move across kinds, and moves within a kind with its ids', async () => {
    const before = await readFile(portal.statePath, 'utf8');
    const malformed = await portal.run(['state', 'mv', 'role[r7HkQ2]', 'role[r9']);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('"role[r9" is not an address');
    const across = await portal.run(['state', 'mv', TASK, 'role[a1b2c3]']);
    expect(across.code).toBe(1);
    expect(across.stderr).toContain('role[a1b2c3] is not an address of the kind user.task (its addresses look like user[jsmith].task[a1b2c3]); state mv moves a record within its kind, nothing was moved.');
    const unknownSource = await portal.run(['state', 'mv', 'role[r7HkQ3]', 'role[r9]']);
    expect(unknownSource.stderr).toContain('Did you mean "role[r7HkQ2]"?');
    expect(await readFile(portal.statePath, 'utf8')).toBe(before);

    const moved = await portal.run(['state', 'mv', 'role[r7HkQ2]', 'role[r9AbCd]']);
    expect(moved.code, moved.stderr).toBe(0);
    const recorded = await portal.recorded();
    expect(recorded?.resources['role[r7HkQ2]']).toBeUndefined();
    expect(recorded?.resources['role[r9AbCd]']?.ids).toEqual({ roleId: 'r9AbCd' });
    expect((await portal.run(['state', 'mv', 'role[r9AbCd]', 'role[r7HkQ2]'])).code).toBe(0);
  });

  it('import --out creates missing directories and names the schema; --format json reports what was imported', async () => {
    const imported = await portal.run(['import', '--out', 'deep/er/portal.yaml']);
    expect(imported.code, imported.stderr).toBe(0);
    const text = await readFile(join(portal.dir, 'deep/er/portal.yaml'), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=\S+portalctl\.schema\.json$/);
    const report = json((await portal.run(['import', '--format', 'json'])).stdout);
    expect(report).toMatchObject({ portal: { url: portal.url }, objects: expect.any(Number), skipped: [], out: null, config: { version: 1 } });
    // The report's portal is the block the config holds, in its words.
    expect((report as { portal: unknown }).portal).toEqual((report as { config: { portal: unknown } }).config.portal);
    const toFile = json((await portal.run(['import', '--format', 'json', '--out', 'json/portal.yaml'])).stdout);
    expect(toFile).toMatchObject({ out: 'json/portal.yaml' });
    await access(join(portal.dir, 'json/portal.yaml'));
  });

  it('drift --format json carries the same name labels as plan entries', async () => {
    const live = await portal.state();
    await portal.replaceState({ ...live, roles: live.roles.map((role) => (role.id === 'r7HkQ2' ? { ...role, description: 'Changed in the portal' } : role)) });
    const drift = await portal.run(['drift', config, '--format', 'json']);
    expect(drift.code).toBe(3);
    const report = json(drift.stdout) as { drift: { address: string; label?: string }[]; pending: { address: string; label?: string }[] };
    expect(report.drift).toEqual([expect.objectContaining({ address: 'role[r7HkQ2]', label: 'Field Analyst' })]);
    expect(report.pending).toEqual([expect.objectContaining({ address: 'role[r7HkQ2]', label: 'Field Analyst' })]);
    const text = await portal.run(['drift', config]);
    expect(text.stdout).toContain('! role[r7HkQ2] — Field Analyst');
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
  });

  it('errors under --format json are JSON on stdout with the fields of validate --format json', async () => {
    const invalid = await portal.writeConfig(`${THREE_CHANGES}rolse: []\n`, 'invalid');
    const validate = json((await portal.run(['validate', invalid, '--format', 'json'])).stdout);
    for (const command of [['plan'], ['apply', '--auto-approve'], ['drift']]) {
      const result = await portal.run([...command, invalid, '--format', 'json']);
      expect(result.code, command.join(' ')).toBe(1);
      const report = json(result.stdout);
      for (const field of ['valid', 'errors', 'warnings', 'diagnostics']) expect(report[field], `${command.join(' ')} ${field}`).toEqual(validate[field]);
      expect(report).toMatchObject({ exitCode: 1, error: expect.stringContaining('Invalid configuration') });
      expect(result.stderr).toBe('');
    }

    const state = json((await portal.run(['state', 'show', 'nope[x]', '--format', 'json'])).stdout);
    expect(state).toMatchObject({ valid: false, errors: 1, warnings: 0, diagnostics: [{ severity: 'error', code: 'state', message: expect.stringContaining('nope[x]') }], exitCode: 1 });

    // A mistake commander finds in the command line, too (it was plain text on stderr, stdout empty).
    for (const args of [['plan', invalid, '--format', 'json', '--bogus'], ['drift', '--format=json', '--parallelism']]) {
      const mistyped = await portal.run(args);
      expect(mistyped.code, args.join(' ')).toBe(1);
      expect(json(mistyped.stdout), args.join(' ')).toMatchObject({ valid: false, errors: 1, diagnostics: [{ severity: 'error', code: 'usage' }], exitCode: 1 });
    }
    expect(json((await portal.run(['plan', invalid, '--format', 'json', '--bogus'])).stdout)).toMatchObject({ error: "unknown option '--bogus'" });
  });

  it('a failed apply under --format json is one document with its result', async () => {
    const changed = await portal.writeConfig(THREE_CHANGES.replace('minLength: 12', 'minLength: 14'), 'failing');
    await portal.fault({ path: '/portals/self/securityPolicy/update', error: { code: 400, messageCode: 'ORG_9999', message: 'Refused for the test' } });
    const result = await portal.run(['apply', changed, '--auto-approve', '--format', 'json']);
    expect(result.code).toBe(1);
    const report = json(result.stdout);
    expect(report).toMatchObject({
      valid: false,
      errors: 1,
      diagnostics: [{ severity: 'error', code: 'apply-failed', message: expect.stringContaining('organization.securityPolicy') }],
      exitCode: 1,
      result: { failed: [{ address: 'organization.securityPolicy', error: expect.stringContaining('Refused for the test') }] },
    });
    await portal.clearFaults();
  });
});
