/**
 * What an editor sees: the published schema, run through a standard JSON Schema validator (ajv,
 * as the YAML language server would run it), rejects the same over-long title and reserved
 * character that `validate` rejects, says why on hover (markdownDescription, examples), and
 * every example config names it on its first line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../support/cli.js';

const schemaFile = join(REPO_ROOT, 'schemas/portalctl.schema.json');
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
// An editor's validator: the published schema as it is, nothing of portalctl's code.
const editor = new Ajv({ allErrors: true, strict: false }).compile(schema);

const work = mkdtempSync(join(tmpdir(), 'portalctl-editor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LONG_TITLE = 'T'.repeat(120);
const configWithTitle = (title: string): string =>
  `version: 1\nportal: { edition: self-managed, version: "11.3" }\norganization:\n  categorySchema:\n    - title: ${JSON.stringify(title)}\n`;

function editorErrors(yaml: string): { keyword: string; instancePath: string }[] {
  editor(parse(yaml));
  return (editor.errors ?? []).map(({ keyword, instancePath }) => ({ keyword, instancePath }));
}

function validateWithCli(name: string, yaml: string): { status: number | null; stdout: string } {
  const file = join(work, name);
  writeFileSync(file, yaml);
  const result = spawnSync(process.execPath, [CLI, 'validate', file, '--no-color'], { encoding: 'utf8', cwd: work });
  return { status: result.status, stdout: result.stdout };
}

describe('the schema in the editor', () => {
  it('rejects a 120-character category title, as validate does', () => {
    expect(editorErrors(configWithTitle(LONG_TITLE))).toContainEqual({ keyword: 'maxLength', instancePath: '/organization/categorySchema/0/title' });
    const cli = validateWithCli('long.yaml', configWithTitle(LONG_TITLE));
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain('long.yaml:5:14: error: An organization category title has at most 100 characters; this one has 120. [organization.categorySchema] (category-schema/title-too-long)');
    // Reported once: the schema's limit and the rule are the same problem.
    expect(cli.stdout).toContain('1 error, 0 warnings');
  });

  it('rejects a reserved / in a title, as validate does', () => {
    expect(editorErrors(configWithTitle('Roads/Bridges'))).toContainEqual({ keyword: 'pattern', instancePath: '/organization/categorySchema/0/title' });
    const cli = validateWithCli('reserved.yaml', configWithTitle('Roads/Bridges'));
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain('reserved.yaml:5:14: error: The characters / and , are reserved in category titles. [organization.categorySchema] (category-schema/reserved-character)');
    expect(cli.stdout).toContain('1 error, 0 warnings');
  });

  it('accepts what validate accepts: a title at the limit, and a reference the editor cannot resolve', () => {
    expect(editorErrors(configWithTitle('T'.repeat(100)))).toEqual([]);
    expect(editorErrors(configWithTitle('${file:titles/roads.txt}'))).toEqual([]);
    expect(validateWithCli('limit.yaml', configWithTitle('T'.repeat(100))).status).toBe(0);
  });

  it('rejects the other limits validate checks: six trees, a bound of the password policy, a long workspace name', () => {
    const sixTrees = `version: 1\norganization:\n  categorySchema: [${Array.from({ length: 6 }, (_, n) => `{ title: T${n} }`).join(', ')}]\n`;
    expect(editorErrors(sixTrees)).toContainEqual({ keyword: 'maxItems', instancePath: '/organization/categorySchema' });
    expect(editorErrors('version: 1\norganization:\n  securityPolicy: { minLength: 7 }\n')).toContainEqual({ keyword: 'minimum', instancePath: '/organization/securityPolicy/minLength' });
    const workspace = `version: 1\ncollaborations:\n  - id: c1\n    workspaces:\n      - { id: w1, name: ${'n'.repeat(101)} }\n`;
    expect(editorErrors(workspace)).toContainEqual({ keyword: 'maxLength', instancePath: '/collaborations/0/workspaces/0/name' });
  });

  it('explains the limits on hover, with examples', () => {
    const organization = schema['properties'] as Record<string, { properties: Record<string, { items: { properties: Record<string, Record<string, unknown>> } }> }>;
    const title = organization['organization']?.properties['categorySchema']?.items.properties['title'];
    expect(title).toMatchObject({ maxLength: 100, patternErrorMessage: 'The characters / and , are reserved in category titles.', examples: expect.any(Array) });
    expect(title?.['markdownDescription']).toContain('At most 100 characters.');
  });

  it('every example config starts with the yaml-language-server line naming the schema, and validates in the editor', () => {
    const examples = ['full', 'minimal', 'legacy'].flatMap((dir) =>
      readdirSync(join(REPO_ROOT, 'examples', dir))
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => join(REPO_ROOT, 'examples', dir, name)),
    );
    expect(examples.length).toBeGreaterThan(5);
    for (const file of examples) {
      const text = readFileSync(file, 'utf8');
      const match = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
      expect(match, file).not.toBeNull();
      expect(resolve(dirname(file), match?.[1] ?? '')).toBe(schemaFile);
      expect(existsSync(resolve(dirname(file), match?.[1] ?? ''))).toBe(true);
      expect(editorErrors(text), file).toEqual([]);
    }
  });
});
