/** Hostile input becomes a clear diagnostic: never a crash, never a hang. */
import { mkdtempSync, writeFileSync, rmSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Alias } from 'yaml';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { formatLocation, type Diagnostic } from '../../src/core/diagnostics.js';
import { configFileLimit, largestConfigFileLimit, loadConfig, maxConfigFileBytes, maxExpandedNodes, validateConfig } from '../../src/engine/config/index.js';
import { maxListedPerKind } from '../../src/engine/config/source.js';
import { registry } from '../../src/registry.js';

const directory = mkdtempSync(join(tmpdir(), 'portalctl-hostile-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function diagnosticsOf(name: string, content: string | Buffer) {
  writeFileSync(join(directory, name), content);
  return validateConfig(await loadConfig([name], { cwd: directory, env: {}, kinds: registry }));
}

describe('hostile input', () => {
  it('malformed YAML', async () => {
    const diagnostics = await diagnosticsOf('malformed.yaml', 'version: 1\norganization: [unclosed\n  - x: {\n');
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', code: expect.stringMatching(/^yaml\//), location: { file: 'malformed.yaml' } });
  });

  it('malformed JSON, with a position', async () => {
    const diagnostics = await diagnosticsOf('malformed.json', '{\n  "version": 1,\n  "items": [\n}\n');
    expect(diagnostics[0]).toMatchObject({ severity: 'error', location: { file: 'malformed.json', line: 4 } });
  });

  it('billion laughs aliases', async () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [index, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) {
      const previous = String.fromCharCode('a'.charCodeAt(0) + index);
      rows.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const diagnostics = await diagnosticsOf('laughs.yaml', `version: 1\n${rows.join('\n')}\n`);
    // 9^7 nodes at line 8 pass the limit: refused at the alias that crosses it, before anything is built of it.
    expect(diagnostics.map((d) => [d.code, d.location?.line])).toEqual([['yaml/alias-limit', 8]]);
  });

  it.each([
    ['deep-flow.yaml', `version: 1\nx: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`],
    ['deep-block.yaml', `version: 1\n${Array.from({ length: 3_000 }, (_, depth) => `${' '.repeat(depth)}a:`).join('\n')}\n`],
    ['deep.json', `{"version": 1, "x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
  ])('thousands of levels deep: %s', async (name, content) => {
    const diagnostics = await diagnosticsOf(name, content);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.every((d) => d.severity === 'error' && d.location?.file === name)).toBe(true);
    expect(diagnostics.map((d) => d.code)).toContainEqual(expect.stringMatching(/too-deep|yaml\//));
  });

  it('a file over the limit is refused before it is read, naming the limit and how to change it', async () => {
    const name = 'huge.yaml';
    const descriptor = openSync(join(directory, name), 'w');
    const chunk = Buffer.alloc(1024 * 1024, 'a: b\n');
    for (let megabyte = 0; megabyte < 3; megabyte += 1) writeSync(descriptor, chunk);
    closeSync(descriptor);
    const diagnostics = validateConfig(await loadConfig([name], { cwd: directory, env: { PORTALCTL_MAX_FILE_SIZE: '2MiB' }, kinds: registry }));
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'source/too-large', location: { file: name, line: 1, column: 1 } })]);
    expect(diagnostics[0]?.message).toBe(`The file has ${3 * 1024 * 1024} bytes; config files are limited to ${2 * 1024 * 1024} bytes (PORTALCTL_MAX_FILE_SIZE sets the limit).`);
  });

  it.runIf(process.platform === 'linux')('the limit holds while reading a file whose size stat does not tell', async () => {
    // /proc files are regular files of size 0 that read as text: the limit must count what is read.
    const diagnostics = validateConfig(await loadConfig(['/proc/self/maps'], { cwd: directory, env: { PORTALCTL_MAX_FILE_SIZE: '64' }, kinds: registry }));
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'source/too-large', message: expect.stringContaining('has more than 64 bytes') })]);
  });

  it('takes files past the old 32 MiB limit by default', async () => {
    expect(maxConfigFileBytes).toBeGreaterThanOrEqual(200 * 1024 * 1024);
    const name = 'large.yaml';
    const descriptor = openSync(join(directory, name), 'w');
    writeSync(descriptor, 'version: 1\nroles:\n  - id: r1\n    name: Readers\n    description: Read only\n');
    const comments = Buffer.alloc(1024 * 1024, '# a comment line, as long files of people have them\n');
    for (let megabyte = 0; megabyte < 33; megabyte += 1) writeSync(descriptor, comments);
    closeSync(descriptor);
    const loaded = await loadConfig([name], { cwd: directory, env: {}, kinds: registry });
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.objects.map((object) => object.address)).toEqual(['role[r1]']);
  });

  it('positions come from the file read again when a diagnostic needs one; a file changed since it was read is located at 1:1', async () => {
    // A rule of the facts (not the schema): checked by validateConfig, after loading.
    const text = 'version: 1\nportal:\n  url: https://gis.example.com/portal/sharing/rest\n  edition: self-managed\n  version: "11.3"\n  access: private\n  verified: false\nitems:\n  - id: 1105a1562c9c4dd98e557595bf8a2617\n    status: public_authoritative\n';
    const name = 'positions.yaml';
    writeFileSync(join(directory, name), text);
    const refused = (diagnostics: ReturnType<typeof validateConfig>) => diagnostics.find((d) => d.message.startsWith('public_authoritative needs'))?.location;
    expect(refused(validateConfig(await loadConfig([name], { cwd: directory, env: {}, kinds: registry })))).toEqual({ file: name, line: 10, column: 13 });
    const loaded = await loadConfig([name], { cwd: directory, env: {}, kinds: registry });
    writeFileSync(join(directory, name), `# edited meanwhile\n${text}`);
    expect(refused(validateConfig(loaded))).toEqual({ file: name, line: 1, column: 1 });
  });

  it('PORTALCTL_MAX_FILE_SIZE takes bytes or a unit, and refuses anything else', () => {
    expect(configFileLimit({})).toBe(maxConfigFileBytes);
    expect(configFileLimit({ PORTALCTL_MAX_FILE_SIZE: '300000000' })).toBe(300_000_000);
    expect(configFileLimit({ PORTALCTL_MAX_FILE_SIZE: '500MiB' })).toBe(500 * 1024 * 1024);
    expect(configFileLimit({ PORTALCTL_MAX_FILE_SIZE: '500 MB' })).toBe(500_000_000);
    for (const bad of ['-1', '0', 'lots', '1.5MiB', '2TiB', '1GiB', String(largestConfigFileLimit + 1)]) {
      expect(() => configFileLimit({ PORTALCTL_MAX_FILE_SIZE: bad })).toThrow(new RegExp(`PORTALCTL_MAX_FILE_SIZE must be a size from 1 byte to ${largestConfigFileLimit} bytes, such as 500MiB or 300000000, not "${bad.replace(/[.+]/g, '\\$&')}"`));
    }
  });

  it('binary data', async () => {
    const diagnostics = await diagnosticsOf('binary.yaml', Buffer.from([0x76, 0x65, 0x72, 0x0a, 0x00, 0xff, 0xfe, 0x01]));
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([['source/binary', 2, 1]]);
  });

  it('invalid UTF-8, located at the character that breaks it', async () => {
    // A Latin-1 é (a lead byte whose continuation is missing), a byte that never starts a character, a truncated 3-byte character.
    const cases: [string, Buffer, number, number, number][] = [
      ['latin1.yaml', Buffer.from('version: 1\nroles: [{id: r, name: "caf\xe9"}]\n', 'latin1'), 2, 27, 37],
      ['stray.yaml', Buffer.concat([Buffer.from('version: 1\n# café \n  x: '), Buffer.from([0xff])]), 3, 6, 25],
      ['truncated.yaml', Buffer.concat([Buffer.from('version: 1\nnote: ab'), Buffer.from([0xe2, 0x82]), Buffer.from('c\n')]), 2, 9, 19],
    ];
    for (const [file, bytes, line, column, offset] of cases) {
      const diagnostics = await diagnosticsOf(file, bytes);
      expect(diagnostics.map((d) => [d.code, d.message, d.location?.line, d.location?.column]), file).toEqual([
        ['source/encoding', `The file is not valid UTF-8 text (at byte offset ${offset}).`, line, column],
      ]);
    }
  });

  it('duplicate keys', async () => {
    const diagnostics = await diagnosticsOf('duplicate.yaml', 'version: 1\nitems:\n  - id: a\n    status: deprecated\n    status: none\n');
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([['yaml/duplicate-key', 5, 5]]);
  });

  /** `file:line:column: message` of each diagnostic. */
  const said = (diagnostics: readonly Diagnostic[]): string[] => diagnostics.map((d) => `${formatLocation(d.location)}: ${d.message} (${d.code})`);

  it('a key a JSON object repeats is said at the repeat, as YAML says it, and the file is not read on with the last one kept', async () => {
    const text = [
      '{',
      '  "version": 1,',
      '  "groups": [],',
      '  "items": [',
      '    { "id": "i1", "status": "deprecated", "status": "none" },',
      '    { "id": "i2", "st\\u0061tus": "none", "title": "a \\"status\\": x", "status": "deprecated" }',
      '  ],',
      '  "groups": [{ "id": "g1" }]',
      '}',
    ].join('\n');
    const diagnostics = await diagnosticsOf('duplicate.json', text);
    expect(said(diagnostics)).toEqual([
      'duplicate.json:5:43: The key "status" appears twice in the same object (first at line 5, column 19); keys must be unique. (json/duplicate-key)',
      'duplicate.json:6:70: The key "status" appears twice in the same object (first at line 6, column 19); keys must be unique. (json/duplicate-key)',
      'duplicate.json:8:3: The key "groups" appears twice in the same object (first at line 3, column 3); keys must be unique. (json/duplicate-key)',
    ]);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', value: 'status', expected: 'each key once' });
  });

  it('a JSON file of over a megabyte has its repeated key said too', async () => {
    const items = Array.from({ length: 12_000 }, (_, index) => `{"id": "item${index}", "status": "none", "title": "${'x'.repeat(80)}"}`);
    items[11_000] = '{"id": "item11000", "status": "none", "status": "deprecated"}';
    const text = `{"version": 1,\n"items": [\n${items.join(',\n')}\n]}\n`;
    expect(text.length).toBeGreaterThan(1 << 20);
    expect(said(await diagnosticsOf('large-duplicate.json', text))).toEqual([
      'large-duplicate.json:11003:39: The key "status" appears twice in the same object (first at line 11003, column 21); keys must be unique. (json/duplicate-key)',
    ]);
  });

  it('repeated keys past the first thousand are counted in one diagnostic, not listed', async () => {
    const text = `{"version": 1, "roles": [{"id": "r1", ${Array.from({ length: 1_003 }, () => '"name": "n"').join(', ')}}]}`;
    const diagnostics = await diagnosticsOf('many-duplicates.json', text);
    expect(diagnostics).toHaveLength(maxListedPerKind + 1);
    expect(said(diagnostics.slice(-2))).toEqual([
      `many-duplicates.json:1:${39 + 13 * 1_000}: The key "name" appears twice in the same object (first at line 1, column 39); keys must be unique. (json/duplicate-key)`,
      `many-duplicates.json:1:${39 + 13 * 1_001}: From here on the file repeats 2 more keys, not listed (the first 1,000 are). (json/duplicate-key)`,
    ]);
  });

  it('a JSON file whose objects each have a key once reads as before: the same key in other objects, strings that look like keys', async () => {
    const text = JSON.stringify({
      version: 1,
      items: [
        { id: 'i1', status: 'none' },
        { id: 'i2', status: 'deprecated' },
      ],
      // Strings that start with a colon make the text look as if it held more keys, so it is searched: nothing is found.
      roles: [{ id: 'r1', name: ': status', description: '"id": "r1", {"status": [' }],
    }, null, 1);
    writeFileSync(join(directory, 'unique.json'), text);
    const loaded = await loadConfig(['unique.json'], { cwd: directory, env: {}, kinds: registry });
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.documents[0]?.data).toEqual(JSON.parse(text));
  });

  it('a document that is not a mapping', async () => {
    const diagnostics = await diagnosticsOf('scalar.yaml', 'just a string\n');
    expect(diagnostics.map((d) => d.code)).toEqual(['schema/wrong-type']);
  });

  it('an empty file', async () => {
    const diagnostics = await diagnosticsOf('empty.yaml', '');
    expect(diagnostics.map((d) => d.code)).toEqual(['schema/wrong-type']);
  });
});

/** The issue's file: a list of `words` words under an anchor, then 99 category trees that each alias it. */
function aliasedWords(words: number): string {
  const list = Array.from({ length: words }, (_, index) => `  - word${index}`).join('\n');
  const trees = Array.from({ length: 99 }, (_, index) => `  { title: T${index}, categories: *a }`).join(',\n');
  return `version: 1\nx-anchor: &a\n${list}\norganization: { categorySchema: [\n${trees} ] }\n`;
}

describe('aliases are bounded by the size of the expanded document, not by their number', () => {
  afterEach(() => vi.restoreAllMocks());

  it('1,000 words aliased 99 times: every problem found, each alias resolved once, never by scanning the document', async () => {
    // The yaml package's Alias.resolve scans the whole document; called once per diagnostic it made validation quadratic.
    const resolve = vi.spyOn(Alias.prototype, 'resolve');
    const diagnostics = await diagnosticsOf('aliased-words.yaml', aliasedWords(1_000));
    expect(resolve).not.toHaveBeenCalled();
    // 99 x 1,000 category entries that are words, not mappings, beside the unknown top-level key
    // and too many trees: the first thousand are described and located, the rest counted.
    expect(diagnostics).toHaveLength(1_001);
    const wrongType = diagnostics.filter((d) => d.code === 'schema/wrong-type');
    expect(wrongType.length).toBeGreaterThan(990);
    // Each located in the anchored list the alias names (lines 3 to 1,002).
    for (const diagnostic of wrongType) {
      expect(diagnostic.location?.line).toBeGreaterThanOrEqual(3);
      expect(diagnostic.location?.line).toBeLessThanOrEqual(1002);
    }
    expect(diagnostics.find((d) => d.code === 'schema/too-many-problems')?.message).toMatch(
      /^The file has too many schema problems to list: the 1,000 in the first 1,000 of the validator's 99,00\d findings are listed, and nothing else of the file is checked\.$/,
    );
  });

  it('a list aliased past the limit is refused at the alias that crosses it, before validation walks it', async () => {
    // Each tree adds 20,005 nodes (its alias 20,001): the 49th passes 1,000,000 (with the anchored list and the rest).
    const words = 20_000;
    expect(maxExpandedNodes).toBe(1_000_000);
    const diagnostics = await diagnosticsOf('over-limit.yaml', aliasedWords(words));
    expect(diagnostics).toHaveLength(1);
    const [refusal] = diagnostics;
    expect(refusal).toMatchObject({ severity: 'error', code: 'yaml/alias-limit', location: { file: 'over-limit.yaml' } });
    expect(refusal?.message).toContain('1,000,000');
    expect(refusal?.location).toMatchObject({ line: words + 4 + 48, column: 29 });
  });

  it('an alias inside the node it names is refused, not expanded forever', async () => {
    const diagnostics = await diagnosticsOf('recursive.yaml', 'version: 1\nx-loop: &loop\n  - a\n  - *loop\n');
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([['yaml/recursive-alias', 4, 5]]);
  });

  it('an alias whose anchor is not set is located at that alias, not at the first alias of the file', async () => {
    const diagnostics = await diagnosticsOf('unresolved.yaml', 'version: 1\nx-defaults: &d\n  description: Shared\nroles:\n  - id: r1\n    <<: *d\n  - id: r2\n    description: *missing\n');
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column, d.message])).toEqual([
      ['yaml/unresolved-alias', 8, 18, 'Invalid YAML: Unresolved alias (the anchor must be set before the alias): missing'],
    ]);
  });

  it('a merge key in a YAML 1.2 file says how to merge; under %YAML 1.1 it merges', async () => {
    const text = 'version: 1\nvalues:\n  role_defaults: &d\n    description: Shared\nroles:\n  - id: r1\n    <<: *d\n';
    const diagnostics = await diagnosticsOf('merge-1.2.yaml', text);
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.message])).toEqual([
      ['schema/unknown-property', 7, 'Unknown property "<<" in roles[0]: a merge key is YAML 1.1, and a file is read as YAML 1.2 unless it starts with "%YAML 1.1" and "---".'],
    ]);
    expect(await diagnosticsOf('merge-1.1.yaml', `%YAML 1.1\n---\n${text}`)).toEqual([]);
  });

  it('a list or mapping as a key is said at the key, and the rest of the file is still checked', async () => {
    const text = 'version: 1\norganization:\n  securityPolicy:\n    ? [a, b]\n    : value\n    minLength: 1\n{x: 1}: 2\n? - c\n: d\nvalues:\n  v: &list [1]\n  w: { *list : 3 }\n';
    const diagnostics = await diagnosticsOf('collection-keys.yaml', text);
    expect(diagnostics.map((d) => [d.code, d.location?.line, d.location?.column, d.message])).toEqual([
      ['yaml/collection-key', 4, 7, "This key is a list ([ a, b ]); a config's keys are names, and nothing in a config takes a list as a key."],
      ['security-policy/out-of-bounds', 6, 16, 'securityPolicy.minLength is out of bounds.'],
      ['yaml/collection-key', 7, 1, "This key is a mapping ({ x: 1 }); a config's keys are names, and nothing in a config takes a mapping as a key."],
      ['yaml/collection-key', 8, 3, "This key is a list ([ c ]); a config's keys are names, and nothing in a config takes a list as a key."],
      // An alias of a list as a key stopped the run with the yaml package's "Unresolved alias", located nowhere.
      ['yaml/collection-key', 12, 8, "This key is a list ([ 1 ]); a config's keys are names, and nothing in a config takes a list as a key."],
    ]);
    expect(diagnostics[0]?.expected).toBe('a name (text) as the key');
  });

  it('many aliases of small values are fine: their number is not the limit', async () => {
    const users = Array.from({ length: 500 }, (_, index) => `  - { username: u${index}, level: ${index === 0 ? '&level 2' : '*level'} }`).join('\n');
    const diagnostics = await diagnosticsOf('many-aliases.yaml', `version: 1\nportal: { url: https://gis.example.com/portal/sharing/rest, edition: self-managed, version: "10.6" }\nusers:\n${users}\n`);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
