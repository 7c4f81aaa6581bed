/**
 * A large config file is never positioned whole (large-locate.ts): a path is found by scanning
 * its text down the path, and only a small node's text is positioned. The locations must be the
 * ones the whole file's positioned document gives, for every node, in YAML as people write it
 * and in JSON minified or indented; what the scan cannot follow is located at the last node it
 * could, never at a wrong one. End to end: one broken rule in a config of several megabytes is
 * reported at its line and column, and a minified JSON line is shown around the column. YAML
 * that only the positioned parse can read (anchors, tags, errors) is refused past 16 MiB, at
 * what needs it, instead of running out of memory.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import type { ConfigPath } from '../../src/kinds/toolkit/contract.js';
import { largeFileLocate, snippetChars } from '../../src/engine/config/large-locate.js';
import { effectiveYamlMaxBytes } from '../../src/engine/config/effective.js';
import { largeLocateChars, largestPositionedChars, parseJsonSource, parseYamlSource } from '../../src/engine/config/source.js';
import { CLI } from '../support/cli.js';

/** Positions of a small text, as the whole file's are made (its own positioned document). */
function positions(file: string, json: boolean) {
  return (snippet: string) => {
    const source = json ? parseJsonSource(file, snippet) : parseYamlSource(file, snippet);
    return { locate: source.locate, data: () => source.data };
  };
}

/** Every path of `value`, containers before their children. */
function allPaths(value: JsonValue, path: (string | number)[] = [], into: ConfigPath[] = []): ConfigPath[] {
  into.push([...path]);
  if (Array.isArray(value)) value.forEach((item, index) => allPaths(item, [...path, index], into));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) allPaths(item, [...path, key], into);
  return into;
}

/** A group's category trees, three levels below each tree. */
function categories(seed: number): JsonValue {
  return [1, 2].map((tree) => ({
    title: `Tree ${seed}.${tree}`,
    categories: [1, 2, 3].map((branch) => ({ title: `Branch ${tree}.${branch}`, categories: [1, 2].map((leaf) => ({ title: `Leaf ${seed} ${branch}.${leaf}` })) })),
  }));
}

/** A YAML config as people write it: block style, comments, blank lines, quoted keys, lists at their key's indentation, block scalars. */
function yamlConfig(groups: number, { flush = false } = {}): string {
  const lines = ['# The organization', 'version: 1', 'portal:', '  url: https://portal.example.com/portal', 'groups:'];
  // flush: the list of groups at its key's indentation.
  const pad = flush ? '' : '  ';
  for (let index = 0; index < groups; index += 1) {
    lines.push(`${pad}- id: ${String(index).padStart(32, '0')}`, `${pad}  title: "Group ${index}: quoted"`);
    if (index % 3 === 0) lines.push(`${pad}  # a comment at the key indentation`, '', `${pad}  description: |`, `${pad}    - not an item`, `${pad}    key: not a key`);
    lines.push(index % 2 === 0 ? `${pad}  categorySchema:` : `${pad}  'categorySchema':`);
    const tree = (nodes: JsonValue, indent: string, sameIndent: boolean): void => {
      for (const node of nodes as { title: string; categories?: JsonValue }[]) {
        const dash = sameIndent ? indent.slice(2) : indent;
        lines.push(`${dash}- title: ${node.title}`);
        if (node.categories) {
          lines.push(`${dash}  categories:`);
          tree(node.categories, `${dash}    `, index % 4 === 1);
        }
      }
    };
    tree(categories(index), `${pad}    `, false);
  }
  lines.push('items:', '  - { id: flow0000000000000000000000000001, status: deprecated }');
  return `${lines.join('\n')}\n`;
}

/** A config `validate` accepts: the portal, and groups with their category schemas in block style. */
function groupsConfig(groups: number): string {
  const lines = ['version: 1', 'portal:', '  url: https://portal.example.com/portal', '  edition: self-managed', '  version: "11.3"', 'groups:'];
  const tree = (nodes: JsonValue, indent: string): void => {
    for (const node of nodes as { title: string; categories?: JsonValue }[]) {
      lines.push(`${indent}- title: ${node.title}`);
      if (node.categories) {
        lines.push(`${indent}  categories:`);
        tree(node.categories, `${indent}    `);
      }
    }
  };
  for (let index = 0; index < groups; index += 1) {
    lines.push(`  - id: a${String(index).padStart(31, '0')}`, '    categorySchema:');
    tree(categories(index), '      ');
  }
  return `${lines.join('\n')}\n`;
}

const file = 'large.yaml';

describe('a large file is located without positioning it whole', () => {
  it.each([{ flush: false }, { flush: true }, { flush: false, crlf: true }])('YAML: every node and every key where the whole document puts it (%o)', ({ crlf, ...layout }) => {
    const text = crlf ? yamlConfig(300, layout).replaceAll('\n', '\r\n') : yamlConfig(300, layout);
    expect(text.length).toBeGreaterThan(4 * snippetChars);
    const whole = parseYamlSource(file, text);
    const data = whole.data as JsonValue;
    expect((data as { groups: unknown[] }).groups).toHaveLength(300);
    const locate = largeFileLocate(file, text, data, false, positions(file, false));
    const paths = allPaths(data);
    for (const path of paths) {
      expect({ path, at: locate(path) }).toEqual({ path, at: whole.locate(path) });
      expect({ path, key: locate(path, { key: true }) }).toEqual({ path, key: whole.locate(path, { key: true }) });
    }
    // Paths that do not exist: the deepest node that does, as the whole document answers.
    for (const path of [['groups', 500], ['groups', 7, 'nothing'], ['nothing']] as ConfigPath[]) expect(locate(path)).toEqual(whole.locate(path));
  });

  it('JSON, minified and indented: every node and key where the whole document puts it', () => {
    const data: JsonValue = JSON.parse(JSON.stringify({ version: 1, groups: Array.from({ length: 300 }, (_, index) => ({ id: `g${index}`, 'a "quoted" key': index, categorySchema: categories(index) })) }));
    for (const text of [JSON.stringify(data), JSON.stringify(data, null, 2)]) {
      expect(text.length).toBeGreaterThan(2 * snippetChars);
      const whole = parseJsonSource('large.json', text);
      const locate = largeFileLocate('large.json', text, data, true, positions('large.json', true));
      for (const path of allPaths(data).filter((_, index) => index % 7 === 0)) {
        expect({ path, at: locate(path) }).toEqual({ path, at: whole.locate(path) });
        expect({ path, key: locate(path, { key: true }) }).toEqual({ path, key: whole.locate(path, { key: true }) });
      }
    }
  });

  it('what the scan cannot follow is located at the last node it could; a snippet that says other data, at the file start', () => {
    // A large list in flow style: the scan stops where the list starts.
    const flow = `version: 1\nitems: [${Array.from({ length: 4000 }, (_, index) => `{ id: item${index}, status: deprecated }`).join(',\n  ')}]\n`;
    const data = parseYamlSource(file, flow).data as JsonValue;
    expect(flow.length).toBeGreaterThan(snippetChars);
    const locate = largeFileLocate(file, flow, data, false, positions(file, false));
    expect(locate(['items', 3000, 'status'])).toEqual({ file, line: 2, column: 8 });
    // Data that is not the file's: the check of the snippet fails, and nothing wrong is said.
    const text = yamlConfig(60);
    const other = parseYamlSource(file, text).data as { groups: { title: string }[] };
    other.groups[42] = { ...other.groups[42], title: 'Another title' } as { title: string };
    expect(largeFileLocate(file, text, other as unknown as JsonValue, false, positions(file, false))(['groups', 42, 'title'])).toEqual({ file, line: 1, column: 1 });
  });
});

describe('validate of a config of several megabytes with one broken rule', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const run = promisify(execFile);
  const validate = async (files: Record<string, string>, config = '.'): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'large-locate-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const result = await run(process.execPath, [CLI, 'validate', join(dir, config), '--no-color'], { cwd: dir, maxBuffer: 1 << 20 }).then(
      () => ({ code: 0, stderr: '', stdout: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    return `${result.stdout}${result.stderr}`;
  };

  it('YAML: the rule is reported at its line and column, and the file was never positioned whole', async () => {
    const lines = groupsConfig(5500).split('\n');
    const broken = lines.findLastIndex((line) => line.includes('- title: Leaf'));
    lines[broken] = (lines[broken] as string).replace('- title: Leaf', '- title: Leaf, broken');
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(largeLocateChars);
    const output = await validate({ 'groups.yaml': text });
    const column = (lines[broken] as string).indexOf('Leaf, broken') + 1;
    expect(output).toContain(`groups.yaml:${broken + 1}:${column}: error: The characters / and , are reserved in category titles.`);
    expect(output).toMatch(/1 error/);
  });

  it('YAML: an entry holding a reference is located too (its data is resolved in place, its text is not)', async () => {
    const lines = groupsConfig(5500).split('\n');
    const broken = lines.findLastIndex((line) => line.includes('- title: Leaf'));
    lines[broken] = (lines[broken] as string).replace('- title: Leaf', '- title: Leaf, broken');
    // A tree title of the same group: `$${` is the escape for a literal `${`, resolved like any reference.
    const tree = lines.findLastIndex((line, index) => index < broken && line.includes('- title: Tree'));
    lines[tree] = `${lines[tree] as string} $\${price}`;
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(largeLocateChars);
    const output = await validate({ 'groups.yaml': text });
    const column = (lines[broken] as string).indexOf('Leaf, broken') + 1;
    expect(output).toContain(`groups.yaml:${broken + 1}:${column}: error: The characters / and , are reserved in category titles.`);
    expect(output).toMatch(/1 error/);
  });

  it('YAML too large to position whole, with an anchor: refused at the anchor', async () => {
    const lines = groupsConfig(Math.ceil((largestPositionedChars + 1000) / 900)).split('\n');
    const at = lines.findIndex((line, index) => index > 5000 && line.startsWith('  - id: '));
    lines.splice(at, 1, '  - &first', (lines[at] as string).replace('  - id: ', '    id: '));
    const output = await validate({ 'groups.yaml': lines.join('\n') });
    expect(output).toContain(`groups.yaml:${at + 1}:5: error: The file is 16.`);
    expect(output).toContain('(yaml/large-file-features)');
    expect(output).toMatch(/1 error/);
  });

  it('config: the YAML view of a config past 16 MiB is refused, naming --format json, which shows it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'large-locate-'));
    dirs.push(dir);
    const text = groupsConfig(Math.ceil((effectiveYamlMaxBytes + 1000) / 900));
    await writeFile(join(dir, 'groups.yaml'), text);
    const refused = await run(process.execPath, [CLI, 'config', dir], { cwd: dir }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: The config is 16\.\d MiB of files: the YAML view, with the file and line of every value, is shown for configs up to 16 MiB .* Use --format json/);
    const json = await run(process.execPath, [CLI, 'config', dir, '--format', 'json'], { cwd: dir, maxBuffer: 1 << 26 });
    expect((JSON.parse(json.stdout) as { groups: unknown[] }).groups).toHaveLength(Math.ceil((effectiveYamlMaxBytes + 1000) / 900));
  });

  it('JSON on one line: the rule at its column, the line shown around it with the caret under it', async () => {
    const config = JSON.parse(JSON.stringify({ version: 1, portal: { url: 'https://portal.example.com/portal', edition: 'self-managed', version: '11.3' }, groups: Array.from({ length: 9000 }, (_, index) => ({ id: String(index).padStart(32, '0'), categorySchema: categories(index) })) })) as {
      groups: { categorySchema: { title: string }[] }[];
    };
    (config.groups[8000]?.categorySchema[1] as { title: string }).title = 'Tree, broken';
    const text = JSON.stringify(config);
    expect(text.length).toBeGreaterThan(largeLocateChars);
    const output = await validate({ 'portalctl.json': text }, 'portalctl.json');
    const column = text.indexOf('"Tree, broken"') + 1;
    expect(output).toContain(`portalctl.json:1:${column}: error: The characters / and , are reserved in category titles.`);
    const [, excerpt, caret] = output.split('\n');
    expect(excerpt?.length).toBeLessThan(200);
    expect(caret?.length).toBeLessThan(200);
    // The caret stands under the value's opening quote.
    expect(excerpt?.[caret?.indexOf('^') ?? -1]).toBe('"');
    expect(excerpt?.slice(caret?.indexOf('^')).startsWith('"Tree, broken"')).toBe(true);
  });
});

describe('a YAML file too large to position whole, which the fast path cannot read', () => {
  /** Groups enough for `chars` characters, with `edit` applied to the lines. */
  const largeYaml = (chars: number, edit: (lines: string[]) => void): { text: string; lines: string[] } => {
    const lines = groupsConfig(Math.ceil(chars / 900)).split('\n');
    edit(lines);
    return { text: lines.join('\n'), lines };
  };

  it('an anchor: refused at the anchor, naming the limit and what to do, without positioning anything', () => {
    const { text, lines } = largeYaml(largestPositionedChars + 1000, (lines) => {
      const at = lines.findIndex((line, index) => index > 5000 && line.startsWith('  - id: '));
      lines[at] = (lines[at] as string).replace('  - id: ', '  - &first\n    id: ');
    });
    expect(text.length).toBeGreaterThan(largestPositionedChars);
    const anchorLine = lines.join('\n').split('\n').findIndex((line) => line.includes('&first')) + 1;
    const source = parseYamlSource('groups.yaml', text);
    expect(source.data).toBeUndefined();
    expect(source.diagnostics).toEqual([
      expect.objectContaining({
        code: 'yaml/large-file-features',
        location: { file: 'groups.yaml', line: anchorLine, column: 5 },
        message: expect.stringMatching(/^The file is 16\.\d MiB and uses an anchor, tag, explicit or collection key, or directive \(the first is here\), which portalctl reads only in files under 16 MiB/),
        expected: expect.stringContaining('write the values out, split the file, or write it as JSON'),
      }),
    ]);
  });

  it('a duplicate key: refused at it, as js-yaml reads it', () => {
    const { text, lines } = largeYaml(largestPositionedChars + 1000, (lines) => {
      const at = lines.findLastIndex((line) => line.startsWith('    categorySchema:'));
      lines.splice(at, 0, '    categorySchema: []');
    });
    const duplicate = lines.findLastIndex((line) => line.startsWith('    categorySchema:')) + 1;
    const source = parseYamlSource('groups.yaml', text);
    expect(source.data).toBeUndefined();
    expect(source.diagnostics).toHaveLength(1);
    expect(source.diagnostics[0]).toMatchObject({ code: 'yaml/invalid', message: 'Invalid YAML: duplicated mapping key.', location: { file: 'groups.yaml', line: duplicate } });
  });
});
