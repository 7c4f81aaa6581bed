/** The built CLI: `portalctl validate`, `config` and `schema`, exit codes and output. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = `${root}dist/bin/portalctl.js`;

function portalctl(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  // test/global-setup.ts builds dist/ once before the suite.
  expect(existsSync(cli)).toBe(true);
});

describe('portalctl validate', () => {
  it.each(['examples/minimal', 'examples/full', 'examples/legacy'])('%s is valid (exit 0)', (example) => {
    const result = portalctl('validate', example);
    expect(result.stdout).toContain('0 errors');
    expect(result.status).toBe(0);
  });

  it('a six-tree category schema exits 1 and points at the sixth tree', () => {
    const result = portalctl('validate', 'test/config/fixtures/rules/six-trees.yaml');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      'test/config/fixtures/rules/six-trees.yaml:10:5: error: A category schema holds at most 5 trees; this one has 6. [organization.categorySchema]',
    );
    expect(result.stdout).toContain('  10 |     - title: Six\n     |     ^\n');
    expect(result.stdout).toContain('value: 6; expected: at most 5 trees');
    expect(result.stdout).toContain('1 error, 0 warnings');
  });

  it('--allow-unset-env validates and shows examples/environments without its portals\' URLs: warnings, exit 0; without it, exit 1', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const name of ['DEV_PORTAL_URL', 'TEST_PORTAL_URL', 'PROD_PORTAL_URL']) delete env[name];
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'validate', 'examples/environments', ...args], { cwd: root, encoding: 'utf8', env });
    const allowed = run('--allow-unset-env');
    expect(allowed.status).toBe(0);
    expect(allowed.stdout).toContain(
      'examples/environments/environments.yaml:33:12: warning: The environment variable PROD_PORTAL_URL is not set. What depends on it is not checked (--allow-unset-env). (reference/unset-env)',
    );
    expect(allowed.stdout.match(/^Valid: .* 0 errors, 1 warning$/gm)).toHaveLength(3);
    const strict = run();
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain('examples/environments/environments.yaml:33:12: error: The environment variable PROD_PORTAL_URL is not set. (reference/unset-env)');
    // When nothing else is wrong, the way to check the rest is named once; not beside other errors, nor with the flag.
    expect(strict.stdout.endsWith('\nOnly unset environment variables are in the way: `portalctl validate --allow-unset-env` checks the rest without them.\n')).toBe(true);
    expect(allowed.stdout).not.toContain('Only unset environment variables');
    const mixed = portalctl('validate', 'test/config/fixtures/references/broken.yaml');
    expect(mixed.stdout).toContain('(reference/unset-env)');
    expect(mixed.stdout).not.toContain('Only unset environment variables');
    // Nor when another environment has other errors.
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-unset-hint-'));
    try {
      writeFileSync(
        join(directory, 'portalctl.yaml'),
        'version: 1\nenvironments:\n  a: { portal: { url: "${env:A_PORTAL_URL}" } }\n  b: { portal: { url: "https://b.example.com/portal/sharing/rest" }, values: { length: x } }\nvalues: { length: 8 }\norganization:\n  securityPolicy: { minLength: "${var:length}" }\n',
      );
      const environments = spawnSync(process.execPath, [cli, 'validate', directory], { cwd: root, encoding: 'utf8', env });
      expect(environments.stdout).toContain('error: The environment variable A_PORTAL_URL is not set.');
      expect(environments.stdout).toContain('(schema/wrong-type)');
      expect(environments.stdout).not.toContain('Only unset environment variables');
      // A secret's file written only where the config is deployed is named in the hint, and let pass by the flag.
      writeFileSync(join(directory, 'portalctl.yaml'), 'version: 1\nportal: { url: "${env:A_PORTAL_URL}" }\nfederations:\n  - { id: f1, certificate: "${file:secrets/idp.pem}" }\n');
      const secrets = spawnSync(process.execPath, [cli, 'validate', directory], { cwd: root, encoding: 'utf8', env });
      expect(secrets.status).toBe(1);
      expect(secrets.stdout).toContain(`The referenced file "secrets/idp.pem" does not exist (looked for ${join(directory, 'secrets/idp.pem')}). (reference/missing-file)`);
      expect(secrets.stdout.endsWith('\nOnly unset environment variables and absent referenced files are in the way: `portalctl validate --allow-unset-env` checks the rest without them.\n')).toBe(true);
      const lenient = spawnSync(process.execPath, [cli, 'validate', directory, '--allow-unset-env'], { cwd: root, encoding: 'utf8', env });
      expect(lenient.status).toBe(0);
      expect(lenient.stdout).toContain('0 errors, 2 warnings');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    // config shows what an environment gets without its variables (their values are never shown anyway).
    const config = (...args: string[]) => spawnSync(process.execPath, [cli, 'config', 'examples/environments', '--env', 'production', ...args], { cwd: root, encoding: 'utf8', env });
    const shown = config('--allow-unset-env');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('  url: ${env:PROD_PORTAL_URL} # examples/environments/environments.yaml:33\n');
    expect(shown.stderr).toContain('warning: The environment variable PROD_PORTAL_URL is not set.');
    expect(config().status).toBe(1);
    // Only validate and config take it: nothing is planned from a config with a hole in it.
    const plan = spawnSync(process.execPath, [cli, 'plan', 'examples/environments', '--env', 'production', '--allow-unset-env'], { cwd: root, encoding: 'utf8', env });
    expect(plan.status).toBe(1);
    expect(plan.stderr).toContain("unknown option '--allow-unset-env'");
  });

  it('--portal is checked and shown in place of portal.url, as plan would use it; its mistakes are the flag\'s', () => {
    const broken = portalctl('validate', 'examples/minimal', '--portal', 'ftp://gis.example.com/portal/sharing/rest');
    expect(broken.status).toBe(1);
    expect(broken.stderr).toBe('Error: --portal: Portal URL "ftp://gis.example.com/portal/sharing/rest" is not an https:// URL (its scheme reads as "ftp:"); expected the REST root, e.g. https://host/portal/sharing/rest.\n');
    const plan = portalctl('plan', 'examples/minimal', '--refresh=false', '--portal', 'not a url');
    expect(plan.stderr).toContain('Error: --portal: Portal URL "not a url" is not a valid URL');
    // The file's own URL is no longer what is checked: a broken one is replaced, as plan replaces it.
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-portal-flag-'));
    try {
      writeFileSync(join(directory, 'portalctl.yaml'), 'version: 1\nportal:\n  url: gis.example.com\norganization:\n  securityPolicy: { minLength: 8 }\n');
      const file = portalctl('validate', directory);
      expect(file.status).toBe(1);
      expect(file.stdout).toContain(`${directory}/portalctl.yaml:3:8: error: Portal URL "gis.example.com" is not a valid URL; expected the REST root, e.g. https://host/portal/sharing/rest. (portal/invalid-url)`);
      expect(portalctl('validate', directory, '--portal', 'https://gis.example.com/portal/sharing/rest').status).toBe(0);
      const shown = portalctl('config', directory, '--portal', 'https://gis.example.com/portal/sharing/rest');
      expect(shown.status).toBe(0);
      expect(shown.stdout).toContain(`  url: https://gis.example.com/portal/sharing/rest # --portal, in place of ${directory}/portalctl.yaml:3\n`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    // Each environment has its own portal: one URL for all of them is refused, as a fleet run refuses it.
    const environments = portalctl('validate', 'examples/environments', '--portal', 'https://gis.example.com/portal/sharing/rest');
    expect(environments.status).toBe(1);
    expect(environments.stderr).toContain('--portal names one portal, but each environment of a fleet has its own');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env['PROD_PORTAL_URL'];
    const production = spawnSync(process.execPath, [cli, 'validate', 'examples/environments', '--env', 'production', '--portal', 'https://gis.example.com/portal/sharing/rest'], { cwd: root, encoding: 'utf8', env });
    expect(production.stdout).toContain('0 errors, 0 warnings');
    expect(production.status).toBe(0);
  });

  it("a portal URL with a token in its query string is refused without showing the token, in the message, value, source line or effective config", () => {
    const result = portalctl('validate', 'test/config/fixtures/rules/portal-url-query.yaml');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('  4 |   url: https://gis.example.com/portal/sharing/rest?token=***\n');
    expect(result.stdout).toContain('value: "https://gis.example.com/portal/sharing/rest?token=***"');
    expect(result.stdout).not.toContain('s3cretT0ken');
    for (const format of ['yaml', 'json']) {
      const shown = portalctl('config', 'test/config/fixtures/rules/portal-url-query.yaml', '--format', format);
      expect(shown.stdout).toContain('https://gis.example.com/portal/sharing/rest?token=***');
      expect(`${shown.stdout}${shown.stderr}`).not.toContain('s3cretT0ken');
    }
  });

  it('a portal URL with a password is refused without showing the password, in the message, value or source line', () => {
    const result = portalctl('validate', 'test/config/fixtures/rules/portal-url.yaml');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('  4 |   url: https://***@gis.example.com/portal/sharing/rest\n');
    expect(result.stdout).toContain('value: "https://***@gis.example.com/portal/sharing/rest"');
    expect(result.stdout).not.toContain('s3cret');
    // The effective config shows it as it shows every secret: not at all.
    for (const format of ['yaml', 'json']) {
      const shown = portalctl('config', 'test/config/fixtures/rules/portal-url.yaml', '--format', format);
      expect(shown.status).toBe(1);
      expect(shown.stdout).toContain('https://***@gis.example.com/portal/sharing/rest');
      expect(`${shown.stdout}${shown.stderr}`).not.toContain('s3cret');
    }
  });

  it('warnings alone exit 0', () => {
    const result = portalctl('validate', 'test/config/fixtures/rules/federation-level.yaml');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('0 errors, 2 warnings');
  });

  it('--format json', () => {
    const result = portalctl('validate', '--format', 'json', 'test/config/fixtures/rules/six-trees.yaml');
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as { valid: boolean; errors: number; diagnostics: unknown[] };
    expect(report).toMatchObject({ valid: false, errors: 1 });
    expect(report.diagnostics[0]).toMatchObject({
      code: 'category-schema/too-many-trees',
      location: { file: 'test/config/fixtures/rules/six-trees.yaml', line: 10, column: 5 },
    });
  });

  it('rejects an unknown format', () => {
    const result = portalctl('validate', '--format', 'xml', 'examples/minimal');
    expect(result.status).not.toBe(0);
  });
});

describe('portalctl config', () => {
  it('an environment the config does not declare is said alone, with no config printed as if it were its own', () => {
    const typo = portalctl('config', 'examples/environments', '--env', 'prodution');
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe(
      [
        'examples/environments/environments.yaml:11:1: error: No environment named prodution; declared: development, test, production. Did you mean "production"? (environment/unknown)',
        '  11 | environments:',
        '     | ^',
        '  value: "prodution"; expected: one of development, test, production',
        'Error: invalid configuration (1 error above); nothing was changed on the portal.',
        '',
      ].join('\n'),
    );
    expect(typo.status).toBe(1);
    // A job-wide PORTALCTL_ENV meeting a config without environments: the same.
    const none = spawnSync(process.execPath, [cli, 'config', 'examples/minimal'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', PORTALCTL_ENV: 'production' } });
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('error: The environment production is asked for (--env, or PORTALCTL_ENV when no --env is given), but the config declares no environments. (environment/none-declared)');
    expect(none.status).toBe(1);
  });

  it('an empty list is a value with its origin too: written empty in the base, or emptied by an overlay (at its $patch: delete)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-config-empty-'));
    try {
      mkdirSync(join(directory, 'overlays'));
      writeFileSync(
        join(directory, 'base.yaml'),
        [
          'version: 1',
          'environments:',
          '  production:',
          '    portal: { url: "https://gis.example.com/portal/sharing/rest", edition: self-managed, version: "11.3" }',
          '    overlays: [overlays/production.yaml]',
          'organization:',
          '  categorySchema:',
          '    - title: Themes',
          'federations:',
          '  - id: J55ajJJ7MsY1QoQs',
          '    name: Campus federation',
          '    groups: []',
          '',
        ].join('\n'),
      );
      writeFileSync(join(directory, 'overlays/production.yaml'), 'version: 1\norganization:\n  categorySchema:\n    - title: Themes\n      $patch: delete\n');
      const shown = spawnSync(process.execPath, [cli, 'config', '.', '--env', 'production'], { cwd: directory, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(shown.stdout).toBe(
        [
          '# The effective config (environment production) of base.yaml, overlays/production.yaml.',
          '# Each value is followed by the file and line it was written at.',
          '',
          'version: 1 # overlays/production.yaml:1',
          'portal:',
          '  url: https://gis.example.com/portal/sharing/rest # base.yaml:4',
          '  edition: self-managed # base.yaml:4',
          '  version: "11.3" # base.yaml:4',
          'organization:',
          '  categorySchema: [] # overlays/production.yaml:5',
          'federations:',
          '  - id: J55ajJJ7MsY1QoQs # base.yaml:10',
          '    name: Campus federation # base.yaml:11',
          '    groups: [] # base.yaml:12',
          '',
        ].join('\n'),
      );
      // The emptied schema is invalid (printed all the same), and the error is where the config says it was emptied.
      expect(shown.stderr).toContain('overlays/production.yaml:5:7: error: The portal rejects an empty category schema (ORG_1132).');
      expect(shown.status).toBe(1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('portalctl schema', () => {
  it('prints the published schema', () => {
    const result = portalctl('schema');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(readFileSync(`${root}schemas/portalctl.schema.json`, 'utf8'));
  });
});

describe('help', () => {
  /** The help text with its line wrapping undone, so a description is matched whole. */
  const help = (...command: string[]) => portalctl(...command, '--help').stdout.replace(/\s+/g, ' ');

  it('shows defaults and choices as they are typed, not as quoted strings', () => {
    const apply = help('apply');
    expect(apply).toContain('--parallelism <n> requests in flight at once: independent operations, and the reads before and after them (default: 4)');
    expect(apply).toContain('--format <format> output format (choices: text, json; default: text)');
    expect(apply).toContain('--invites-dir <dir> where invitation files (E13) are written (default: invites)');
    expect(apply).toContain('--env-parallelism <n> environments run at once by --env a,b or --all-envs (default: 4)');
    expect(apply).toContain('--request-timeout <duration> how long to wait for each answer of the portal (e.g. 2m for a slow one) (default: 30s)');
    expect(help('emulator')).toContain('--port <n> port to listen on (0 picks a free port) (default: 7080)');
    expect(help('completion')).toContain('shell the shell (choices: bash, zsh)');
    const commands = [[], ['plan'], ['apply'], ['drift'], ['show'], ['graph'], ['import'], ['validate'], ['config'], ['emulator'], ['completion'], ['state', 'show'], ['state', 'push'], ['state', 'pull']];
    for (const command of commands) expect(help(...command), command.join(' ')).not.toMatch(/(choices|default): "/);
  });

  it('--state says its default in one sentence: PORTALCTL_STATE, else the default file', () => {
    expect(help()).toContain('--state <path-or-url> the state: a file or a postgres://user@host/db URL (default: $PORTALCTL_STATE when set, else the file portalctl.state.json)');
  });
});

describe('usage mistakes', () => {
  it.each([
    [['plna'], "error: unknown command 'plna'\n(Did you mean plan?)\n(add --help for usage)\n"],
    [['plan', '--detailed-exitcodes'], "error: unknown option '--detailed-exitcodes'\n(Did you mean --detailed-exitcode?)\n(add --help for usage)\n"],
    // An option of another command: which one takes it, not a guess at a typo.
    [['plan', '--parallelism', '3'], "error: unknown option '--parallelism'\n(--parallelism is an option of apply)\n(add --help for usage)\n"],
    [['plan', '--parallelism=3'], "error: unknown option '--parallelism=3'\n(--parallelism is an option of apply)\n(add --help for usage)\n"],
    [['plan', '--force'], "error: unknown option '--force'\n(--force is an option of apply and import)\n(add --help for usage)\n"],
    [['validate', '--dry-run'], "error: unknown option '--dry-run'\n(--dry-run is an option of state rm, state mv, state push and state pull)\n(add --help for usage)\n"],
    [['plan', '--no-such-option'], "error: unknown option '--no-such-option'\n(add --help for usage)\n"],
    // A typo of another command's option: that option and its commands (commander knows only the command's own).
    [['validate', '--auto-aprove'], "error: unknown option '--auto-aprove'\n(Did you mean --auto-approve, an option of apply?)\n(add --help for usage)\n"],
    [['plan', '--parallelsim', '3'], "error: unknown option '--parallelsim'\n(Did you mean --parallelism, an option of apply?)\n(add --help for usage)\n"],
    [['validate', '--dry-runn'], "error: unknown option '--dry-runn'\n(Did you mean --dry-run, an option of state rm, state mv, state push and state pull?)\n(add --help for usage)\n"],
    // Nearer than the command's own nearest (--format, three edits away).
    [['plan', '--forced'], "error: unknown option '--forced'\n(Did you mean --force, an option of apply and import?)\n(add --help for usage)\n"],
    // The command's own option wins a tie, and a global option is the command's own.
    [['validate', '--formt'], "error: unknown option '--formt'\n(Did you mean --format?)\n(add --help for usage)\n"],
    [['plan', '--verbos'], "error: unknown option '--verbos'\n(Did you mean --verbose?)\n(add --help for usage)\n"],
    // An option most commands take: the first few and how many more, not eleven names.
    [['schema', '--format', 'yaml'], "error: unknown option '--format'\n(--format is an option of plan, apply, drift and 8 other commands)\n(add --help for usage)\n"],
    [['schema', '--formt'], "error: unknown option '--formt'\n(Did you mean --format, an option of plan, apply, drift and 8 other commands?)\n(add --help for usage)\n"],
    // A command with no JSON output takes --format json as any option it does not take: said on stderr.
    [['schema', '--format', 'json'], "error: unknown option '--format'\n(--format is an option of plan, apply, drift and 8 other commands)\n(add --help for usage)\n"],
    [['emulator', '--format=json'], "error: unknown option '--format=json'\n(--format is an option of plan, apply, drift and 8 other commands)\n(add --help for usage)\n"],
    [['state', 'unlock', '--format', 'json'], "error: unknown option '--format'\n(--format is an option of plan, apply, drift and 8 other commands)\n(add --help for usage)\n"],
    [['graph', '--format', 'json'], "error: option '--format <format>' argument 'json' is invalid. Allowed choices are mermaid, dot.\n(add --help for usage)\n"],
    // help of a command that does not exist: said as an unknown command is, not the whole help.
    [['help', 'nosuch'], "error: unknown command 'nosuch'\n(add --help for usage)\n"],
    [['help', 'plna'], "error: unknown command 'plna'\n(Did you mean plan?)\n(add --help for usage)\n"],
    [['help', 'state', 'shw'], "error: unknown command 'shw'\n(Did you mean show?)\n(add --help for usage)\n"],
    [['state', 'help', 'shw'], "error: unknown command 'shw'\n(Did you mean show?)\n(add --help for usage)\n"],
  ])('portalctl %j: exit 1, the error and its suggestion, and a hint instead of the whole help', (args, stderr) => {
    const result = portalctl(...args);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(stderr);
    expect(result.stdout).toBe('');
  });

  it('help with a command shows that command\'s help on stdout, also a nested one (exit 0)', () => {
    for (const command of [['plan'], ['state'], ['state', 'show']]) {
      const result = portalctl('help', ...command);
      expect(result.status, command.join(' ')).toBe(0);
      expect(result.stdout, command.join(' ')).toBe(portalctl(...command, '--help').stdout);
      expect(result.stderr, command.join(' ')).toBe('');
    }
    expect(portalctl('state', 'help', 'show').stdout).toBe(portalctl('state', 'show', '--help').stdout);
    // Options beside the command's words change nothing, as beside --help.
    const withFormat = portalctl('help', 'plan', '--format', 'json');
    expect(withFormat.stdout).toBe(portalctl('plan', '--help').stdout);
    expect(withFormat.status).toBe(0);
    expect(portalctl('help', '--format', 'json', 'plan').stdout).toBe(portalctl('plan', '--help').stdout);
    expect(portalctl('help').stdout).toBe(portalctl('--help').stdout);
    expect(portalctl('--help').stdout).toMatch(/^ {2}help \[command\.\.\.\] +display help for command$/m);
  });

  it('under --format json, the error document says which command takes the option too, and stderr stays empty', () => {
    const result = portalctl('plan', '--format', 'json', '--auto-approve');
    expect(result.status).toBe(1);
    expect((JSON.parse(result.stdout) as { error: string }).error).toBe("unknown option '--auto-approve'\n(--auto-approve is an option of apply)");
    expect(result.stderr).toBe('');
  });

  it.each([
    [['validate', '--format', 'json', '--auto-aprove'], "unknown option '--auto-aprove'\n(Did you mean --auto-approve, an option of apply?)"],
    [['plna', '--format=json'], "unknown command 'plna'\n(Did you mean plan?)"],
    [['state', 'shw', '--format', 'json'], "unknown command 'shw'\n(Did you mean show?)"],
    // help takes no option: --format json says how to report its unknown command, as for any other.
    [['help', 'nosuch', '--format', 'json'], "unknown command 'nosuch'"],
    [['help', 'plna', '--format=json'], "unknown command 'plna'\n(Did you mean plan?)"],
    [['help', 'state', 'shw', '--format', 'json'], "unknown command 'shw'\n(Did you mean show?)"],
    // The option before the words: the same.
    [['help', '--format', 'json', 'nosuch'], "unknown command 'nosuch'"],
    [['help', '--format=json', 'plna'], "unknown command 'plna'\n(Did you mean plan?)"],
    [['help', '--format', 'json', 'state', 'shw'], "unknown command 'shw'\n(Did you mean show?)"],
  ])('portalctl %j: one JSON error document on stdout with the suggestion, nothing on stderr (the hint to add --help is for a person)', (args, error) => {
    const result = portalctl(...args);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ valid: false, errors: 1, warnings: 0, diagnostics: [{ severity: 'error', code: 'usage', message: error }], error, exitCode: 1 });
    expect(result.stderr).toBe('');
  });

  it.each([
    [['plan', 'examples/minimal', '--lock-timeout', 'abc'], 'Error: --lock-timeout takes a duration such as 30s, 5m or 1h, not "abc".\n'],
    [['validate', 'examples/minimal', '--env-parallelism', '0'], 'Error: --env-parallelism takes a whole number of at least 1, not "0".\n'],
    // Only decimal digits: Number() read these as 16, 1000 and 2.
    [['validate', 'examples/minimal', '--env-parallelism', '0x10'], 'Error: --env-parallelism takes a whole number of at least 1, not "0x10".\n'],
    [['state', 'show', '--serial', '1e3', '--state', 'none.json'], 'Error: --serial takes a whole number of at least 1, not "1e3".\n'],
    [['state', 'show', '--serial', ' 2', '--state', 'none.json'], 'Error: --serial takes a whole number of at least 1, not " 2".\n'],
    // import reads no config without PATH or --env, so there is no portal.url to set.
    [['import'], "Error: No portal URL: pass --portal URL, the portal's REST root (e.g. https://host/portal/sharing/rest), or the config whose portal.url to read (portalctl import portal/).\n"],
  ])('portalctl %j: a missing or bad global value is refused before anything else, saying what to give', (args, stderr) => {
    // plan takes no lock and validate runs no environments: the value is checked all the same.
    const result = portalctl(...args);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(stderr);
    expect(result.stdout).toBe('');
  });

  const leaveOut = (command: string, because: string, flags: string) =>
    `Error: \`${command}\` ${because}, so ${flags} ${flags.includes(' and ') ? 'have' : 'has'} nothing to do there: leave ${flags.includes(' and ') ? 'them' : 'it'} out.\n`;
  const oneOrNone = 'Error: --env-parallelism sets how many environments of --env a,b or --all-envs run at once, but this run is in one environment or none: leave it out.\n';
  it.each([
    [['show', 'plan.json', '--state', 'other.json'], leaveOut('show', 'reads only the plan file (no portal, no state)', '--state')],
    [['show', 'plan.json', '--portal', 'https://gis.example.com/portal/sharing/rest'], leaveOut('show', 'reads only the plan file (no portal, no state)', '--portal')],
    [['validate', 'examples/minimal', '--state', 'other.json'], leaveOut('validate', 'reads only the config (no network, no state)', '--state')],
    [['validate', 'examples/minimal', '--env-parallelism', '2'], leaveOut('validate', 'reads only the config (no network, no state)', '--env-parallelism')],
    [['config', 'examples/minimal', '--lock-timeout', '5m', '--state-name', 'prod'], leaveOut('config', 'reads only the config (no network, no state)', '--state-name and --lock-timeout')],
    [['graph', 'examples/minimal', '--lock-timeout', '5m'], leaveOut('graph', 'plans in one environment and takes no lock', '--lock-timeout')],
    [['import', '--state', 'other.json'], leaveOut('import', 'keeps no state and reads one portal', '--state')],
    [['state', 'list', '--portal', 'https://gis.example.com/portal/sharing/rest'], leaveOut('state list', 'reads and writes only the state of one environment, never the portal', '--portal')],
    [['schema', '--insecure'], leaveOut('schema', 'reads no config, portal or state', '--insecure')],
    // --env-parallelism where environments could run at once, but this run has one or none.
    [['plan', 'examples/minimal', '--env-parallelism', '2'], oneOrNone],
    [['apply', 'examples/environments', '--env', 'staging', '--env-parallelism', '2'], oneOrNone],
    [['drift', 'examples/minimal', '--env-parallelism', '2'], oneOrNone],
  ])('portalctl %j: a shared option the command does not read is refused before anything is read, not taken and ignored', (args, stderr) => {
    const result = portalctl(...args);
    expect(result.stderr).toBe(stderr);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
  });
});
