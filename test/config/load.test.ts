import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateConfig } from '../../src/engine/config/index.js';
import { registry } from '../../src/registry.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const load = (paths: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(paths, { cwd: fixtures, env, kinds: registry });

describe('loading', () => {
  it("reads a directory's own YAML files only: JSON beside them (state files, saved plans) is never config", async () => {
    expect((await load(['split'])).sources).toEqual(['split/a.yaml']);
  });

  it('merges YAML and JSON files named as files into one desired state, with normalised values', async () => {
    const loaded = await load(['split/a.yaml', 'split/b.json']);
    expect(loaded.sources).toEqual(['split/a.yaml', 'split/b.json']);
    expect(validateConfig(loaded)).toEqual([]);
    const byAddress = Object.fromEntries(loaded.objects.map((obj) => [obj.address, obj]));
    expect(Object.keys(byAddress)).toEqual([
      'organization.securityPolicy',
      'organization.resource[old.png]',
      'user[jsmith].task[a1]',
      'collaboration[c1].participant[p2]',
    ]);
    expect(byAddress['organization.securityPolicy']?.value).toEqual({ minLength: 12, minOther: null });
    expect(byAddress['organization.resource[old.png]']).toMatchObject({ kind: 'organization.resource', absent: true, value: null, ids: { key: 'old.png' } });
    expect(byAddress['user[jsmith].task[a1]']).toMatchObject({ value: { active: true }, ids: { username: 'jsmith', taskId: 'a1' } });
    expect(byAddress['collaboration[c1].participant[p2]']?.source).toEqual({ file: 'split/b.json', line: 5, column: 44 });
    expect(loaded.prunes.map(({ collection, keys, source }) => ({ collection, keys, source }))).toEqual([
      { collection: 'organization.resource', keys: ['logo.png', 'old.png'], source: { file: 'split/a.yaml', line: 5, column: 53 } },
      { collection: 'collaboration[c1].participant', keys: ['p1', 'p2'], source: { file: 'split/b.json', line: 4, column: 36 } },
    ]);
    expect(loaded.facts).toEqual({ edition: 'self-managed', version: '11.3' });
  });

  it('reports the same object declared twice, naming both places; subdirectories are not read', async () => {
    const loaded = await load(['duplicates']);
    expect(loaded.sources).toEqual(['duplicates/one.yaml', 'duplicates/two.yaml']);
    const diagnostics = validateConfig(loaded);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'config/duplicate-object',
      address: 'item[i1].status',
      location: { file: 'duplicates/two.yaml', line: 6, column: 13 },
    });
    expect(diagnostics[0]?.message).toContain('duplicates/one.yaml:3:23');
  });

  it('reads a file once when two paths name it (a directory and a link to it, a file and its directory)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-linked-'));
    try {
      symlinkSync(join(fixtures, 'split'), join(directory, 'linked'));
      const loaded = await loadConfig([join(fixtures, 'split'), join(directory, 'linked'), join(fixtures, 'split/a.yaml')], { cwd: fixtures, env: {}, kinds: registry });
      expect(loaded.sources).toEqual(['split/a.yaml']);
      expect(validateConfig(loaded)).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a file whose document is no mapping says what it is: an empty one is empty (it was "the document must be an object.")', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-not-a-mapping-'));
    try {
      writeFileSync(join(directory, 'empty.yaml'), '# to be written\n');
      writeFileSync(join(directory, 'list.yaml'), '- version: 1\n');
      writeFileSync(join(directory, 'list.json'), '[{"version": 1}]');
      const said = async (file: string) => (await loadConfig([file], { cwd: directory, env: {}, kinds: registry })).diagnostics.map((d) => `${d.location?.line}:${d.location?.column}: ${d.message} (expected: ${d.expected})`);
      expect(await said('empty.yaml')).toEqual(["1:1: The file holds no config: it is empty, or holds only comments. (expected: a mapping of the config's sections, starting with version: 1)"]);
      expect(await said('list.yaml')).toEqual([
        "1:1: The file's document is a list; a config file is a mapping of its sections (version, portal, roles, ...). (expected: a mapping of the config's sections, starting with version: 1)",
      ]);
      expect(await said('list.json')).toEqual([
        "1:1: The file's document is an array; a config file is an object of its sections (version, portal, roles, ...). (expected: an object of the config's sections, starting with version: 1)",
      ]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('reports a missing path', async () => {
    const diagnostics = validateConfig(await load(['nowhere.yaml']));
    expect(diagnostics.map((d) => d.code)).toEqual(['source/not-found']);
  });

  it('a directory reads its links to its own config files (they were dropped without a word), names a link to nothing and refuses one leading out; a path that cannot be read is not "missing"', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-links-'));
    try {
      mkdirSync(join(directory, 'config', 'shared'), { recursive: true });
      writeFileSync(join(directory, 'config', 'shared', 'a.yaml'), readFileSync(join(fixtures, 'split', 'a.yaml')));
      symlinkSync(join(directory, 'config', 'shared', 'a.yaml'), join(directory, 'config', 'linked.yaml'));
      symlinkSync(join(fixtures, 'split', 'a.yaml'), join(directory, 'config', 'outside.yaml'));
      symlinkSync(join(directory, 'nowhere.yaml'), join(directory, 'config', 'dangling.yaml'));
      symlinkSync(join(directory, 'loop'), join(directory, 'loop'));
      symlinkSync('circle.yaml', join(directory, 'config', 'circle.yaml'));
      const loaded = await loadConfig(['config', 'loop'], { cwd: directory, env: {}, kinds: registry });
      expect(loaded.sources).toEqual(['config/linked.yaml']);
      // Said in words, never Node's own ("ELOOP: too many symbolic links encountered, stat '/tmp/…'").
      expect(validateConfig(loaded).map((d) => [d.code, d.location?.file, d.message])).toEqual([
        ['source/not-found', 'config/circle.yaml', 'config/circle.yaml is a symbolic link that leads back to itself (through links, a loop).'],
        ['source/not-found', 'config/dangling.yaml', 'config/dangling.yaml is a symbolic link to nothing.'],
        ['source/link-escape', 'config/outside.yaml', `config/outside.yaml links to ${join(fixtures, 'split', 'a.yaml')}, outside config; it was not read (name that file itself to read it).`],
        ['source/unreadable', 'loop', 'loop cannot be read: too many symbolic links (a link that leads back to itself?).'],
      ]);
      // The current directory's own files are named as written, not by absolute path.
      const here = validateConfig(await loadConfig([], { cwd: join(directory, 'config'), env: {}, kinds: registry }));
      expect(here.map((d) => d.location?.file)).toEqual(['circle.yaml', 'dangling.yaml', 'outside.yaml']);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('a config path that is a socket', () => {
  it('is said in words: opening one fails (ENXIO), which is no missing file', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-socket-'));
    const server = createServer();
    try {
      await new Promise<void>((listening) => server.listen(join(directory, 'config.yaml'), listening));
      const diagnostics = validateConfig(await loadConfig(['config.yaml'], { cwd: directory, env: {}, kinds: registry }));
      expect(diagnostics.map((d) => [d.code, d.location?.file, d.message])).toEqual([
        ['source/unreadable', 'config.yaml', 'Cannot read the file: it is a socket, or a device with nothing behind it.'],
      ]);
    } finally {
      await new Promise((closed) => server.close(closed));
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('references', () => {
  it('resolves env and file references and redacts their values', async () => {
    const env = { PORTAL_URL: 'https://gis.example.com/portal/sharing/rest', ORG_NAME: 'Riverside' };
    const loaded = await load(['references/config.yaml'], env);
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.portal.url).toBe(env.PORTAL_URL);
    const federation = loaded.objects[0];
    expect(federation?.value).toMatchObject({ name: 'Federation of Riverside', certificate: expect.stringContaining('BEGIN CERTIFICATE') });
    expect(loaded.redact(federation?.value)).toEqual({ certificate: '${file:certs/federation.pem}', name: 'Federation of ${env:ORG_NAME}' });
    expect(loaded.redact({ url: `${env.PORTAL_URL}/portals/self` })).toEqual({ url: '${env:PORTAL_URL}/portals/self' });
  });

  it('reports unset variables, missing files, escapes and unknown types at the string, showing the reference', async () => {
    const diagnostics = validateConfig(await load(['references/broken.yaml']));
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column, d.value])).toEqual([
      ['reference/unset-env', 4, 11, '${env:UNSET_VARIABLE}'],
      ['reference/file-escape', 5, 18, '${file:../outside.txt}'],
      ['reference/missing-file', 7, 11, '${file:missing.txt}'],
      ['reference/unknown-type', 8, 18, '${vault:secret}'],
    ]);
  });

  it('an unknown reference type names the type it is near: ${ENV:} is none (types are lower case), ${vault:} is near none', async () => {
    const diagnostics = validateConfig(await load(['references/mistyped.yaml']));
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.message])).toEqual([
      ['reference/unknown-type', 4, 'Unknown reference type "ENV". Did you mean "env"?'],
      ['reference/unknown-type', 5, 'Unknown reference type "fiel". Did you mean "file"?'],
    ]);
    const broken = validateConfig(await load(['references/broken.yaml']));
    expect(broken.find((d) => d.code === 'reference/unknown-type')?.message).toBe('Unknown reference type "vault".');
  });

  it('an unset variable is one problem: what a rule says of the reference text left in its place is not said', async () => {
    const diagnostics = validateConfig(await load(['references/secret.yaml']));
    expect(diagnostics.map((d) => [d.severity, d.code, d.location?.line, d.value])).toEqual([['error', 'reference/unset-env', 4, '${env:CERTIFICATE}']]);
  });

  it('never shows a resolved value in a diagnostic', async () => {
    const loaded = await load(['references/secret.yaml'], { CERTIFICATE: 'not-a-certificate-s3cr3t' });
    const diagnostics = validateConfig(loaded);
    expect(diagnostics.map((d) => [d.code, d.value])).toEqual([['federation/certificate-markers', '${env:CERTIFICATE}']]);
    expect(JSON.stringify(diagnostics)).not.toContain('s3cr3t');
  });
});
