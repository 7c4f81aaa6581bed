import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, configSchemaText } from '../../src/engine/config/index.js';
import { standaloneValidatorSource } from '../../src/engine/config/build-schema.js';
import { compileSchemaValidator } from '../../src/engine/config/schema-validator.js';
import { composeConfigSchema } from '../../src/engine/config/schema.js';
import type { JsonSchema, Kind } from '../../src/kinds/toolkit/contract.js';
import { containers, kinds } from '../../src/kinds/index.js';
import { registry } from '../../src/registry.js';

const committed = readFileSync(new URL('../../schemas/portalctl.schema.json', import.meta.url), 'utf8');

describe('published schema', () => {
  it('schemas/portalctl.schema.json is what the code publishes (run npm run build to update it)', () => {
    expect(committed).toBe(configSchemaText(registry));
  });

  it('is the schema the code validates with, plus the editor hints (annotations, which validation does not read)', () => {
    const withoutHints = JSON.parse(committed, (key, value: unknown) => (key === 'markdownDescription' ? undefined : value)) as unknown;
    expect(withoutHints).toEqual(configSchema(registry));
    expect(committed).toContain('"markdownDescription"');
    expect(JSON.stringify(configSchema(registry))).not.toContain('"markdownDescription"');
  });

  it('is composed from every kind: each contributed property appears with a description', () => {
    const text = JSON.stringify(configSchema(registry));
    for (const kind of kinds) {
      for (const contribution of kind.config) {
        expect(containers.some((container) => container.name === contribution.container)).toBe(true);
        for (const [name, schema] of Object.entries(contribution.properties)) {
          expect(text).toContain(`"${name}":`);
          expect(typeof schema['description'], `${kind.name}.${name}`).toBe('string');
        }
      }
    }
  });

  it('the precompiled validator needs no ajv at run time and agrees with the run-time one', async () => {
    const source = await standaloneValidatorSource(registry);
    expect(source).not.toMatch(/\brequire\(/);
    const precompiled = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as {
      validate: ((data: unknown) => boolean) & { errors?: unknown[] };
      schemaText: string;
    };
    expect(precompiled.schemaText).toBe(JSON.stringify(configSchema(registry)));
    const runtime = await compileSchemaValidator(configSchema(registry));
    const samples: unknown[] = [
      { version: 1 },
      { version: 2, bogus: true },
      { version: 1, organization: { categorySchema: [{ title: 1 }] }, users: [{ level: 1 }] },
      { version: 1, collaborations: [{ id: 'c', participants: [{ portalId: 'p', workspaces: {} }, {}] }] },
    ];
    for (const sample of samples) {
      const valid = precompiled.validate(sample);
      expect(valid).toBe(runtime(sample).length === 0);
      expect((precompiled.validate.errors ?? []).length).toBe(runtime(sample).length);
    }
  });
});

describe('fields that refer to other objects by name', () => {
  const withFederationReferences = (references: Kind['references']): readonly Kind[] => kinds.map((kind) => (kind.name === 'federation' ? { ...kind, references } : kind));

  it('compose id-or-name from the referred container\'s lookup, for one id and for each id of a list', () => {
    const federation = (configSchema(registry)['properties'] as Record<string, JsonSchema>)['federations'] as JsonSchema;
    const fields = ((federation['items'] as JsonSchema)['properties'] as Record<string, JsonSchema>);
    expect((fields['roleId']?.['anyOf'] as JsonSchema[])[1]).toMatchObject({ required: ['name'], properties: { name: { type: 'string' } } });
    expect(((fields['groups']?.['items'] as JsonSchema)['anyOf'] as JsonSchema[])[1]).toMatchObject({ required: ['title'], properties: { title: {}, owner: {} } });
  });

  it('are refused when the referred container has no names, or is not a top-level one', () => {
    expect(() => composeConfigSchema(containers, withFederationReferences([{ field: 'roleId', container: 'user' }]))).toThrow('The field roleId refers to user, whose entries no kind names.');
    expect(() => composeConfigSchema(containers, withFederationReferences([{ field: 'roleId', container: 'workspace' }]))).toThrow('The field roleId refers to workspace, which is not a top-level container.');
  });
});
