/**
 * Hostile and odd config files through the real CLI: every one ends with a clear diagnostic at
 * file:line:column and exit 1, never a hang, a stack overflow message or a library's advice.
 */
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';

const directory = mkdtempSync(join(tmpdir(), 'portalctl-hostile-files-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const header = 'version: 1\nportal:\n  url: https://gis.example.com/portal/sharing/rest\n  edition: self-managed\n  version: "11.3"\n';

interface Result {
  status: number | null;
  /** 'SIGKILL' when the validation was still running after HUNG_AFTER_MS. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * These files are about hangs, so each validation (well under a second) is killed after a
 * minute and fails by its assertions: the suite's own hang guard would wait ten.
 */
const HUNG_AFTER_MS = 60_000;

/** `portalctl validate <path>`. */
function validate(path: string, env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'validate', path, '--no-color'], { cwd: directory, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: HUNG_AFTER_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status, signal) => {
      resolve({ status, signal, stdout, stderr });
    });
  });
}

function file(name: string, content: string): string {
  writeFileSync(join(directory, name), content);
  return name;
}

describe('hostile files through portalctl validate', () => {
  it('/dev/zero is refused before reading, not read forever', async () => {
    const result = await validate('/dev/zero');
    expect(result.stdout).toContain('/dev/zero:1:1: error: The path is a device; a config is read from regular files only. (source/not-a-file)');
    expect(result.status).toBe(1);
  });

  it('a FIFO named as the config is refused without waiting for a writer', async () => {
    const fifo = join(directory, 'config.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    try {
      const result = await validate('config.yaml');
      expect(result.signal, 'still waiting for a writer after a minute').toBeNull();
      expect(result.stdout).toContain('config.yaml:1:1: error: The path is a named pipe; a config is read from regular files only. (source/not-a-file)');
      expect(result.status).toBe(1);
    } finally {
      rmSync(fifo);
    }
  });

  it('a named pipe among a directory\'s config files is said, not skipped; a subdirectory named *.yaml is not read', async () => {
    const config = join(directory, 'piped');
    mkdirSync(join(config, 'nested.yaml'), { recursive: true });
    writeFileSync(join(config, 'portalctl.yaml'), header);
    expect(spawnSync('mkfifo', [join(config, 'roles.yaml')]).status).toBe(0);
    try {
      const result = await validate('piped');
      expect(result.signal, 'still waiting for a writer after a minute').toBeNull();
      expect(result.stdout).toBe(
        'piped/roles.yaml:1:1: error: The path is a named pipe; a config is read from regular files only. (source/not-a-file)\n  expected: a regular YAML or JSON file\n1 error, 0 warnings\n',
      );
      expect(result.status).toBe(1);
    } finally {
      rmSync(config, { recursive: true });
    }
  });

  it('a JSON syntax error points at its line and column, not at 1:1', async () => {
    const name = file('broken.json', '{\n  "version": 1,\n  "roles": [\n    {"id": "r1", "name": "A",},\n  ]\n}\n');
    const result = await validate(name);
    expect(result.stdout).toContain('broken.json:4:30: error: Invalid JSON: Unexpected "}" after ","; JSON allows no trailing comma. (json/syntax)');
    expect(result.status).toBe(1);
  });

  it('deeply nested flow YAML is "too deep" at the bracket, with a short caret line', async () => {
    const name = file('deep.yaml', `${header}x: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`);
    const result = await validate(name);
    // The 65th bracket opens level 65: line 6, after "x: " and 64 brackets.
    expect(result.stdout).toContain('deep.yaml:6:68: error: The document is nested more than 64 levels deep. (source/too-deep)');
    expect(result.stdout).not.toMatch(/call stack/i);
    expect(result.stdout).not.toMatch(/ {200}/);
    expect(result.status).toBe(1);
  });

  it('a file with CR-only line breaks (classic Mac OS) is located by its lines, fast path or positioned, and shows the line', async () => {
    const mac = (text: string): string => text.replaceAll('\n', '\r');
    const plain = await validate(file('mac.yaml', mac(`${header}organization:\n  securityPolicy:\n    minLength: 1200\n`)));
    expect(plain.stdout).toBe(
      'mac.yaml:8:16: error: securityPolicy.minLength is out of bounds. [organization.securityPolicy] (security-policy/out-of-bounds)\n' +
        '  8 |     minLength: 1200\n' +
        '    |                ^\n' +
        '  value: 1200; expected: 8 to 1000\n' +
        '1 error, 0 warnings\n',
    );
    // An anchor sends the file to the `yaml` package, which read the whole file as one line of errors.
    const anchored = await validate(file('mac-anchor.yaml', mac('version: 1\nportal: &portal\n  url: https://gis.example.com/portal/sharing/rest\n  edition: bogus\n  version: "11.3"\n')));
    expect(anchored.stdout).toBe(
      'mac-anchor.yaml:4:12: error: portal.edition has a value that is not allowed. (schema/invalid-value)\n' +
        '  4 |   edition: bogus\n' +
        '    |            ^\n' +
        '  value: "bogus"; expected: self-managed | hosted\n' +
        '1 error, 0 warnings\n',
    );
    const json = await validate(file('mac.json', mac('{\n  "version": 1,\n  "roles": [\n    {"id": "r1", "name": "A",},\n  ]\n}\n')));
    expect(json.stdout).toContain('mac.json:4:30: error: Invalid JSON: Unexpected "}" after ","; JSON allows no trailing comma. (json/syntax)\n  4 |     {"id": "r1", "name": "A",},\n');
    writeFileSync(join(directory, 'mac-latin1.yaml'), Buffer.concat([Buffer.from('version: 1\rportal: '), Buffer.from([0xe9]), Buffer.from('\r')]));
    const encoding = await validate('mac-latin1.yaml');
    expect(encoding.stdout).toContain('mac-latin1.yaml:2:9: error: The file is not valid UTF-8 text (at byte offset 19). (source/encoding)');
    for (const result of [plain, anchored, json, encoding]) expect(result.status).toBe(1);
  });

  it('a file starting with a UTF-8 byte-order mark: columns and the shown line 1 without it', async () => {
    const bom = '\ufeff';
    const yaml = await validate(file('bom.yaml', `${bom}portal: { url: https://gis.example.com/portal/sharing/rest, edition: bogus, version: "11.3" }\nversion: 1\n`));
    expect(yaml.stdout).toBe(
      'bom.yaml:1:70: error: portal.edition has a value that is not allowed. (schema/invalid-value)\n' +
        '  1 | portal: { url: https://gis.example.com/portal/sharing/rest, edition: bogus, version: "11.3" }\n' +
        `    | ${' '.repeat(69)}^\n` +
        '  value: "bogus"; expected: self-managed | hosted\n' +
        '1 error, 0 warnings\n',
    );
    const json = await validate(file('bom.json', `${bom}{"version": 2}\n`));
    expect(json.stdout).toContain('bom.json:1:13: error: This config is written in format version 2; this portalctl reads version 1: a later portalctl may read it. (schema/invalid-value)\n  1 | {"version": 2}\n    |             ^\n');
    // Positions of what stops the reading are counted in the bytes: the mark's three must not shift line 1's columns.
    writeFileSync(join(directory, 'bom-latin1.yaml'), Buffer.concat([Buffer.from(`${bom}version: `), Buffer.from([0xe9]), Buffer.from('\n')]));
    const encoding = await validate('bom-latin1.yaml');
    expect(encoding.stdout).toContain('bom-latin1.yaml:1:10: error: The file is not valid UTF-8 text (at byte offset 12). (source/encoding)');
    writeFileSync(join(directory, 'bom-binary.yaml'), Buffer.from(`${bom}version: 1\u0000\n`));
    const binary = await validate('bom-binary.yaml');
    expect(binary.stdout).toContain('bom-binary.yaml:1:11: error: The file contains binary data (a NUL byte at offset 13); a config file is YAML or JSON text. (source/binary)');
    for (const result of [yaml, json, encoding, binary]) expect(result.status).toBe(1);
  });

  it('a complex key (`? [a, b]`) is said at the key, not as an unknown property "[ a, b ]" at the top of the file', async () => {
    const result = await validate(file('complex-key.yaml', `${header}? [a, b]\n: value\n`));
    expect(result.stdout).toBe(
      "complex-key.yaml:6:3: error: This key is a list ([ a, b ]); a config's keys are names, and nothing in a config takes a list as a key. (yaml/collection-key)\n" +
        '  6 | ? [a, b]\n' +
        '    |   ^\n' +
        '  expected: a name (text) as the key\n' +
        '1 error, 0 warnings\n',
    );
    expect(result.status).toBe(1);
  });

  it('a duplicated key is named, with where it was first declared', async () => {
    const name = file('duplicate.yaml', `${header}roles:\n  - id: r1\n    name: First\n    description: One\n    name: Second\n`);
    const result = await validate(name);
    expect(result.stdout).toContain('duplicate.yaml:10:5: error: The key "name" appears twice in the same mapping (first at line 8, column 5); keys must be unique. (yaml/duplicate-key)');
    expect(result.stdout).toContain('value: "name"; expected: each key once');
    expect(result.status).toBe(1);
  });

  it('a key repeated in a JSON object is named at the repeat, with where it was first declared, as in YAML', async () => {
    const name = file('duplicate.json', '{\n  "version": 1,\n  "roles": [\n    {"id": "r1", "name": "First",\n     "description": "One", "name": "Second"}\n  ]\n}\n');
    const result = await validate(name);
    expect(result.stdout).toBe(
      'duplicate.json:5:28: error: The key "name" appears twice in the same object (first at line 4, column 18); keys must be unique. (json/duplicate-key)\n' +
        '  5 |      "description": "One", "name": "Second"}\n' +
        '    |                            ^\n' +
        '  value: "name"; expected: each key once\n' +
        '1 error, 0 warnings\n',
    );
    expect(result.status).toBe(1);
  });

  it('a key repeated at the top of a large JSON config (read off the main thread) is said too', async () => {
    const items = Array.from({ length: 20_000 }, (_, index) => `{"id": "${index.toString(16).padStart(32, '0')}", "status": "none"}`);
    const text = `{"version": 1,\n"groups": [],\n"items": [\n${items.join(',\n')}\n],\n"groups": []}\n`;
    expect(text.length).toBeGreaterThan(1 << 20);
    const name = file('large-duplicate.json', text);
    const result = await validate(name);
    expect(result.stdout).toContain('large-duplicate.json:20005:1: error: The key "groups" appears twice in the same object (first at line 2, column 1); keys must be unique. (json/duplicate-key)');
    expect(result.stdout).toContain('1 error, 0 warnings');
    expect(result.status).toBe(1);
  });

  it('a number too large to be one is said where it is written, as written (not as .inf), in YAML and in JSON; nothing is planned from it', async () => {
    const yaml = file('numbers.yaml', `${header}values:\n  big: 1e400\nroles:\n  - id: r1\n    name: Size \${var:big}\n    description: Role\n`);
    const result = await validate(yaml);
    expect(result.stdout).toBe(
      "numbers.yaml:7:8: error: This value is too large to be a number: it reads as infinity, which JSON, what the portal's API takes, cannot write. (source/non-finite-number)\n" +
        '  7 |   big: 1e400\n' +
        '    |        ^\n' +
        '  value: "1e400"; expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes\n' +
        '1 error, 0 warnings\n',
    );
    expect(result.status).toBe(1);
    const json = file('numbers.json', '{"version": 1,\n "organization": {"securityPolicy": {"minLength": -1e400}}}\n');
    const fromJson = await validate(json);
    expect(fromJson.stdout).toBe(
      "numbers.json:2:51: error: This value is too far below zero to be a number: it reads as minus infinity, which JSON, what the portal's API takes, cannot write. (source/non-finite-number)\n" +
        '  2 |  "organization": {"securityPolicy": {"minLength": -1e400}}}\n' +
        '    |                                                   ^\n' +
        '  value: "-1e400"; expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes\n' +
        '1 error, 0 warnings\n',
    );
    expect(fromJson.status).toBe(1);
    const plan = spawnSync(process.execPath, [CLI, 'plan', yaml, '--refresh=false', '--state', 'numbers.state.json', '--no-color'], { cwd: directory, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(plan.stderr).toContain('numbers.yaml:7:8: error: This value is too large to be a number');
    expect(plan.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');
    expect(`${plan.stdout}${plan.stderr}`).not.toContain('Infinity');
    expect(plan.status).toBe(1);
  });

  it('several documents in one file get a clear message, not a library call to make', async () => {
    const name = file('multi.yaml', `${header}---\nroles: []\n`);
    const result = await validate(name);
    expect(result.stdout).toContain('multi.yaml:6:1: error: The file holds more than one YAML document (a second starts here); a config file is one document. (yaml/multiple-docs)');
    expect(result.stdout).not.toContain('parseAllDocuments');
    expect(result.status).toBe(1);
  });

  it("a reference to portalctl's own credential is refused", async () => {
    const name = file('credential.yaml', `${header}roles:\n  - id: r1\n    name: Leaky\n    description: token is \${env:PORTALCTL_TOKEN}\n`);
    const result = await validate(name, { PORTALCTL_TOKEN: 'secret-token-value' });
    expect(result.stdout).toContain('credential.yaml:9:18: error: PORTALCTL_TOKEN holds portalctl\'s own credential; it cannot be referenced from the config');
    expect(result.stdout).toContain('(reference/credential)');
    expect(result.stdout).not.toContain('secret-token-value');
    expect(result.status).toBe(1);
  });

  it('a workspace name of 51 emoji is too long as the portal counts (UTF-16 units), though only 51 code points', async () => {
    const name = file(
      'emoji.yaml',
      `${header}collaborations:\n  - id: c0ffee\n    workspaces:\n      - id: w1\n        name: "${'😀'.repeat(51)}"\n`,
    );
    const result = await validate(name);
    expect(result.stdout).toContain('emoji.yaml:10:15: error: A workspace name has at most 100 characters; this one has 102.');
    expect(result.status).toBe(1);
    const fits = file('emoji-fits.yaml', `${header}collaborations:\n  - id: c0ffee\n    workspaces:\n      - id: w1\n        name: "${'😀'.repeat(50)}"\n`);
    const fitting = await validate(fits);
    expect(fitting.stdout).toContain('0 errors');
    expect(fitting.status).toBe(0);
  });
});
