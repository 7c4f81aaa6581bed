/**
 * Guidance through the real CLI: "did you mean" for unknown properties, kind names, --target
 * and state addresses; --target matched by address structure; a YAML error at its root cause;
 * plurals; graph without dependencies; FORCE_COLOR.
 */
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, THREE_CHANGES, startCliPortal, type CliPortal } from '../support/cli.js';

const WITH_ROLE = `${THREE_CHANGES}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: Edits field data for Public Works }\n`;

/**
 * Line 30 opens a list that is never closed; the lines after it are what YAML then stumbles on.
 * The `yaml` package alone reports a cascade of errors, none of them on line 30.
 */
const UNCLOSED = `${CONFIG_HEADER}organization:
  securityPolicy:
    minLength: 12
    minUpper: 1
    minLower: 1
    minLetter: 1
    minDigit: 1
    minOther: 1
    expirationInDays: 90
    historySize: 5
  categorySchema:
    - title: Themes
      categories:
        - title: Transportation
        - title: Hydrology
        - title: Geology
    - title: Audience
      categories:
        - title: Public
        - title: Internal
items:
  - { id: 1105a1562c9c4dd98e557595bf8a2617, status: deprecated }
users:
  - username: jsmith
    tasks: [{ id: a1b2c3, enabled: true }
  - username: mlopez
    tasks:
      - { id: 9f8e7d, enabled: true }
roles:
  - id: r7HkQ2
    name: Field Analyst
    description: Collects and edits field data
federations:
  - id: J55ajJJ7MsY1QoQs
    name: Campus federation
    signUpMode: Automatic
`;

describe('guidance at the terminal', () => {
  let portal: CliPortal;
  beforeAll(async () => {
    portal = await startCliPortal();
  });
  afterAll(async () => portal.dispose());

  it('an unknown property is named with the closest known one, also by what a property means', async () => {
    const dir = await portal.writeConfig(
      `${CONFIG_HEADER}organization:\n  securityPolicy:\n    minSpecial: 1\nrolse:\n  - { id: r7HkQ2, name: Field Analyst }\n`,
      'unknown-properties',
    );
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('portalctl.yaml:8:5: error: Unknown property "minSpecial" in organization.securityPolicy. Did you mean "minOther"?');
    expect(result.stdout).toContain('portalctl.yaml:9:1: error: Unknown property "rolse" in the document. Did you mean "roles"?');
  });

  it('an unknown kind name under safety is named with the closest kind', async () => {
    const dir = await portal.writeConfig(`${CONFIG_HEADER}safety:\n  item.stauts: { maxUpdates: 0.5 }\n`, 'unknown-kind');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Unknown name "item.stauts" in safety. Did you mean "item.status"?');
  });

  it('--target selects by address structure: `rol` selects nothing and suggests `role`; `role` selects every role, nothing else', async () => {
    const dir = await portal.writeConfig(WITH_ROLE, 'targets');
    const typo = await portal.run(['plan', dir, '--target', 'rol']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('--target "rol" selects no declared object. Did you mean role?');
    const partialId = await portal.run(['plan', dir, '--target', 'user[jsmi]']);
    expect(partialId.code).toBe(1);
    expect(partialId.stderr).toContain('--target "user[jsmi]" selects no declared object. Did you mean user[jsmith]?');
    // Too short to be near by edits: the addresses it begins are suggested, shortest first.
    const shortId = await portal.run(['plan', dir, '--target', 'user[js]']);
    expect(shortId.code).toBe(1);
    expect(shortId.stderr).toContain('--target "user[js]" selects no declared object. Did you mean user[jsmith], user[jsmith].task');
    const malformed = await portal.run(['plan', dir, '--target', 'role[r7HkQ2']);
    expect(malformed.stderr).toContain('--target "role[r7HkQ2" is not an address.');

    const roles = await portal.run(['plan', dir, '--target', 'role', '--format', 'json']);
    expect(roles.code, roles.stderr).toBe(0);
    expect((JSON.parse(roles.stdout) as { operations: { address: string }[] }).operations.map((op) => op.address)).toEqual(['role[r7HkQ2]']);
    const user = await portal.run(['plan', dir, '--target', 'user[jsmith]', '--format', 'json']);
    expect((JSON.parse(user.stdout) as { operations: { address: string }[] }).operations.map((op) => op.address)).toEqual(['user[jsmith].task[a1b2c3]']);
  });

  it('a YAML error is reported at its root cause, the unclosed [ on line 30, with the cascade folded', async () => {
    await portal.clearRequests();
    const cascade = parseDocument(UNCLOSED).errors;
    expect(cascade.length).toBeGreaterThan(2);
    const dir = await portal.writeConfig(UNCLOSED, 'unclosed');
    const validate = await portal.run(['validate', dir, '--no-color', '--format', 'json']);
    expect(validate.code).toBe(1);
    const report = JSON.parse(validate.stdout) as { errors: number; diagnostics: { code: string; message: string; location: { line: number; column: number } }[] };
    expect(report.errors).toBe(1);
    expect(report.diagnostics[0]).toMatchObject({ code: 'yaml/unclosed-bracket', location: { line: 30, column: 12 } });
    expect(report.diagnostics[0]?.message).toContain(`(${cascade.length} YAML errors after it follow from it and are not shown)`);

    const plan = await portal.run(['plan', dir, '--no-color']);
    expect(plan.code).toBe(1);
    expect(plan.stderr.startsWith('unclosed/portalctl.yaml:30:12: error: This [ opens a list that is never closed: the parser read on to line 31 looking for its ]')).toBe(true);
    expect(plan.stderr).toContain('  30 |     tasks: [{ id: a1b2c3, enabled: true }\n');
    expect(plan.stderr).toContain('invalid configuration (1 error above)');
    expect(await portal.requests()).toEqual([]);
  });

  it('an unclosed quote is reported where it opens', async () => {
    const dir = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - id: r7HkQ2\n    name: "Field Analyst\n    description: x\n`, 'unclosed-quote');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('portalctl.yaml:8:11: error: This " opens a quoted string that is never closed');
  });

  it('a tagged value is read as the YAML 1.2 core schema says: !!float 1 is the number 1; !!str 9 is text, said to be tagged, not quoted', async () => {
    const dir = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: !!str 9\n    minDigit: !!float 1\n    minUpper: !!int "2"\n`, 'tagged');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'tagged/portalctl.yaml:8:22: error: organization.securityPolicy.minLength must be an integer. [organization.securityPolicy] (schema/wrong-type)\n' +
        '  8 |     minLength: !!str 9\n' +
        '    |                      ^\n' +
        '  value: "9"; expected: an integer (it is tagged !!str, which portalctl reads as text here: write it without the tag)\n' +
        '1 error, 0 warnings\n',
    );
  });

  it('a core tag on a text its type has no form for is one error at the tag (not a warning, then the schema refusing the text)', async () => {
    const dir = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy:\n    minDigit: !!int 1.5\n`, 'tagged-wrong');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'tagged-wrong/portalctl.yaml:8:15: error: Invalid YAML: "1.5" is not an integer, which its tag !!int says it is (in YAML 1.2, an integer is written like 12, -3, 0o17 or 0x1F). (yaml/tag-resolve-failed)\n' +
        '  8 |     minDigit: !!int 1.5\n' +
        '    |               ^\n' +
        '1 error, 0 warnings\n',
    );
  });

  it('a ": " inside a plain value is said as that, with the quotes that fix it (it was "Nested mappings are not allowed in compact mappings")', async () => {
    const dir = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - id: r1\n    description: Note: read this\n`, 'colon');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'colon/portalctl.yaml:8:18: error: This value holds ": " (a colon, then a space), where YAML begins a mapping, and a mapping cannot begin on its key\'s line. (yaml/colon-in-value)\n' +
        '  8 |     description: Note: read this\n' +
        '    |                  ^\n' +
        '  expected: the value in quotes (description: "Note: read this"), or no space after the colon\n' +
        '1 error, 0 warnings\n',
    );
    // The quotes shown are the line's own: its key, its value (a comment left out), single quotes around a double quote.
    const other = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - id: r1\n    name: Field "A": crew # the team\n`, 'colon-name');
    const named = await portal.run(['validate', other, '--no-color']);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain(`  expected: the value in quotes (name: 'Field "A": crew'), or no space after the colon\n`);
  });

  it('hints say how a value is written also in a file positioned on the parsing thread (1 MiB and more): tagged, a ${var:}', async () => {
    const head = `${CONFIG_HEADER}values:\n  n: 12\norganization:\n  securityPolicy:\n    minLength: !!str 9\nroles:\n  - id: rvar\n    name: \${var:n}\n`;
    const roles = Array.from({ length: 30_000 }, (_, index) => `  - id: r${index}\n    name: Role number ${index}\n`).join('');
    expect(roles.length).toBeGreaterThan(1 << 20);
    const dir = await portal.writeConfig(`${head}${roles}`, 'large-tagged');
    const result = await portal.run(['validate', dir, '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'large-tagged/portalctl.yaml:10:22: error: organization.securityPolicy.minLength must be an integer. [organization.securityPolicy] (schema/wrong-type)\n' +
        '  10 |     minLength: !!str 9\n' +
        '     |                      ^\n' +
        '  value: "9"; expected: an integer (it is tagged !!str, which portalctl reads as text here: write it without the tag)\n',
    );
    expect(result.stdout).toContain(
      'large-tagged/portalctl.yaml:13:11: error: roles[0].name must be a string. [role[rvar]] (schema/wrong-type)\n' +
        '  13 |     name: ${var:n}\n' +
        '     |           ^\n' +
        '  value: 12; expected: a string (${var:n} stands for a number, as its value is declared under values: write that value in quotes)\n',
    );
  });

  it('counts read right: "1 managed object", "1 error"', async () => {
    const one = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy: { minLength: 12 }\n`, 'one');
    expect((await portal.run(['validate', one])).stdout).toBe('Valid: 1 managed object in 1 file. 0 errors, 0 warnings\n');
  });

  it('graph without dependencies draws each operation alone and says why on stderr', async () => {
    const dir = await portal.writeConfig(THREE_CHANGES, 'no-dependencies');
    const graph = await portal.run(['graph', dir, '--format', 'dot']);
    expect(graph.code, graph.stderr).toBe(0);
    expect(graph.stderr).toBe("No operation depends on another: the plan's 3 operations can run in any order, so the graph draws them without arrows.\n");
    expect(graph.stdout.match(/^ {2}op[123] \[label="~ /gm)).toHaveLength(3);
    expect(graph.stdout).not.toContain('->');
  });

  it('FORCE_COLOR colours output on a pipe; --no-color still wins', async () => {
    const dir = await portal.writeConfig(THREE_CHANGES, 'colour');
    const plain = await portal.run(['plan', dir]);
    expect(plain.stdout).not.toContain('\u001b[');
    const forced = await portal.run(['plan', dir], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[1mPlan: 0 to create, 3 to update, 0 to delete.');
    expect((await portal.run(['plan', dir], { env: { FORCE_COLOR: '0' } })).stdout).not.toContain('\u001b[');
    expect((await portal.run(['plan', dir, '--no-color'], { env: { FORCE_COLOR: '1' } })).stdout).not.toContain('\u001b[');
  });
});
