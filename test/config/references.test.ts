/** `${...}` references: the `$${` escape and the credential variables that may not be referenced. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/engine/config/index.js';
import { redactor, resolveReferences, unsetEnvIn } from '../../src/engine/config/references.js';
import { registry } from '../../src/registry.js';
import type { JsonValue } from '../../src/core/json.js';

const context = (env: Record<string, string>) => ({ file: '/nowhere/portalctl.yaml', env, locate: (path: readonly (string | number)[]) => ({ file: 'portalctl.yaml', line: path.length, column: 1 }) });

describe('references', () => {
  it('$${ writes a literal ${, resolving nothing', () => {
    const data: JsonValue = { roles: [{ description: 'Use $${env:HOME} in scripts; home is ${env:HOME}; $${plain}' }] };
    const result = resolveReferences(data, context({ HOME: '/home/someone' }));
    expect(result.diagnostics).toEqual([]);
    expect(result.data).toEqual({ roles: [{ description: 'Use ${env:HOME} in scripts; home is /home/someone; ${plain}' }] });
    expect(result.resolved).toEqual([
      {
        reference: '${env:HOME}',
        value: '/home/someone',
        bytes: 13,
        sha256: expect.stringMatching(/^[0-9a-f]{4}$/),
        field: { text: 'Use ${env:HOME} in scripts; home is /home/someone; ${plain}', shown: 'Use ${env:HOME} in scripts; home is ${env:HOME}; ${plain}' },
      },
    ]);
  });

  it('a short value is put back only where a whole text is its field; a secret-length one wherever it appears', () => {
    const data: JsonValue = { roles: [{ description: 'Edits ${env:NOTE} data' }, { description: '${env:NOTE}' }, { description: 'pw ${env:TOKEN} ${var:team}' }] };
    const result = resolveReferences(data, { ...context({ NOTE: 'Public', TOKEN: 's3cr3t-t0ken' }), values: new Map([['team', 'GIS']]) });
    expect(result.diagnostics).toEqual([]);
    const redact = redactor(result.resolved);
    // Each field as written, the ${var:} (config, in Git) shown as its value.
    expect(redact(['Edits Public data', 'Public', 'pw s3cr3t-t0ken GIS'])).toEqual(['Edits ${env:NOTE} data', '${env:NOTE}', 'pw ${env:TOKEN} GIS']);
    // Other texts holding the short value are left as they are (a category "Public Works" is no reference);
    // the long one is put back inside any text (the portal's echo of it in an error).
    expect(redact({ title: 'Public Works', message: 'Token s3cr3t-t0ken rejected' })).toEqual({ title: 'Public Works', message: 'Token ${env:TOKEN} rejected' });

    // An empty value names no field: every empty text would have shown as its reference.
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-empty-reference-'));
    try {
      writeFileSync(join(directory, 'empty.txt'), '');
      const empty = resolveReferences({ roles: [{ name: '${file:empty.txt}' }, { name: '${env:NONE}' }] }, { ...context({ NONE: '' }), file: join(directory, 'portalctl.yaml') });
      expect(empty.diagnostics).toEqual([]);
      expect(empty.resolved).toHaveLength(2);
      expect(redactor(empty.resolved)({ description: '', name: '' })).toEqual({ description: '', name: '' });
    } finally {
      rmSync(directory, { recursive: true });
    }
  });

  it('a "${" that begins no reference (unclosed, or without a type) is an error at its field, not text sent to the portal', () => {
    for (const text of ['${env:SECRET_V', 'Field ${ops} team', 'pre ${env:A} and ${env:B']) {
      const result = resolveReferences({ roles: [{ name: text }] }, context({ A: 'a', B: 'b', SECRET_V: 'v' }));
      expect(result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.value]), text).toEqual([['reference/malformed', text]]);
      expect(result.data).toEqual({ roles: [{ name: text }] });
    }
    // Written as the escape, it is a literal.
    expect(resolveReferences({ roles: [{ name: 'Field $${ops} team' }] }, context({})).data).toEqual({ roles: [{ name: 'Field ${ops} team' }] });
  });

  it("the redactor's facts are each value's size and fingerprint (computed when read), never the value", () => {
    const result = resolveReferences({ roles: [{ description: 'home is ${env:HOME}' }] }, context({ HOME: '/home/someone' }));
    const facts = redactor(result.resolved).references;
    const sha256 = createHash('sha256').update('/home/someone').digest('hex').slice(0, 4);
    expect(JSON.parse(JSON.stringify(facts))).toEqual({ '${env:HOME}': { bytes: 13, sha256 } });
    expect({ ...facts['${env:HOME}'] }).toEqual({ bytes: 13, sha256 });
    expect(JSON.stringify(facts)).not.toContain('/home/someone');
  });

  it('a referenced file must be UTF-8 text: a bad byte is an error at its offset, not a U+FFFD sent to the portal; a BOM is not part of the value', () => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-file-reference-'));
    try {
      writeFileSync(join(directory, 'latin1.txt'), Buffer.from('Caf\xe9 owners', 'latin1'));
      writeFileSync(join(directory, 'bom.txt'), '\ufeffCafé owners');
      const fileContext = { ...context({}), file: join(directory, 'portalctl.yaml') };
      const bad = resolveReferences({ roles: [{ description: '${file:latin1.txt}' }] }, fileContext);
      expect(bad.diagnostics).toEqual([
        expect.objectContaining({ severity: 'error', code: 'reference/file-not-text', message: '"latin1.txt" is not UTF-8 text (at byte offset 3).', value: '${file:latin1.txt}' }),
      ]);
      expect(bad.data).toEqual({ roles: [{ description: '${file:latin1.txt}' }] });
      const bom = resolveReferences({ roles: [{ description: '${file:bom.txt}' }] }, fileContext);
      expect(bom.diagnostics).toEqual([]);
      expect(bom.data).toEqual({ roles: [{ description: 'Café owners' }] });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a ${var:} whose value holds unset variables is reported where it is used, naming them', () => {
    const values = new Map<string, JsonValue>([['pair', '${env:A}-${env:B}-${env:SET}']]);
    const unset = unsetEnvIn(values.get('pair') as JsonValue, { SET: 'x' });
    expect([...unset]).toEqual(['A', 'B']);
    const result = resolveReferences({ roles: [{ description: '${var:pair}' }] }, { ...context({}), values, valuesWithUnsetEnv: new Map([['pair', [...unset]]]) });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'reference/unset-env', message: 'The value pair holds ${env:A}, ${env:B}, which are not set.', expected: 'export A, B before running portalctl' }),
    ]);
  });

  it.each(['PORTALCTL_TOKEN', 'PORTALCTL_PASSWORD', 'PORTALCTL_CLIENT_SECRET', 'PORTALCTL_USERNAME', 'PORTALCTL_CLIENT_ID'])('refuses a reference to %s, set or not', (name) => {
    const data: JsonValue = { roles: [{ description: `token \${env:${name}}` }] };
    const result = resolveReferences(data, context({ [name]: 'the-secret' }));
    expect(result.resolved).toEqual([]);
    expect(result.data).toEqual({ roles: [{ description: `token \${env:${name}}` }] });
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'reference/credential', value: `\${env:${name}}`, location: { file: 'portalctl.yaml', line: 3, column: 1 } })]);
    expect(JSON.stringify(result)).not.toContain('the-secret');
  });
});

describe('references in files', () => {
  const role = (description: string) => ({ version: 1, roles: [{ id: 'r1', name: 'Analysts', description }] });
  const load = async (name: string, text: string, env: Record<string, string>) => {
    const directory = mkdtempSync(join(tmpdir(), 'portalctl-references-'));
    try {
      writeFileSync(join(directory, name), text);
      return await loadConfig([name], { cwd: directory, env, kinds: registry });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };

  it('are resolved however the file spells them: plainly, or with escapes in JSON and YAML', async () => {
    const env = { NOTE: 'from the environment' };
    const plain = await load('plain.json', JSON.stringify(role('Note: ${env:NOTE}')), env);
    const escapedJson = await load('escaped.json', JSON.stringify(role('Note: ${env:NOTE}')).replace('${', '\\u0024{'), env);
    const escapedYaml = await load('escaped.yaml', 'version: 1\nroles:\n  - id: r1\n    name: Analysts\n    description: "Note: \\x24{env:NOTE}"\n', env);
    for (const config of [plain, escapedJson, escapedYaml]) {
      expect(config.diagnostics).toEqual([]);
      expect(config.objects.map((obj) => obj.value)).toEqual([{ name: 'Analysts', description: 'Note: from the environment' }]);
    }
  });

  it('a file without any leaves its strings as they are', async () => {
    const config = await load('none.yaml', 'version: 1\nroles:\n  - id: r1\n    name: Analysts\n    description: Costs $5 {per seat}\n', {});
    expect(config.diagnostics).toEqual([]);
    expect(config.objects.map((obj) => obj.value)).toEqual([{ name: 'Analysts', description: 'Costs $5 {per seat}' }]);
  });
});
