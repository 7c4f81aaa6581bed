/**
 * Environments, overlays and typed values at the loader (README "Environments"): the merge
 * rules, each with the file:line:column of the winning value, and `${var:}`/`${env:}` typed by
 * the schema with errors at the reference.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, validateConfig, type LoadedConfig } from '../../src/engine/config/index.js';
import { registry } from '../../src/registry.js';

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Writes the files (relative name -> text) into a fresh directory and loads `config/` (with `environment`). */
async function load(files: Record<string, string>, options: { environment?: string; env?: Record<string, string>; paths?: string[]; allowUnsetEnv?: boolean; portalUrl?: string } = {}): Promise<LoadedConfig> {
  directory = mkdtempSync(join(tmpdir(), 'portalctl-environments-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, name)), { recursive: true });
    writeFileSync(join(directory, name), text);
  }
  return loadConfig(options.paths ?? ['config'], {
    cwd: directory,
    env: options.env ?? {},
    kinds: registry,
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.allowUnsetEnv ? { allowUnsetEnv: true } : {}),
    ...(options.portalUrl ? { portalUrl: options.portalUrl } : {}),
  });
}

const ENVIRONMENTS = `version: 1
environments:
  test:
    portal: { url: "https://test.example.com/portal/sharing/rest" }
    overlays: [overlays/test.yaml]
    values: { min_length: 10 }
  production:
    portal:
      url: https://gis.example.com/portal/sharing/rest
      version: "11.3"
    state: prod
    credentials: { token: PROD_TOKEN }
    overlays: [overlays/production.yaml]
    values:
      min_length: 14
      note: Production
`;

const BASE = `version: 1
portal:
  url: https://dev.example.com/portal/sharing/rest
  edition: self-managed
  version: "11.1"
values:
  min_length: 8
  note: Development
organization:
  securityPolicy:
    minLength: \${var:min_length}
    minDigit: 1
    historySize: 5
  categorySchema:
    - title: Themes
      categories:
        - title: Roads
        - title: Water
roles:
  - id: r1
    name: Analyst
    description: \${var:note} analysts
  - id: r2
    name: Viewer
    description: Views
items:
  - { id: i1, status: deprecated }
  - { id: i2, status: org_authoritative }
`;

const byAddress = (loaded: LoadedConfig) => Object.fromEntries(loaded.objects.map((obj) => [obj.address, obj]));

describe('environments', () => {
  it('without --env the base is loaded with the top-level values; the environments are listed', async () => {
    const loaded = await load({ 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE });
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.environments).toEqual(['test', 'production']);
    expect(loaded.environment).toBeUndefined();
    expect(byAddress(loaded)['organization.securityPolicy']?.value).toEqual({ minLength: 8, minDigit: 1, historySize: 5 });
    expect(byAddress(loaded)['role[r1]']?.value).toEqual({ name: 'Analyst', description: 'Development analysts' });
  });

  it('an environment gives its portal block, state name, credential variables and values', async () => {
    const loaded = await load(
      { 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE, 'config/overlays/production.yaml': 'version: 1\n' },
      { environment: 'production' },
    );
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.portal).toMatchObject({ url: 'https://gis.example.com/portal/sharing/rest', edition: 'self-managed', version: '11.3' });
    // The winning portal fields were written in the environment's block.
    expect(loaded.portal.source).toEqual({ file: 'config/base.yaml', line: 2, column: 1 });
    expect(loaded.environment).toMatchObject({ name: 'production', state: 'prod', credentials: { token: 'PROD_TOKEN' } });
    expect(loaded.sources).toEqual(['config/base.yaml', 'config/environments.yaml', 'config/overlays/production.yaml']);
    expect(loaded.baseSources).toEqual(['config/base.yaml', 'config/environments.yaml']);
    expect(byAddress(loaded)['organization.securityPolicy']?.value).toEqual({ minLength: 14, minDigit: 1, historySize: 5 });
    expect(byAddress(loaded)['role[r1]']?.value).toEqual({ name: 'Analyst', description: 'Production analysts' });
  });

  it('an unknown environment is an error naming the declared ones', async () => {
    const loaded = await load({ 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE }, { environment: 'staging' });
    expect(validateConfig(loaded)).toEqual([
      expect.objectContaining({ code: 'environment/unknown', message: 'No environment named staging; declared: test, production.', location: { file: 'config/environments.yaml', line: 2, column: 1 } }),
    ]);
    // A mistyped one names the one it is nearest.
    const mistyped = await load({ 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE }, { environment: 'prodution' });
    expect(validateConfig(mistyped).map((diagnostic) => diagnostic.message)).toEqual(['No environment named prodution; declared: test, production. Did you mean "production"?']);
  });

  it('the credential variables an environment names cannot be referenced from the config', async () => {
    const loaded = await load(
      { 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE.replace('description: Views', 'description: ${env:PROD_TOKEN}'), 'config/overlays/test.yaml': 'version: 1\n' },
      { environment: 'test', env: { PROD_TOKEN: 'secret-token' } },
    );
    const diagnostics = validateConfig(loaded);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'reference/credential', location: { file: 'config/base.yaml', line: 25, column: 18 } })]);
    expect(JSON.stringify(diagnostics)).not.toContain('secret-token');
  });
});

describe('overlays: the merge, each value located where it won', () => {
  const overlay = (text: string) => load({ 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': BASE, 'config/overlays/production.yaml': text }, { environment: 'production' });

  it('maps merge: a field replaced keeps its siblings, and a rule broken by the overlay is reported in the overlay', async () => {
    const loaded = await overlay('version: 1\norganization:\n  securityPolicy:\n    minLength: 5\n');
    expect(byAddress(loaded)['organization.securityPolicy']?.value).toEqual({ minLength: 5, minDigit: 1, historySize: 5 });
    const diagnostics = validateConfig(loaded);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ address: 'organization.securityPolicy', location: { file: 'config/overlays/production.yaml', line: 4, column: 16 } });
  });

  it('a schema error in an overlay is located in the overlay', async () => {
    const loaded = await overlay('version: 1\nroles:\n  - id: r2\n    description: 7\n');
    expect(validateConfig(loaded)).toEqual([expect.objectContaining({ code: 'schema/wrong-type', location: { file: 'config/overlays/production.yaml', line: 4, column: 18 } })]);
  });

  it('lists of keyed objects merge by key: one field changed, one entry added, the rest kept where it was', async () => {
    const loaded = await overlay('version: 1\nroles:\n  - id: r2\n    description: Views production\n  - id: r3\n    name: Auditor\n    description: ""\n');
    const objects = byAddress(loaded);
    expect(objects['role[r2]']?.value).toEqual({ name: 'Viewer', description: 'Views production' });
    expect(objects['role[r3]']?.value).toEqual({ name: 'Auditor', description: '' });
    expect(objects['role[r1]']?.source).toEqual({ file: 'config/base.yaml', line: 20, column: 3 });
    expect(loaded.locate(objects['role[r2]'] as never, ['description'])).toEqual({ file: 'config/overlays/production.yaml', line: 4, column: 18 });
    expect(loaded.locate(objects['role[r2]'] as never, ['name'])).toEqual({ file: 'config/base.yaml', line: 24, column: 11 });
    expect(objects['role[r3]']?.source).toEqual({ file: 'config/overlays/production.yaml', line: 5, column: 3 });
  });

  it('lists inside a field merge by their elements\' key (category trees by title)', async () => {
    const loaded = await overlay('version: 1\norganization:\n  categorySchema:\n    - title: Themes\n      categories:\n        - title: Parks\n');
    expect(byAddress(loaded)['organization.categorySchema']?.value).toEqual([{ title: 'Themes', categories: [{ title: 'Roads' }, { title: 'Water' }, { title: 'Parks' }] }]);
  });

  it('scalars replace, and so does a list of texts', async () => {
    const loaded = await overlay('version: 1\nitems:\n  - { id: i1, status: none }\norganization:\n  resources: { absent: [b.png] }\n');
    const objects = byAddress(loaded);
    expect(objects['item[i1].status']?.value).toBeNull();
    expect(objects['item[i1].status']?.source).toEqual({ file: 'config/overlays/production.yaml', line: 3, column: 23 });
    expect(objects['organization.resource[b.png]']).toBeDefined();
  });

  it('$patch: delete removes a list element and a map key; $patch: replace replaces a map', async () => {
    const loaded = await overlay(`version: 1
items:
  - { id: i1, $patch: delete }
organization:
  categorySchema: { $patch: delete }
  securityPolicy:
    $patch: replace
    minLength: 16
`);
    expect(validateConfig(loaded)).toEqual([]);
    const objects = byAddress(loaded);
    expect(objects['item[i1].status']).toBeUndefined();
    expect(objects['organization.categorySchema']).toBeUndefined();
    expect(objects['organization.securityPolicy']?.value).toEqual({ minLength: 16 });
    // The item after the removed one keeps its own place.
    expect(objects['item[i2].status']?.source).toEqual({ file: 'config/base.yaml', line: 28, column: 23 });
  });

  it('a category schema an overlay empties with $patch: delete is blamed on the line that deleted its last tree, not on the base', async () => {
    const loaded = await overlay('version: 1\norganization:\n  categorySchema:\n    - title: Themes\n      $patch: delete\n');
    expect(byAddress(loaded)['organization.categorySchema']?.value).toEqual([]);
    expect(validateConfig(loaded)).toEqual([
      {
        severity: 'error',
        code: 'category-schema/empty',
        message: 'The portal rejects an empty category schema (ORG_1132).',
        address: 'organization.categorySchema',
        location: { file: 'config/overlays/production.yaml', line: 5, column: 7 },
        value: [],
        expected: 'between 1 and 5 trees',
      },
    ]);
    // Filled again by the same overlay: located where the base declares it, as any merged list.
    const refilled = await overlay('version: 1\norganization:\n  categorySchema:\n    - title: Themes\n      $patch: delete\n    - title: Audience\n');
    expect(validateConfig(refilled)).toEqual([]);
    expect(byAddress(refilled)['organization.categorySchema']?.source).toEqual({ file: 'config/base.yaml', line: 14, column: 3 });
  });

  it('{ $patch: replace } in a list replaces the whole list', async () => {
    const loaded = await overlay('version: 1\norganization:\n  categorySchema:\n    - $patch: replace\n    - title: Audience\n');
    expect(byAddress(loaded)['organization.categorySchema']?.value).toEqual([{ title: 'Audience' }]);
    expect(loaded.locate(byAddress(loaded)['organization.categorySchema'] as never, [0])).toEqual({ file: 'config/overlays/production.yaml', line: 5, column: 5 });
  });

  it('removing what the base does not declare is a warning; a wrong marker an error; markers in the base are refused', async () => {
    const loaded = await overlay('version: 1\nitems:\n  - { id: i9, $patch: delete }\nroles:\n  - { id: r1, $patch: remove }\n');
    expect(validateConfig(loaded).map((d) => [d.severity, d.code, d.location?.file, d.location?.line])).toEqual([
      ['warning', 'overlay/nothing-to-delete', 'config/overlays/production.yaml', 3],
      ['error', 'overlay/patch-value', 'config/overlays/production.yaml', 5],
    ]);
    const inBase = await load({ 'config/environments.yaml': ENVIRONMENTS, 'config/base.yaml': `${BASE}groups:\n  - { id: g1, $patch: delete }\n`, 'config/overlays/production.yaml': 'version: 1\n' }, { environment: 'production' });
    expect(validateConfig(inBase).map((d) => d.code)).toContain('overlay/patch-in-base');
  });

  it('a name an environment may not take is said with the names it may (it said "expected: one of" and nothing)', async () => {
    const loaded = await load({ 'config/base.yaml': 'version: 1\nportal: { url: "https://a.example.com/portal/sharing/rest" }\nenvironments:\n  "dev/../x": {}\n' });
    expect(validateConfig(loaded)).toEqual([
      expect.objectContaining({
        code: 'schema/unknown-property',
        message: '"dev/../x" is not a name environments takes.',
        location: expect.objectContaining({ file: 'config/base.yaml', line: 4, column: 3 }),
        expected: 'a name matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
      }),
    ]);
  });

  it('an overlay that does not exist is said where it is named, not inside itself', async () => {
    const loaded = await load({ 'config/base.yaml': 'version: 1\nportal: { url: "https://a.example.com/portal/sharing/rest" }\nenvironments:\n  test:\n    overlays: [overlays/missing.yaml]\n' }, { environment: 'test' });
    // Named as every diagnostic names a file (relative to the current directory), not by its absolute path.
    expect(validateConfig(loaded)).toEqual([
      {
        severity: 'error',
        code: 'source/not-found',
        message: 'config/overlays/missing.yaml does not exist.',
        location: { file: 'config/base.yaml', line: 5, column: 16 },
        expected: 'an existing file or directory',
      },
    ]);
  });

  it("an overlay's problem is said once, though found for each layer it is merged into", async () => {
    const loaded = await load(
      { 'config/base.yaml': 'version: 1\nportal: { url: "https://a.example.com/portal/sharing/rest" }\nenvironments:\n  test:\n    overlays: [overlays/test.yaml]\n', 'config/overlays/test.yaml': 'version: 2\n' },
      { environment: 'test' },
    );
    expect(validateConfig(loaded).map((diagnostic) => [diagnostic.code, diagnostic.location])).toEqual([['schema/invalid-value', { file: 'config/overlays/test.yaml', line: 1, column: 10 }]]);
  });

  it('an overlay may not declare environments or values', async () => {
    const loaded = await overlay('version: 1\nvalues: { min_length: 3 }\n');
    expect(validateConfig(loaded)).toEqual([expect.objectContaining({ code: 'overlay/values', location: { file: 'config/overlays/production.yaml', line: 2, column: 1 } })]);
  });

  it('an overlay outside the declaring file\'s directory (absolute, .., a link out) is an error at its path and never read', async () => {
    const environments = `version: 1
environments:
  production:
    portal: { url: "https://gis.example.com/portal/sharing/rest" }
    overlays: [/etc/hostname, ../secrets.ini, overlays/out, overlays/production.yaml]
`;
    const loaded = await load(
      { 'config/environments.yaml': environments, 'config/base.yaml': BASE, 'secrets.ini': 'password=hunter2hunter2\n', 'config/overlays/production.yaml': 'version: 1\n' },
      { environment: 'production' },
    );
    const root = directory ?? '';
    symlinkSync(join(root, 'secrets.ini'), join(root, 'config', 'overlays', 'out'));
    const linked = await loadConfig(['config'], { cwd: root, env: {}, kinds: registry, environment: 'production' });
    const escapes = validateConfig(linked).filter((diagnostic) => diagnostic.code === 'environment/overlay-escape');
    expect(escapes.map((diagnostic) => [diagnostic.value, diagnostic.location?.line, diagnostic.message])).toEqual([
      ['/etc/hostname', 5, 'Overlay "/etc/hostname" of environment production is absolute; it was not read.'],
      ['../secrets.ini', 5, 'Overlay "../secrets.ini" of environment production points outside the declaring file\'s directory; it was not read.'],
      ['overlays/out', 5, 'Overlay "overlays/out" of environment production links to a place outside the declaring file\'s directory; it was not read.'],
    ]);
    expect(JSON.stringify(validateConfig(linked))).not.toContain('hunter2');
    expect(linked.sources).toEqual(['config/base.yaml', 'config/environments.yaml', 'config/overlays/production.yaml']);
    expect(validateConfig(loaded).filter((diagnostic) => diagnostic.code === 'environment/overlay-escape')).toHaveLength(2);
  });

  it('with the base split over files, an overlay changes each field in the file that declares it', async () => {
    const loaded = await load(
      {
        'config/environments.yaml': ENVIRONMENTS,
        'config/a.yaml': 'version: 1\nportal: { url: "https://x.example.com/portal/sharing/rest" }\nusers:\n  - username: jsmith\n    tasks: [{ id: t1, enabled: true }]\n',
        'config/b.yaml': 'version: 1\nusers:\n  - username: jsmith\n    level: 2\n',
        'config/overlays/test.yaml': 'version: 1\nusers:\n  - username: jsmith\n    level: 1\n    tasks: [{ id: t2, enabled: true }]\n',
      },
      { environment: 'test' },
    );
    expect(validateConfig(loaded).filter((d) => d.severity === 'error')).toEqual([]);
    const objects = byAddress(loaded);
    expect(objects['user[jsmith].level']?.value).toBe(1);
    expect(objects['user[jsmith].level']?.source).toEqual({ file: 'config/overlays/test.yaml', line: 4, column: 12 });
    expect(Object.keys(objects).filter((address) => address.startsWith('user[jsmith].task'))).toEqual(['user[jsmith].task[t1]', 'user[jsmith].task[t2]']);
    expect(objects['user[jsmith].task[t2]']?.source.file).toBe('config/overlays/test.yaml');
  });
});

describe('typed values', () => {
  const typed = (policy: string, env: Record<string, string> = {}) =>
    load({ 'config/base.yaml': `version: 1\nvalues:\n  len: 12\n  text_len: "13"\n  trees: [{ title: A }, { title: B }]\n  name: Ops\norganization:\n  securityPolicy:\n${policy}` }, { env });

  it('a field that is one ${var:} takes the value with its type; inside a text it is text', async () => {
    const loaded = await typed('    minLength: ${var:len}\n    minDigit: ${var:text_len}\n  categorySchema: ${var:trees}\nroles:\n  - { id: r1, description: "${var:name} team ${var:len}" }\n');
    expect(validateConfig(loaded)).toEqual([]);
    const objects = byAddress(loaded);
    expect(objects['organization.securityPolicy']?.value).toEqual({ minLength: 12, minDigit: 13 });
    expect(objects['organization.categorySchema']?.value).toEqual([{ title: 'A' }, { title: 'B' }]);
    expect(objects['role[r1]']?.value).toEqual({ description: 'Ops team 12' });
  });

  it('a field that is one ${env:} becomes the integer, number or boolean the schema asks for', async () => {
    const loaded = await typed('    minLength: ${env:MIN_LEN}\n    minOther: ${env:MIN_OTHER}\n', { MIN_LEN: '12', MIN_OTHER: '' });
    expect(validateConfig(loaded)).toEqual([]);
    expect(byAddress(loaded)['organization.securityPolicy']?.value).toEqual({ minLength: 12, minOther: null });
  });

  it('a value of the wrong type is an error at the reference, without the value', async () => {
    const loaded = await typed('    minLength: ${env:MIN_LEN}\n    minDigit: ${var:name}\n', { MIN_LEN: 'twelve' });
    const diagnostics = validateConfig(loaded);
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([
      ['schema/wrong-type', 9, 16],
      ['schema/wrong-type', 10, 15],
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('twelve');
  });

  it('an unknown value is an error at the reference naming the declared ones', async () => {
    const loaded = await typed('    minLength: ${var:length}\n');
    expect(validateConfig(loaded)).toEqual([
      expect.objectContaining({ code: 'reference/unknown-var', message: 'No value named length is declared (declared: len, name, text_len, trees).', location: { file: 'config/base.yaml', line: 9, column: 16 } }),
    ]);
  });

  it('a list or mapping value inside a longer text is an error; values may not refer to values', async () => {
    const loaded = await load({ 'config/base.yaml': 'version: 1\nvalues:\n  trees: [a]\n  other: ${var:trees}\nroles:\n  - { id: r1, description: "x ${var:trees}" }\n' });
    expect(validateConfig(loaded).map((d) => d.code)).toEqual(['reference/var-here', 'reference/not-text']);
  });
});

describe('environments that keep the same state', () => {
  it('is an error at the second: by a state name given twice, or one named as another environment', async () => {
    const files = {
      'config/base.yaml': `version: 1
environments:
  test: { portal: { url: https://test.example.com/portal/sharing/rest }, state: shared }
  staging: { portal: { url: https://staging.example.com/portal/sharing/rest }, state: shared }
  production: { portal: { url: https://gis.example.com/portal/sharing/rest } }
  copy: { portal: { url: https://copy.example.com/portal/sharing/rest }, state: production }
roles:
  - { id: r1, name: Analyst }
`,
    };
    const shared = validateConfig(await load(files, { environment: 'test' })).filter((d) => d.code === 'environment/shared-state');
    expect(shared.map((d) => [d.message, `${d.location?.line}:${d.location?.column}`, d.value])).toEqual([
      ["Environments test and staging keep the same state, shared: each would find the other's records there (refused as another portal's, or taken for its own).", '4:87', 'shared'],
      ["Environments production and copy keep the same state, production: each would find the other's records there (refused as another portal's, or taken for its own).", '6:81', 'production'],
    ]);
  });
});

describe('an environment asked for where none is declared', () => {
  it('names both ways of asking for it: a job-wide PORTALCTL_ENV is the usual one', async () => {
    const loaded = await load({ 'config/base.yaml': 'version: 1\nroles:\n  - { id: r1, name: Analyst }\n' }, { environment: 'production' });
    expect(validateConfig(loaded)).toEqual([
      expect.objectContaining({
        code: 'environment/none-declared',
        message: 'The environment production is asked for (--env, or PORTALCTL_ENV when no --env is given), but the config declares no environments.',
        value: 'production',
        expected: 'an environments: block in the base config, or neither --env nor PORTALCTL_ENV',
      }),
    ]);
  });
});

describe('unset variables (validate --allow-unset-env)', () => {
  const files = {
    'config/environments.yaml': `version: 1
environments:
  production:
    portal: { url: "\${env:PROD_PORTAL_URL}", version: "11.3" }
    values: { min_length: "\${env:PROD_MIN_LENGTH}" }
`,
    'config/base.yaml': `version: 1
portal: { url: https://dev.example.com/portal/sharing/rest, edition: self-managed, version: "11.1" }
values: { min_length: 8 }
organization:
  securityPolicy:
    minLength: \${var:min_length}
    minDigit: \${env:MIN_DIGIT}
    minUpper: \${env:MIN_UPPER}
federations:
  - id: f1
    certificate: \${env:CERTIFICATE}
`,
  };
  const shown = (loaded: LoadedConfig) => validateConfig(loaded).map((d) => [d.severity, d.code, `${d.location?.file}:${d.location?.line}:${d.location?.column}`, d.value]);

  it('each unset variable is a warning at its reference, and nothing is said of the fields that hold its text: the schema, the rules, nor where a value holding one is used', async () => {
    // MIN_UPPER is set, to a text that is no integer: still an error.
    const loaded = await load(files, { environment: 'production', env: { MIN_UPPER: 'many' }, allowUnsetEnv: true });
    expect(shown(loaded)).toEqual([
      ['warning', 'reference/unset-env', 'config/base.yaml:6:16', '${var:min_length}'],
      ['warning', 'reference/unset-env', 'config/base.yaml:7:15', '${env:MIN_DIGIT}'],
      ['error', 'schema/wrong-type', 'config/base.yaml:8:15', '${env:MIN_UPPER}'],
      ['warning', 'reference/unset-env', 'config/base.yaml:11:18', '${env:CERTIFICATE}'],
      ['warning', 'reference/unset-env', 'config/environments.yaml:4:20', '${env:PROD_PORTAL_URL}'],
      ['warning', 'reference/unset-env', 'config/environments.yaml:5:27', '${env:PROD_MIN_LENGTH}'],
    ]);
    const useOfValue = validateConfig(loaded).find((d) => d.location?.line === 6);
    expect(useOfValue?.message).toBe('The value min_length holds ${env:PROD_MIN_LENGTH}, which is not set. What depends on it is not checked (--allow-unset-env).');
    expect(useOfValue?.expected).toBe('export PROD_MIN_LENGTH before running portalctl');
  });

  it('without it they are errors, the use of a value holding one included, and nothing else is said of them', async () => {
    const loaded = await load(files, { environment: 'production', env: { MIN_UPPER: '2' } });
    expect(shown(loaded)).toEqual([
      ['error', 'reference/unset-env', 'config/base.yaml:6:16', '${var:min_length}'],
      ['error', 'reference/unset-env', 'config/base.yaml:7:15', '${env:MIN_DIGIT}'],
      ['error', 'reference/unset-env', 'config/base.yaml:11:18', '${env:CERTIFICATE}'],
      ['error', 'reference/unset-env', 'config/environments.yaml:4:20', '${env:PROD_PORTAL_URL}'],
      ['error', 'reference/unset-env', 'config/environments.yaml:5:27', '${env:PROD_MIN_LENGTH}'],
    ]);
  });

  it('--portal replaces portal.url wherever it is written: the variable the written URL needs is not asked for', async () => {
    const url = 'https://copy.example.com/portal/sharing/rest';
    const loaded = await load(files, { environment: 'production', env: { MIN_UPPER: '2', MIN_DIGIT: '1', CERTIFICATE: 'x', PROD_MIN_LENGTH: '12' }, portalUrl: url });
    // Only what is wrong with the certificate's own text: nothing of PROD_PORTAL_URL.
    expect(shown(loaded)).toEqual([['error', 'federation/certificate-markers', 'config/base.yaml:11:18', '${env:CERTIFICATE}']]);
    expect(loaded.portal.url).toBe(url);
    // In an overlay, in a document without references, and a URL holding `${` is taken as it is.
    const odd = 'https://copy.example.com/$' + '{x}/portal/sharing/rest';
    const overlaid = await load(
      {
        'config/base.yaml': 'version: 1\nportal: { url: "${env:BASE_URL}" }\nenvironments:\n  test:\n    overlays: [overlays/test.yaml]\n',
        'config/overlays/test.yaml': 'version: 1\nportal: { url: "${env:TEST_URL}" }\n',
      },
      { environment: 'test', portalUrl: odd },
    );
    expect(shown(overlaid)).toEqual([]);
    expect(overlaid.portal.url).toBe(odd);
    const plain = await load({ 'config/base.json': JSON.stringify({ version: 1, portal: { url: 'https://dev.example.com/portal/sharing/rest' } }) }, { paths: ['config/base.json'], portalUrl: odd });
    expect(plain.portal.url).toBe(odd);
  });

  it('a referenced file that is absent (a secret written only where the config is deployed) is a warning too, and nothing is said of the field holding its text', async () => {
    const files = {
      'config/base.yaml': 'version: 1\nfederations:\n  - id: f1\n    certificate: ${file:secrets/idp.pem}\n',
      'config/secrets/.gitignore': '*\n',
    };
    expect(shown(await load(files, { allowUnsetEnv: true }))).toEqual([['warning', 'reference/missing-file', 'config/base.yaml:4:18', '${file:secrets/idp.pem}']]);
    expect(shown(await load(files))).toEqual([['error', 'reference/missing-file', 'config/base.yaml:4:18', '${file:secrets/idp.pem}']]);
  });

  it('other reference problems stay errors: a directory where a file is referenced, a file outside the directory, a bad name', async () => {
    const loaded = await load(
      { 'config/base.yaml': 'version: 1\nroles:\n  - { id: r1, name: "${file:certs}", description: "${env:bad-name}" }\n  - { id: r2, name: "${file:../outside.txt}" }\n', 'config/certs/a.pem': 'x' },
      { allowUnsetEnv: true },
    );
    expect(shown(loaded).map(([severity, code]) => [severity, code])).toEqual([
      ['error', 'reference/not-a-file'],
      ['error', 'reference/invalid-env-name'],
      ['error', 'reference/file-escape'],
    ]);
    // A file that exists but cannot be read (here a loop of links) is not said not to exist.
    const cwd = directory as string;
    symlinkSync('b.pem', join(cwd, 'config/a.pem'));
    symlinkSync('a.pem', join(cwd, 'config/b.pem'));
    writeFileSync(join(cwd, 'config/loop.yaml'), 'version: 1\nroles:\n  - { id: r1, name: "${file:a.pem}" }\n');
    const looped = validateConfig(await loadConfig(['config/loop.yaml'], { cwd, env: {}, kinds: registry, allowUnsetEnv: true }));
    expect(looped.map((d) => [d.severity, d.code])).toEqual([['error', 'reference/unreadable-file']]);
    expect(looped[0]?.message).toBe('The referenced file "a.pem" cannot be read: too many symbolic links (a link that leads back to itself?).');
  });
});
