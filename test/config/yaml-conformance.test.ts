/**
 * The fast data-only YAML path (js-yaml with the `yaml` package's core schema) against the
 * positioned path (the `yaml` package): where the fast path reads a document, both give the same
 * data; where they would differ, the fast path declines and the positioned path decides, with
 * its diagnostics and positions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parseDocument, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYamlSource } from '../../src/engine/config/source.js';
import { yamlDataOnly } from '../../src/engine/config/yaml-data.js';
import { expandYamlDocument } from '../../src/engine/config/yaml-expand.js';

/** What the positioned path reads: the `yaml` package with the options source.ts uses. */
function positioned(text: string): { data?: unknown; errors: string[]; warnings: string[] } {
  const doc = parseDocument(text, { uniqueKeys: true, strict: true, stringKeys: false });
  if (doc.errors.length > 0) return { errors: doc.errors.map((error) => error.code), warnings: [] };
  return { data: doc.toJS({ maxAliasCount: 100 }) ?? null, errors: [], warnings: doc.warnings.map((warning) => warning.code) };
}

/** Scalars where YAML 1.1, YAML 1.2 and the two parsers' defaults disagree. */
const scalars = [
  'yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'tRUE',
  '~', 'null', 'Null', 'NULL', 'nUll', '',
  '017', '0o17', '0O17', '0x1F', '0X1F', '-0x1F', '+0x1F', '0b101', '1_000', '-1_0', '+12', '-0', '00', '0', '08', '0o8',
  '1e3', '1E3', '3e+2', '0.1e-2', '1.5e3', '.5', '+.5', '-.5', '1.', '0.', '1e', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', 'inf', 'nan',
  '12345678901234567890', '9007199254740993', '1.7976931348623157e309', '-12345678901234567890.5',
  '2001-12-14', '2001-12-14t21:59:43.10-05:00', '1:30', '12:30:00', '190:20:30',
  '"\\u263A\\x41\\N"', "'it''s'", '"tab\\there"', 'a#b', 'x #y', '"1"', "'true'",
];

describe('YAML 1.2 scalars: the fast path agrees with the yaml package', () => {
  it.each(scalars)('%s', (scalar) => {
    // A comment cannot stand inside a flow list on one line.
    const text = `value: ${scalar}\nlist: [${scalar === '' ? '""' : scalar.replace(/ #.*/, '')}]\n`;
    const fast = yamlDataOnly(text);
    const slow = positioned(text);
    expect(slow.errors).toEqual([]);
    expect(fast).toBeDefined();
    expect(fast?.data).toStrictEqual(slow.data);
  });

  it('YAML 1.1 booleans stay strings, octal needs 0o, big numbers are lossy in both', () => {
    expect(yamlDataOnly('a: yes\nb: on\nc: 0o17\nd: 017\ne: 12345678901234567890\n')?.data).toStrictEqual({ a: 'yes', b: 'on', c: 15, d: 17, e: Number('12345678901234567890') });
  });
});

/** Line breaks, block scalars, folding, escapes and flow styles: read alike, with no warning lost. */
const documents = [
  'a: |\r\n  x\r\n  y\r\nb: 1\r\n',
  'a: >\r\n  x\r\n  y\r\n',
  'a: plain\n  continued\n  lines\n',
  'a: "quoted\n  multi\n\n  line"\n',
  "a: 'single\n  multi'\n",
  'a:    # comment\n  value\n',
  '"": x\n',
  'a: \t1\n',
  'a: x\u2028y\n',
  'a: x\u0085y\n',
  'a: |2\n    indented\n',
  'a: |-\n  x\n\n\n',
  'a: >+\n  x\n\n',
  'a:\n  - - x\n    - y\n  - z\n',
  'a: {b: [1, {c: d}], e: "f"}\n',
  'a: "\\t\\u00e9\\U0001F600"\n',
  'a: "\\\n  b"\n',
  'a: b\n...\n',
  '---\na: b\n',
  '\ufeffa: b\n',
  'a:\n- x\n - y\n',
  'a: [x\n]\n',
  'a: x\tb\n',
  'a: http://x/y#z\n',
];

describe('YAML 1.2 documents: the fast path agrees with the yaml package', () => {
  it.each(documents)('%j', (text) => {
    const slow = positioned(text);
    expect(slow.errors).toEqual([]);
    expect(slow.warnings).toEqual([]);
    expect(yamlDataOnly(text)?.data).toStrictEqual(slow.data);
  });
});

describe('documents the fast path leaves to the yaml package', () => {
  it.each([
    ['anchors and aliases', 'base: &base {a: 1}\ncopy: *base\n'],
    ['merge keys with an alias', 'base: &base {a: 1}\nmerged:\n  <<: *base\n  b: 2\n'],
    ['a custom tag', 'a: !custom value\n'],
    ['!!binary', 'a: !!binary aGVsbG8=\n'],
    ['!!timestamp', 'a: !!timestamp 2001-12-14\n'],
    ['!!str', 'a: !!str 123\n'],
    ['an explicit key', '? a\n: 1\n'],
    ['a collection as a key', '[a, b]: 1\n'],
    ['a flow mapping as a key', '{a: 1}: 2\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a duplicate key', 'a: 1\nb: 2\na: 3\n'],
    ['several documents', 'a: 1\n---\nb: 2\n'],
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['a reserved indicator', 'a: @x\n'],
    ['a multi-line implicit key', 'a: x\n b: y\n'],
    ['text after a quoted scalar', 'a: "x"y\n'],
    ['a mapping inside a plain value', 'a: b: c\n'],
    ['a list then a mapping at the top', '- x\nb: y\n'],
  ])('%s', (_name, text) => {
    expect(yamlDataOnly(text)).toBeUndefined();
  });

  it('a merge key without aliases is a plain key in both (YAML 1.2 has no merge keys)', () => {
    const text = '<<: {b: 1}\nc: 2\n';
    expect(yamlDataOnly(text)?.data).toStrictEqual({ '<<': { b: 1 }, c: 2 });
    expect(positioned(text).data).toStrictEqual({ '<<': { b: 1 }, c: 2 });
  });

  it('an unknown tag is a warning at its position and the value a string', () => {
    const source = parseYamlSource('tags.yaml', 'version: 1\nname: !custom value\n');
    expect(source.data).toStrictEqual({ version: 1, name: 'value' });
    expect(source.diagnostics.map((d) => [d.severity, d.code, d.location?.line, d.location?.column])).toEqual([['warning', 'yaml/tag-resolve-failed', 2, 7]]);
  });

  it.each([
    ['!!float 1', 1],
    ['!!float "1"', 1],
    ['!!float -2.5e3', -2500],
    ['!!float +.5', 0.5],
    ['!!int "12"', 12],
    ['!!int 0o17', 15],
    ['!!int 0x1F', 31],
    ['!!bool False', false],
    ['!!null ~', null],
    ['!!null', null],
  ])('a core tag reads its text as the YAML 1.2 core schema does: %s', (written, value) => {
    const source = parseYamlSource('tags.yaml', `a: ${written}\n`);
    expect(source.diagnostics).toEqual([]);
    expect(source.data).toStrictEqual({ a: value });
  });

  it.each([['!!float abc'], ['!!float 0x1F'], ['!!int 1.5'], ['!!int 1e3'], ['!!bool yes'], ['!!null 0']])('a core tag on a text its type has no form for is an error at the tag: %s', (written) => {
    const source = parseYamlSource('tags.yaml', `version: 1\na: ${written}\n`);
    expect(source.diagnostics.map((d) => [d.severity, d.code, d.location?.line, d.location?.column])).toEqual([['error', 'yaml/tag-resolve-failed', 2, 4]]);
  });

  it('a file that declares %YAML 1.1 keeps YAML 1.1\'s tags: !!bool yes is true, !!int 0b101 is 5', () => {
    const source = parseYamlSource('tags.yaml', '%YAML 1.1\n---\na: !!bool yes\nb: !!int 0b101\n');
    expect(source.diagnostics).toEqual([]);
    expect(source.data).toStrictEqual({ a: true, b: 5 });
  });

  it('a duplicate key names the key and both places', () => {
    const source = parseYamlSource('dup.yaml', 'version: 1\nroles:\n  - id: r1\n    name: A\n    name: B\n');
    expect(source.data).toBeUndefined();
    expect(source.diagnostics).toEqual([
      expect.objectContaining({
        code: 'yaml/duplicate-key',
        value: 'name',
        location: { file: 'dup.yaml', line: 5, column: 5 },
        message: 'The key "name" appears twice in the same mapping (first at line 4, column 5); keys must be unique.',
      }),
    ]);
  });

  it('the expanded-size limit still holds (the fast path never expands aliases)', () => {
    // Each level holds ten aliases of the one before: the sixth (line 6) stands for 1.1 million nodes, from 70 written.
    const rows = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [index, name] of ['b', 'c', 'd', 'e', 'f', 'g'].entries()) rows.push(`${name}: &${name} [${Array(10).fill(`*${String.fromCharCode(97 + index)}`).join(', ')}]`);
    const source = parseYamlSource('laughs.yaml', `${rows.join('\n')}\n`);
    expect(source.data).toBeUndefined();
    expect(source.diagnostics.map((d) => [d.code, d.location?.line])).toEqual([['yaml/alias-limit', 6]]);
  });

  it('a few aliases are expanded as the yaml package does', () => {
    const source = parseYamlSource('aliases.yaml', 'base: &base {a: 1}\ncopy: *base\n');
    expect(source.diagnostics).toEqual([]);
    expect(source.data).toStrictEqual({ base: { a: 1 }, copy: { a: 1 } });
  });
});

describe('aliases expanded under the size bound give what the yaml package gives', () => {
  it.each([
    ['an alias of a mapping', 'base: &base {a: 1, b: [x, y]}\ncopy: *base\n'],
    ['an alias of a scalar, also as a key', 'name: &n field\nother: *n\n*n : 3\n'],
    ['an anchor defined again: an alias takes the latest', 'a: &x 1\nb: *x\nc: &x 2\nd: *x\n'],
    ['anchors inside anchors', 'outer: &o {inner: &i [1, 2], more: *i}\ncopy: *o\nagain: *i\n'],
    ['merge keys in a YAML 1.1 document', '%YAML 1.1\n---\nbase: &b {a: 1, b: 2}\nother: &c {c: 3}\nm: {<<: [*b, *c], a: 9}\nn: {<<: *b}\n'],
    ['a merge key in YAML 1.2 is a plain key', 'base: &b {a: 1}\nm: {<<: *b}\n'],
    ['__proto__ and inherited names as keys', '__proto__: &p {a: 1}\ntoString: *p\nconstructor: 2\n'],
    ['a null key and an empty value', '~: &e\nk: *e\n'],
    ['collection keys', '[a, b]: 1\n{x: 1, y: [z]}: 2\n'],
    ['an aliased list in a list', 'l: &l [1, [2, 3]]\nm: [*l, *l]\n'],
  ])('%s', (_name, text) => {
    const doc = parseDocument(text, { uniqueKeys: true, strict: true, stringKeys: false });
    expect(doc.errors).toEqual([]);
    expect(expandYamlDocument(doc, 1_000)).toStrictEqual(doc.toJS({ maxAliasCount: -1 }));
  });

  it('counts each alias as the nodes it stands for, and refuses past the limit', () => {
    // base: 1 mapping + 2 keys + 2 values = 5 nodes; the document: its mapping, then a key and 5 nodes three times.
    const doc = parseDocument('base: &b {a: 1, c: 2}\nx: *b\ny: *b\n');
    expect(() => expandYamlDocument(doc, 19)).not.toThrow();
    expect(() => expandYamlDocument(doc, 18)).toThrow(/more than 18 nodes/);
  });
});

describe('positions come from the positioned document, built only when asked', () => {
  it('locates a list item, a key and a scalar in a document read by the fast path', () => {
    const text = 'version: 1\n# a comment\nroles:\n  - id: r1\n    name: A\n  - id: r2\n    name: "B"\n';
    expect(yamlDataOnly(text)).toBeDefined();
    const source = parseYamlSource('roles.yaml', text);
    expect(source.diagnostics).toEqual([]);
    expect(source.locate(['roles', 1])).toEqual({ file: 'roles.yaml', line: 6, column: 3 });
    expect(source.locate(['roles', 1, 'name'])).toEqual({ file: 'roles.yaml', line: 7, column: 11 });
    expect(source.locate(['roles', 1, 'name'], { key: true })).toEqual({ file: 'roles.yaml', line: 7, column: 5 });
  });
});

/** Values as people write them, with the tricky scalars as strings and as bare words. */
const tricky = fc.constantFrom(...scalars.filter((scalar) => !/^["']/.test(scalar) && !scalar.includes('#')));
const leaf = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), tricky);
// Not "constructor": toStrictEqual compares objects' `constructor` properties by identity, so two equal
// objects holding that key (as two distinct `{}`) would compare unequal whatever the parsers did.
const key = fc.oneof(fc.string({ minLength: 1 }), tricky.filter((text) => text !== '')).filter((text) => text !== 'constructor');
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
})).node;

describe('property: both paths read the same data', () => {
  it('for block and flow documents written by the yaml package, with bare tricky words', () => {
    let fastRuns = 0;
    fc.assert(
      fc.property(value, fc.boolean(), fc.array(tricky, { maxLength: 4 }), (data, flow, words) => {
        const text = `${stringify({ data, words: words.join(' ') }, { collectionStyle: flow ? 'flow' : 'block' })}bare:\n${words.map((word) => `  - ${word}`).join('\n')}\n`;
        const slow = positioned(text);
        const fast = yamlDataOnly(text);
        if (fast === undefined) return;
        fastRuns += 1;
        expect(slow.errors).toEqual([]);
        expect(fast.data).toStrictEqual(slow.data);
      }),
      { numRuns: 400 },
    );
    // The comparison must actually run: random strings often hold "!", "&" or "?", which the fast path declines.
    expect(fastRuns).toBeGreaterThan(100);
  });
});

describe('every YAML file of the repository', () => {
  // Examples and fixtures are YAML as people write it: the fast path must read each exactly as the yaml package does.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const files = ['examples', 'test']
    .flatMap((directory) => readdirSync(join(root, directory), { recursive: true, encoding: 'utf8' }).map((name) => join(directory, name)))
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();

  it('holds files to compare', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('%s', (name) => {
    const text = readFileSync(join(root, name), 'utf8');
    const slow = positioned(text);
    const fast = yamlDataOnly(text);
    if (slow.errors.length > 0) {
      expect(fast).toBeUndefined();
      return;
    }
    if (fast !== undefined) expect(fast.data).toStrictEqual(slow.data);
  });
});
