/**
 * A value that came from a `${env:}` / `${file:}` reference is never recorded in clear: the
 * state holds its fingerprint with the reference text, `state show` prints no secret, and plan
 * and drift still compare correctly (in sync after apply, a change once the value changes).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

const NOTE = 'hunter2-do-not-record';
const FILE_NOTE = 'from-a-file-do-not-record';

describe('referenced values in the state', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  it('are recorded as fingerprints, shown nowhere, and compared correctly', async () => {
    const config = await portal.writeConfig({
      'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: "Analyst \${file:name.txt}", description: "Edits \${env:ROLE_NOTE} data" }\n`,
      'name.txt': FILE_NOTE,
    });
    const env = { ROLE_NOTE: NOTE };
    const apply = await portal.run(['apply', config, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).not.toContain(NOTE);

    const text = await readFile(portal.statePath, 'utf8');
    expect(text).not.toContain(NOTE);
    expect(text).not.toContain(FILE_NOTE);
    expect(text).toMatch(/"description": ?"sha256:[0-9a-f]{64}:Edits \$\{env:ROLE_NOTE\} data"/);
    expect(text).toMatch(/"name": ?"sha256:[0-9a-f]{64}:Analyst \$\{file:name\.txt\}"/);
    // The backup and the history hold no secret either.
    const show = await portal.run(['state', 'show'], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('${env:ROLE_NOTE}');
    expect(show.stdout).not.toContain(NOTE);

    // The portal has the clear value; plan and drift see no difference.
    expect((await portal.state()).roles.find((role) => role.id === 'r7HkQ2')?.description).toBe(`Edits ${NOTE} data`);
    const plan = await portal.run(['plan', config, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout).toBe(0);
    const drift = await portal.run(['drift', config], { env });
    expect(drift.code, drift.stdout).toBe(0);
    const offline = await portal.run(['plan', config, '--refresh=false', '--detailed-exitcode'], { env });
    expect(offline.code, offline.stdout).toBe(0);
    // The same state pretty-printed, as earlier releases wrote it: the fingerprints still compare.
    await writeFile(portal.statePath, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    const offlinePretty = await portal.run(['plan', config, '--refresh=false', '--detailed-exitcode'], { env });
    expect(offlinePretty.code, offlinePretty.stdout).toBe(0);
    await writeFile(portal.statePath, text);

    // Another value: a change to make, and no secret shown in the plan.
    const changed = await portal.run(['plan', config, '--detailed-exitcode'], { env: { ROLE_NOTE: 'another-value' } });
    expect(changed.code).toBe(2);
    expect(changed.stdout).not.toContain('another-value');
    const offlineChanged = await portal.run(['plan', config, '--refresh=false', '--detailed-exitcode'], { env: { ROLE_NOTE: 'another-value' } });
    expect(offlineChanged.code).toBe(2);

    // Changed on the portal, outside portalctl: drift (exit 3).
    const state = await portal.state();
    await portal.replaceState({ ...state, roles: state.roles.map((role) => (role.id === 'r7HkQ2' ? { ...role, description: 'Edited by hand' } : role)) });
    const drifted = await portal.run(['drift', config], { env });
    expect(drifted.code, drifted.stdout).toBe(3);
  });

  it('rotated: the previous value is shown as the reference, changed, with fingerprints; never in clear, in any plan or output', async () => {
    const config = await portal.writeConfig({ 'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: "\${env:ROLE_NOTE}" }\n` });
    expect((await portal.run(['apply', config, '--auto-approve'], { env: { ROLE_NOTE: NOTE } })).code).toBe(0);
    const rotated = { ROLE_NOTE: 'rotated-value-do-not-show' };
    const outputs: string[] = [];
    for (const format of ['text', 'markdown', 'json']) {
      const plan = await portal.run(['plan', config, '--format', format, '--detailed-exitcode', '--no-color'], { env: rotated });
      expect(plan.code, plan.stderr).toBe(2);
      outputs.push(plan.stdout, plan.stderr);
    }
    const text = outputs[0] ?? '';
    expect(text).toMatch(/~ description: \$\{env:ROLE_NOTE\} \(previous value, changed; sha256 [0-9a-f]{4}…\) -> \$\{env:ROLE_NOTE\} \(25 bytes, sha256 [0-9a-f]{4}…\)/);
    const saved = await portal.run(['plan', config, '--out', 'rotated.plan.json'], { env: rotated });
    expect(saved.code, saved.stderr).toBe(0);
    outputs.push(await readFile(`${portal.dir}/rotated.plan.json`, 'utf8'));
    const drift = await portal.run(['drift', config, '--format', 'markdown'], { env: rotated });
    outputs.push(drift.stdout, drift.stderr);
    const applied = await portal.run(['apply', '--plan', 'rotated.plan.json', '--auto-approve'], { env: rotated });
    expect(applied.code, applied.stderr).toBe(0);
    outputs.push(applied.stdout, applied.stderr);
    for (const output of outputs) {
      expect(output).not.toContain(NOTE);
      expect(output).not.toContain('rotated-value-do-not-show');
    }
    expect(outputs[4]).toMatch(/"before": \{[^}]*"description": "\$\{env:ROLE_NOTE\} \(previous value, changed; sha256 [0-9a-f]{4}…\)"/);
  });

  it("a portal error that echoes a referenced value is shown with the reference in its place", async () => {
    const config = await portal.writeConfig({ 'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: "Edits \${env:ROLE_NOTE} data" }\n` });
    await portal.fault({ path: '/roles/r7HkQ2/update', error: { code: 400, message: `Description "Edits ${NOTE} data" is not allowed.` }, count: 0 });
    for (const format of ['text', 'json']) {
      // --verbose: each request is named, never its form (the value went in one).
      const applied = await portal.run(['apply', config, '--auto-approve', '--format', format, ...(format === 'text' ? ['--verbose'] : [])], { env: { ROLE_NOTE: NOTE } });
      expect(applied.code).toBe(1);
      expect(applied.stdout + applied.stderr).not.toContain(NOTE);
      expect(applied.stdout).toContain(format === 'json' ? 'Description \\"Edits ${env:ROLE_NOTE} data\\" is not allowed.' : 'Description "Edits ${env:ROLE_NOTE} data" is not allowed.');
    }
  });

  it('a portal error to a read that echoes a referenced value is shown with the reference, in every command that reads', async () => {
    const config = await portal.writeConfig({ 'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: "Edits \${env:ROLE_NOTE} data" }\n` });
    // Regex characters in the value: it is replaced as text.
    const value = 'S3cr.t*(v)+[x]$1-do-not-show';
    await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 400, message: `Cannot list roles like "Edits ${value} data".` }, count: 0 });
    for (const args of [['plan', config], ['plan', config, '--format', 'json'], ['drift', config], ['graph', config], ['plan', config, '--verbose']]) {
      const run = await portal.run(args, { env: { ROLE_NOTE: value } });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stdout + run.stderr).not.toContain(value);
      expect(args.includes('json') ? run.stdout : run.stderr).toContain(
        args.includes('json')
          ? '"message": "GET /portals/self/roles failed: Cannot list roles like \\"Edits ${env:ROLE_NOTE} data\\". (code 400)"'
          : 'Error: GET /portals/self/roles failed: Cannot list roles like "Edits ${env:ROLE_NOTE} data". (code 400)\n',
      );
    }
  });

  it('a refused read that echoes a referenced value, with --verbose: the reference in the error and in its cause', async () => {
    const config = await portal.writeConfig({ 'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: "Edits \${env:ROLE_NOTE} data" }\n` });
    await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 403, messageCode: 'GWM_0003', message: `You may not see "Edits ${NOTE} data".` }, count: 0 });
    const planned = await portal.run(['plan', config, '--verbose'], { env: { ROLE_NOTE: NOTE } });
    expect(planned.code).toBe(1);
    expect(planned.stdout + planned.stderr).not.toContain(NOTE);
    expect(planned.stderr).toContain('Caused by: ApiError: GET /portals/self/roles failed: You may not see "Edits ${env:ROLE_NOTE} data". (code 403, GWM_0003)\n');
  });

  it('a name written as a reference that the plan cannot find, and an address holding one, are shown as the reference', async () => {
    const config = await portal.writeConfig({ 'portalctl.yaml': `${CONFIG_HEADER}roles:\n  - { id: { name: "\${env:ROLE_NAME}" }, description: x }\n` }, 'named');
    const env = { ROLE_NAME: `Field Analyst ${NOTE}` };
    for (const format of ['text', 'json']) {
      const planned = await portal.run(['plan', config, '--format', format], { env });
      expect(planned.code).toBe(1);
      expect(planned.stdout + planned.stderr).not.toContain(NOTE);
      expect(planned.stdout + planned.stderr).toContain('No role named');
    }
    const validated = await portal.run(['validate', config, '--format', 'json'], { env, portal: null });
    expect(validated.stdout).not.toContain(NOTE);
  });
});

