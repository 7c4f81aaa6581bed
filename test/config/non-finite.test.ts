/**
 * A number that is not finite (1e400, past what a double holds, reads as infinity in YAML and in
 * JSON.parse; YAML also writes .inf and .nan) is said where it is written, as written: JSON, what
 * the portal's API takes, cannot write one. The rest of the file is still checked, and nothing is
 * said twice.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatLocation, type Diagnostic } from '../../src/core/diagnostics.js';
import { loadConfig, validateConfig } from '../../src/engine/config/index.js';
import { largeLocateChars, maxListedPerKind } from '../../src/engine/config/source.js';
import { registry } from '../../src/registry.js';

const directory = mkdtempSync(join(tmpdir(), 'portalctl-non-finite-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function load(name: string, content: string) {
  writeFileSync(join(directory, name), content);
  return loadConfig([name], { cwd: directory, env: {}, kinds: registry });
}

/** `file:line:column: message [value] (code)` of each diagnostic. */
const said = (diagnostics: readonly Diagnostic[]): string[] => diagnostics.map((d) => `${formatLocation(d.location)}: ${d.message} [${String(d.value)}] (${d.code})`);

const tooLarge = "This value is too large to be a number: it reads as infinity, which JSON, what the portal's API takes, cannot write.";
const tooSmall = "This value is too far below zero to be a number: it reads as minus infinity, which JSON, what the portal's API takes, cannot write.";
/** `.inf` written as such is infinity, not a number too large. */
const written = (literal: string): string => `This value (${literal}) is ${literal.startsWith('-') ? 'minus ' : ''}infinity, which JSON, what the portal's API takes, cannot write.`;

describe('numbers that are not finite', () => {
  it('YAML: each said where it is written, under values: too (which no schema types), and the rest of the file still checked', async () => {
    const loaded = await load(
      'numbers.yaml',
      [
        'version: 1',
        'values:',
        '  big: 1e400',
        '  sizes: [2, 1e309]',
        'organization:',
        '  securityPolicy:',
        '    minLength: -1E+999',
        '    minUpper: .nan',
        'roles:',
        '  - id: r1',
        '    name: Size ${var:big}',
        '    descriptio: typo',
        '',
      ].join('\n'),
    );
    expect(said(validateConfig(loaded))).toEqual([
      `numbers.yaml:3:8: ${tooLarge} [1e400] (source/non-finite-number)`,
      `numbers.yaml:4:14: ${tooLarge} [1e309] (source/non-finite-number)`,
      `numbers.yaml:7:16: ${tooSmall} [-1E+999] (source/non-finite-number)`,
      "numbers.yaml:8:15: This value (.nan) is not a number: JSON, what the portal's API takes, cannot write it. [.nan] (source/non-finite-number)",
      'numbers.yaml:12:5: Unknown property "descriptio" in roles[0]. Did you mean "description"? [descriptio] (schema/unknown-property)',
    ]);
    expect(loaded.diagnostics[0]?.expected).toBe('a finite number (between about -1.8e308 and 1.8e308), or text in quotes');
  });

  it('JSON: 1e400 said where it is written, as written, not as .inf', async () => {
    const loaded = await load('numbers.json', '{\n  "version": 1,\n  "organization": { "securityPolicy": { "minLength": 1e400, "minDigit": -2e308 } },\n  "roles": [{ "id": 5 }]\n}\n');
    expect(said(validateConfig(loaded))).toEqual([
      `numbers.json:3:54: ${tooLarge} [1e400] (source/non-finite-number)`,
      `numbers.json:3:73: ${tooSmall} [-2e308] (source/non-finite-number)`,
      'numbers.json:4:21: roles[0].id must be a string or an object with name. [5] (schema/wrong-type)',
    ]);
  });

  it('a large JSON file, located from its data, says it at its place too, once', async () => {
    const roles = Array.from({ length: 120_000 }, (_, index) => `{"id": "r${index}", "name": "Role ${index}"}`);
    roles[90_000] = '{"id": "r90000", "name": 1e400}';
    const text = `{"version": 1,\n"roles": [\n${roles.join(',\n')}\n]}\n`;
    expect(text.length).toBeGreaterThan(largeLocateChars);
    expect(said((await load('large.json', text)).diagnostics)).toEqual([`large.json:90003:26: ${tooLarge} [1e400] (source/non-finite-number)`]);
  });

  it('past the first thousand, one diagnostic counts the rest', async () => {
    const loaded = await load('many.json', `{"version": 1, "values": {"n": [${Array(maxListedPerKind + 3).fill('1e400').join(', ')}]}}`);
    expect(loaded.diagnostics).toHaveLength(maxListedPerKind + 1);
    expect(said(loaded.diagnostics.slice(-2))).toEqual([
      `many.json:1:${33 + 7 * (maxListedPerKind - 1)}: ${tooLarge} [1e400] (source/non-finite-number)`,
      `many.json:1:${33 + 7 * maxListedPerKind}: From here on the file holds 3 more numbers that are not finite, not listed (the first 1,000 are). [undefined] (source/non-finite-number)`,
    ]);
  });

  it('an anchored number is said once, at the anchor, naming the aliases that stand for it (not again at each, nor by the schema there)', async () => {
    const loaded = await load(
      'aliases.yaml',
      [
        'version: 1',
        'values:',
        '  big: &big .inf',
        '  policy: &policy',
        '    minLower: -.inf',
        'organization:',
        '  securityPolicy:',
        '    minLength: *big',
        '    minUpper: *big',
        'collaborations:',
        '  - id: c1',
        '    workspaces:',
        '      - { id: w1, maxItemSizeInMB: *big }',
        '      - { id: w2, extra: *policy }',
        '',
      ].join('\n'),
    );
    expect(said(validateConfig(loaded))).toEqual([
      `aliases.yaml:3:13: ${written('.inf')} The aliases at line 8, column 16, line 9, column 15 and line 13, column 36 stand for it too. [.inf] (source/non-finite-number)`,
      `aliases.yaml:5:15: ${written('-.inf')} The alias at line 14, column 26 stands for it too. [-.inf] (source/non-finite-number)`,
      'aliases.yaml:14:19: Unknown property "extra" in collaborations[0].workspaces[1]. [extra] (schema/unknown-property)',
    ]);
  });

  it('one a YAML 1.1 merge key brings in is said once too, at the anchor, naming the alias the merge names', async () => {
    const loaded = await load('merge.yaml', '%YAML 1.1\n---\nversion: 1\nvalues:\n  base: &b\n    minLength: .inf\norganization:\n  securityPolicy:\n    <<: *b\n    minUpper: 2\n');
    expect(said(validateConfig(loaded))).toEqual([`merge.yaml:6:16: ${written('.inf')} The alias at line 9, column 9 stands for it too. [.inf] (source/non-finite-number)`]);
  });

  it('a ${var:} standing for one, as a whole field, is said once, where the value is declared (not also refused by the schema at the field)', async () => {
    const loaded = await load(
      'var.yaml',
      ['version: 1', 'values:', '  big: .inf', '  sizes: [1, .nan]', 'organization:', '  securityPolicy:', '    minLength: ${var:big}', 'roles:', '  - id: r1', '    name: Size ${var:big}', ''].join('\n'),
    );
    expect(said(validateConfig(loaded))).toEqual([
      `var.yaml:3:8: ${written('.inf')} [.inf] (source/non-finite-number)`,
      "var.yaml:4:14: This value (.nan) is not a number: JSON, what the portal's API takes, cannot write it. [.nan] (source/non-finite-number)",
    ]);
  });

  it('an ${env:} whose text reads as a number too large to hold is said at the reference, without its value, not made infinity', async () => {
    writeFileSync(
      join(directory, 'env.yaml'),
      ['version: 1', 'organization:', '  securityPolicy:', '    minLength: ${env:LONG}', 'safety:', '  role: { maxUpdates: "${env:BIG}", maxRemovals: "${env:SMALL}" }', ''].join('\n'),
    );
    const loaded = await loadConfig(['env.yaml'], { cwd: directory, env: { BIG: '1e400', LONG: '9'.repeat(400), SMALL: '1e-400' }, kinds: registry });
    const tooLargeEnv = (name: string) =>
      `The environment variable ${name} holds a number too large to hold (it reads as infinity), which JSON, what the portal's API takes, cannot write.`;
    expect(said(validateConfig(loaded))).toEqual([
      `env.yaml:4:16: ${tooLargeEnv('LONG')} [\${env:LONG}] (reference/non-finite-number)`,
      `env.yaml:6:23: ${tooLargeEnv('BIG')} [\${env:BIG}] (reference/non-finite-number)`,
    ]);
  });

  it('one in a block list is shown as written, not as .inf (it is located at its dash)', async () => {
    const loaded = await load('list.yaml', 'version: 1\nvalues:\n  sizes:\n    - 1e999\n    -   -2E+400\n');
    expect(said(loaded.diagnostics)).toEqual([`list.yaml:4:5: ${tooLarge} [1e999] (source/non-finite-number)`, `list.yaml:5:5: ${tooSmall} [-2E+400] (source/non-finite-number)`]);
  });

  it('finite numbers at the edges read as before: the largest double, the smallest, one that rounds to 0', async () => {
    const text = 'version: 1\nvalues:\n  edges: [1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 1e-400, 0x1F, -0.0]\norganization:\n  securityPolicy:\n    minLength: 12\n';
    const loaded = await load('edges.yaml', text);
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.documents[0]?.data).toMatchObject({ values: { edges: [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 0, 31, -0] } });
    const json = await load('edges.json', '{"version": 1, "values": {"edges": [1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 1e-400]}}');
    expect(validateConfig(json)).toEqual([]);
  });
});
