/**
 * One or more broken configs per rule (test/config/fixtures/rules/), each with the exact
 * diagnostics it must produce: severity, code, address and file:line:column.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateConfig } from '../../src/engine/config/index.js';
import { registry } from '../../src/registry.js';

const fixtures = fileURLToPath(new URL('./fixtures/rules/', import.meta.url));

type Expected = [file: string, severity: 'error' | 'warning', code: string, address: string | undefined, line: number, column: number];

const table: Expected[] = [
  ['collaboration-version.yaml', 'error', 'version/collaboration', 'collaboration[c1].workspace[w1].portalGroupLink', 7, 26],
  ['duplicate-key.yaml', 'error', 'yaml/duplicate-key', undefined, 5, 3],
  ['empty-schema.yaml', 'error', 'category-schema/empty', 'group[g1].categorySchema', 5, 5],
  ['federation-certificate.yaml', 'error', 'federation/certificate-markers', 'federation[f1]', 5, 18],
  ['federation-url.yaml', 'error', 'federation/url', 'federation[f1]', 5, 25],
  ['federation-enums.yaml', 'error', 'schema/invalid-value', 'federation[f1]', 5, 17],
  ['federation-enums.yaml', 'error', 'schema/invalid-value', 'federation[f1]', 6, 15],
  ['federation-level.yaml', 'warning', 'federation/level-deprecated', 'federation[f1]', 5, 12],
  ['federation-level.yaml', 'warning', 'federation/user-type-ignored', 'federation[f1]', 6, 15],
  ['group-description-too-long.yaml', 'error', 'category-schema/description-too-long', 'group[g1].categorySchema', 7, 22],
  ['group-schema-version.yaml', 'error', 'version/group-category-schema', 'group[g1].categorySchema', 5, 5],
  ['group-title-too-long.yaml', 'error', 'category-schema/title-too-long', 'group[g1].categorySchema', 6, 16],
  ['group-too-many-categories.yaml', 'error', 'category-schema/too-many-categories', 'group[g1].categorySchema', 208, 11],
  ['id-or-name.yaml', 'error', 'schema/missing-property', 'role[nme=Analyst]', 3, 5],
  ['id-or-name.yaml', 'error', 'schema/unknown-property', 'role[nme=Analyst]', 3, 11],
  ['id-or-name.yaml', 'error', 'schema/wrong-type', undefined, 5, 9],
  ['id-or-name.yaml', 'error', 'schema/missing-property', 'item[title=Parcels]', 8, 5],
  ['id-or-name.yaml', 'error', 'schema/missing-property', 'item[title=Parcels]', 8, 5],
  ['id-or-name.yaml', 'error', 'schema/wrong-type', undefined, 11, 9],
  ['id-or-name.yaml', 'error', 'schema/min-length', 'federation[f1]', 15, 21],
  // JSON's hints speak of JSON: "<<" is no merge key; 1e400, its only non-finite number, is said as it is read.
  ['json-hints.json', 'error', 'schema/invalid-value', undefined, 2, 14],
  ['json-hints.json', 'error', 'schema/wrong-type', undefined, 3, 53],
  ['json-hints.json', 'error', 'schema/wrong-type', 'federation[f1]', 4, 58],
  ['json-hints.json', 'error', 'schema/wrong-type', 'federation[f1]', 4, 89],
  ['json-hints.json', 'error', 'source/non-finite-number', undefined, 5, 54],
  ['json-hints.json', 'error', 'schema/wrong-type', 'organization.securityPolicy', 5, 73],
  ['json-hints.json', 'error', 'schema/wrong-type', undefined, 6, 21],
  ['json-hints.json', 'error', 'schema/unknown-property', undefined, 6, 44],
  ['invitation-access-mode.yaml', 'error', 'schema/invalid-value', 'collaboration[c1].invitation[https://partner.example.org/portal]', 7, 27],
  ['invitation-http.yaml', 'error', 'invitation/https-required', 'collaboration[c1].invitation[http://partner.example.org/portal]', 6, 25],
  ['item-public-authoritative.yaml', 'error', 'item-status/public-authoritative-unavailable', 'item[i1].status', 4, 23],
  ['item-status-value.yaml', 'error', 'schema/invalid-value', 'item[i1].status', 5, 13],
  ['later-format.yaml', 'error', 'schema/invalid-value', undefined, 1, 10],
  ['memberschema-value.yaml', 'error', 'schema/invalid-value', 'organization.memberCategorySchema', 4, 25],
  ['missing-version.yaml', 'error', 'schema/missing-property', undefined, 1, 1],
  // No portal takes infinity or not-a-number: each said once, as it is read (not also a wrong type, nor "at least 1" for .nan), 0x10 is 16.
  ['non-finite-numbers.yaml', 'error', 'source/non-finite-number', undefined, 4, 16],
  ['non-finite-numbers.yaml', 'error', 'source/non-finite-number', undefined, 5, 15],
  ['non-finite-numbers.yaml', 'error', 'source/non-finite-number', undefined, 6, 15],
  ['non-finite-numbers.yaml', 'error', 'source/non-finite-number', undefined, 11, 36],
  ['number-for-text.yaml', 'error', 'schema/wrong-type', undefined, 2, 43],
  ['number-for-text.yaml', 'error', 'schema/wrong-type', undefined, 4, 11],
  ['organization-description-too-long.yaml', 'error', 'category-schema/description-too-long', 'organization.categorySchema', 8, 20],
  ['organization-title-too-long.yaml', 'error', 'category-schema/title-too-long', 'organization.categorySchema', 6, 14],
  ['organization-too-many-categories.yaml', 'error', 'category-schema/too-many-categories', 'organization.categorySchema', 207, 9],
  ['participant-variant.yaml', 'error', 'schema/unknown-property', 'collaboration[c1].participant[p1]', 6, 39],
  ['participant-variant.yaml', 'error', 'schema/missing-property', 'collaboration[c1]', 7, 7],
  ['portal-url.yaml', 'error', 'portal/invalid-url', undefined, 4, 8],
  ['portal-url-query.yaml', 'error', 'portal/invalid-url', undefined, 4, 8],
  ['reserved-character.yaml', 'error', 'category-schema/reserved-character', 'organization.categorySchema', 5, 14],
  ['security-policy-bounds.yaml', 'error', 'security-policy/out-of-bounds', 'organization.securityPolicy', 5, 16],
  ['security-policy-bounds.yaml', 'error', 'security-policy/out-of-bounds', 'organization.securityPolicy', 6, 15],
  ['security-policy-bounds.yaml', 'error', 'security-policy/out-of-bounds', 'organization.securityPolicy', 7, 23],
  ['security-policy-version.yaml', 'error', 'version/security-policy', 'organization.securityPolicy', 4, 3],
  ['six-trees.yaml', 'error', 'category-schema/too-many-trees', 'organization.categorySchema', 10, 5],
  ['task-disable.yaml', 'error', 'task/cannot-disable', 'user[u1].task[t1]', 7, 18],
  ['task-version.yaml', 'error', 'version/enable-task', 'user[u1].task[t1]', 6, 7],
  // Tagged values are read as their tag says (!!float: test/e2e/guidance.test.ts).
  ['tagged-for-boolean-or-number.yaml', 'error', 'schema/invalid-value', undefined, 1, 16],
  ['tagged-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'federation[f1]', 4, 33],
  ['tagged-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'organization.securityPolicy', 7, 22],
  ['tagged-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'organization.securityPolicy', 8, 15],
  ['tagged-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', undefined, 11, 17],
  ['text-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'federation[f1]', 4, 28],
  ['text-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'federation[f1]', 5, 27],
  ['text-for-boolean-or-number.yaml', 'error', 'schema/wrong-type', 'organization.securityPolicy', 8, 15],
  ['too-deep.yaml', 'error', 'category-schema/too-deep', 'group[g1].categorySchema', 14, 23],
  ['unknown-property.yaml', 'error', 'schema/unknown-property', 'role[r1]', 6, 5],
  ['unknown-top-level.yaml', 'error', 'schema/unknown-property', undefined, 3, 1],
  ['var-for-text.yaml', 'error', 'schema/wrong-type', 'organization.securityPolicy', 9, 16],
  ['var-for-text.yaml', 'error', 'schema/wrong-type', undefined, 11, 9],
  ['var-for-text.yaml', 'error', 'schema/wrong-type', undefined, 12, 11],
  ['user-level-hosted.yaml', 'error', 'user-level/unavailable', 'user[u1].level', 5, 12],
  ['user-level-value.yaml', 'error', 'schema/invalid-value', 'user[u1].level', 5, 12],
  ['user-level-version.yaml', 'error', 'user-level/unavailable', 'user[u1].level', 5, 12],
  ['version-number.yaml', 'error', 'schema/wrong-type', undefined, 4, 12],
  ['version-quoted.yaml', 'error', 'schema/invalid-value', undefined, 1, 10],
  ['workspace-name-too-long.yaml', 'error', 'workspace/name-too-long', 'collaboration[c1].workspace[w1]', 7, 15],
  ['workspace-name-too-long.yaml', 'error', 'workspace/description-too-long', 'collaboration[c1].workspace[w1]', 8, 22],
  ['workspace-size-version.yaml', 'error', 'version/workspace-size-settings', 'collaboration[c1].workspace[w1]', 8, 26],
  ['role-missing-id.yaml', 'error', 'schema/missing-property', undefined, 4, 3],
  ['wrong-type.yaml', 'error', 'schema/wrong-type', 'role[r1]', 5, 5],
];

async function diagnosticsOf(file: string) {
  const loaded = await loadConfig([file], { cwd: fixtures, env: {}, kinds: registry });
  return validateConfig(loaded);
}

describe('rule checks, one broken config per rule', () => {
  it.each(table)('%s: %s %s at %s %i:%i', async (file, severity, code, address, line, column) => {
    const diagnostics = await diagnosticsOf(file);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ severity, code, location: { file, line, column }, ...(address ? { address } : {}) }),
    );
  });

  it('every fixture produces exactly the diagnostics of the table', async () => {
    for (const file of readdirSync(fixtures)) {
      const diagnostics = await diagnosticsOf(file);
      const expected = table.filter((row) => row[0] === file);
      expect(expected.length, `${file} has no row in the table`).toBeGreaterThan(0);
      expect(diagnostics.map((d) => [file, d.severity, d.code, d.address, d.location?.line, d.location?.column])).toEqual(expected);
    }
  });

  it('every diagnostic says what would be valid, and rule diagnostics show the offending value', async () => {
    for (const file of readdirSync(fixtures)) {
      for (const diagnostic of await diagnosticsOf(file)) {
        expect(diagnostic.expected, `${file} ${diagnostic.code}`).toBeTruthy();
        if (!diagnostic.code.startsWith('yaml/') && !diagnostic.code.includes('missing')) {
          expect('value' in diagnostic, `${file} ${diagnostic.code}`).toBe(true);
        }
      }
    }
  });

  it('a number quoted where only that number is allowed (version: "1") is told to drop the quotes', async () => {
    const [quoted] = await diagnosticsOf('version-quoted.yaml');
    expect(quoted?.expected).toBe('1 (it is quoted: write it without quotes)');
  });

  /** `file:line:column: message (expected)`, as each diagnostic of `file` reads. */
  const said = async (file: string): Promise<string[]> =>
    (await diagnosticsOf(file)).filter((d) => d.severity === 'error').map((d) => `${d.location?.file}:${d.location?.line}:${d.location?.column}: ${d.message} (expected: ${d.expected})`);

  it('a non-finite number is said where it is written, shown as written (JSON would show null), with what is wrong with it', async () => {
    const diagnostics = await diagnosticsOf('non-finite-numbers.yaml');
    expect(diagnostics.map((d) => d.value)).toEqual(['1e400', '.nan', '-.inf', '.inf']);
    expect(await said('non-finite-numbers.yaml')).toEqual([
      "non-finite-numbers.yaml:4:16: This value is too large to be a number: it reads as infinity, which JSON, what the portal's API takes, cannot write. (expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes)",
      "non-finite-numbers.yaml:5:15: This value (.nan) is not a number: JSON, what the portal's API takes, cannot write it. (expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes)",
      "non-finite-numbers.yaml:6:15: This value (-.inf) is minus infinity, which JSON, what the portal's API takes, cannot write. (expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes)",
      "non-finite-numbers.yaml:11:36: This value (.inf) is infinity, which JSON, what the portal's API takes, cannot write. (expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes)",
    ]);
  });

  it('reports every problem of a file in one run', async () => {
    const diagnostics = await diagnosticsOf('security-policy-bounds.yaml');
    expect(diagnostics.map((d) => d.value)).toEqual([7, 0, 1096]);
  });

  it('a value not allowed names the allowed one it is nearest, when one is near', async () => {
    expect((await diagnosticsOf('federation-enums.yaml')).map((d) => d.message)).toEqual([
      'federations[0].signUpMode has a value that is not allowed. Did you mean "Automatic"?',
      'federations[0].userType has a value that is not allowed.',
    ]);
    expect((await diagnosticsOf('item-status-value.yaml')).map((d) => d.message)).toEqual(['items[0].status has a value that is not allowed. Did you mean "org_authoritative"?']);
  });

  it('a missing property is named with its article', async () => {
    expect((await diagnosticsOf('role-missing-id.yaml')).map((d) => [d.message, d.expected])).toEqual([['Missing required property "id" in roles[0].', 'an "id" property']]);
  });

  it('an id or a name mapping: a mapping is checked as a mapping, a value of neither type names both', async () => {
    expect((await diagnosticsOf('id-or-name.yaml')).map((d) => d.message)).toEqual([
      'Missing required property "name" in roles[0].id.',
      'Unknown property "nme" in roles[0].id. Did you mean "name"?',
      'roles[1].id must be a string or an object with name.',
      'Missing required property "type" in items[0].id.',
      'Missing required property "owner" in items[0].id.',
      'groups[0].id must be a string or an object with title.',
      'federations[0].roleId.name must not be empty.',
    ]);
  });

  it('a text where a boolean or a number goes says how to write it: YAML 1.1 words, quotes', async () => {
    expect((await diagnosticsOf('text-for-boolean-or-number.yaml')).map((d) => d.expected)).toEqual([
      'a boolean (yes, no, on and off are text in YAML 1.2: write true or false)',
      'a boolean (it is quoted: write it without quotes)',
      'an integer or a null (it is quoted: write it without quotes)',
    ]);
  });

  it('a number where a text goes says to quote it as written, without the number it was read as (10.10 reads as 10.1, 0012 as 12)', async () => {
    expect((await diagnosticsOf('number-for-text.yaml')).map((d) => d.expected)).toEqual([
      'a string (write it in quotes, as it is written: unquoted, YAML reads it as a number)',
      'a string or an object with name (write it in quotes, as it is written: unquoted, YAML reads it as a number)',
    ]);
  });

  it('a tagged value is said to be tagged, not quoted (!!str, a block scalar; !!int where a text goes)', async () => {
    expect(await said('tagged-for-boolean-or-number.yaml')).toEqual([
      'tagged-for-boolean-or-number.yaml:1:16: version has a value that is not allowed. (expected: 1 (it is tagged !!str, which portalctl reads as text here: write it without the tag))',
      'tagged-for-boolean-or-number.yaml:4:33: federations[0].supportSignedRequest must be a boolean. (expected: a boolean (it is tagged !!str, which portalctl reads as text here: write it without the tag))',
      'tagged-for-boolean-or-number.yaml:7:22: organization.securityPolicy.minLength must be an integer. (expected: an integer (it is tagged !!str, which portalctl reads as text here: write it without the tag))',
      'tagged-for-boolean-or-number.yaml:8:15: organization.securityPolicy.minUpper must be an integer or a null. (expected: an integer or a null (it is a block scalar, which is text: write it after the key, without | or >))',
      'tagged-for-boolean-or-number.yaml:11:17: roles[0].id must be a string or an object with name. (expected: a string or an object with name (it is tagged !!int, which makes it a number: write it in quotes, without the tag))',
    ]);
  });

  it('a ${var:} that stands for a number or boolean where a text goes is said to be that value, not what YAML read; a reference inside a text makes text', async () => {
    expect(await said('var-for-text.yaml')).toEqual([
      "var-for-text.yaml:9:16: organization.securityPolicy.minLength must be an integer. (expected: an integer (a ${file:} reference, or a reference inside a longer text, gives text; a whole ${env:} or ${var:} takes the field's type))",
      'var-for-text.yaml:11:9: roles[0].id must be a string or an object with name. (expected: a string or an object with name (${var:twelve} stands for a number, as its value is declared under values: write that value in quotes))',
      'var-for-text.yaml:12:11: roles[0].name must be a string. (expected: a string (${var:yes_} stands for a boolean, as its value is declared under values: write that value in quotes))',
    ]);
  });

  it('a JSON config is told JSON\'s rules, not YAML\'s', async () => {
    expect(await said('json-hints.json')).toEqual([
      'json-hints.json:2:14: version has a value that is not allowed. (expected: 1 (it is quoted: write it without quotes))',
      'json-hints.json:3:53: portal.version must be a string. (expected: a string (write it in quotes, as it is written: unquoted, JSON reads it as a number))',
      'json-hints.json:4:58: federations[0].updateProfileAtSignin must be a boolean. (expected: a boolean (write true or false, without quotes))',
      'json-hints.json:4:89: federations[0].supportSignedRequest must be a boolean. (expected: a boolean (it is quoted: write it without quotes))',
      "json-hints.json:5:54: This value is too large to be a number: it reads as infinity, which JSON, what the portal's API takes, cannot write. (expected: a finite number (between about -1.8e308 and 1.8e308), or text in quotes)",
      'json-hints.json:5:73: organization.securityPolicy.minUpper must be an integer or a null. (expected: an integer or a null (it is quoted: write it without quotes))',
      'json-hints.json:6:21: roles[0].id must be a string or an object with name. (expected: a string or an object with name (write it in quotes, as it is written: unquoted, JSON reads it as a number))',
      'json-hints.json:6:44: Unknown property "<<" in roles[0]. (expected: one of id, name, description)',
    ]);
  });

  it('a config of a later format says which portalctl reads it', async () => {
    expect((await diagnosticsOf('later-format.yaml')).map((d) => d.message)).toEqual([
      'This config is written in format version 2; this portalctl reads version 1: a later portalctl may read it.',
    ]);
  });

  it('gates apply only to declared facts: the same config without portal facts is valid', async () => {
    const loaded = await loadConfig(['user-level-version.yaml'], { cwd: fixtures, env: {}, kinds: registry });
    expect(validateConfig(loaded, {})).toEqual([]);
    expect(validateConfig(loaded, { edition: 'self-managed', version: '10.6.1' })).toEqual([]);
    expect(validateConfig(loaded, { edition: 'self-managed', version: '10.7' })).toHaveLength(1);
  });
});
