/**
 * One conformance suite for every kind set (as test/state/conformance.ts is for state stores):
 * what any set of kinds must satisfy, whatever kinds it holds. It is run on the registry
 * (kind-set-conformance.test.ts) and on the registry plus a kind added by CONTRIBUTING.md
 * (made-up-kind.test.ts), so a new kind passes every generic check on its first run or names
 * what it lacks. Nothing here counts kinds: every figure comes from the set.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isObject } from '../../src/core/json.js';
import type { Route } from '../../src/emulator/shared/types.js';
import { callerFromSelf, mayCall } from '../../src/engine/read/authority.js';
import { standaloneValidatorSource } from '../../src/engine/config/build-schema.js';
import { configSchema, loadConfig, validateConfig, type LoadedConfig } from '../../src/engine/config/index.js';
import { compileSchemaValidator } from '../../src/engine/config/schema-validator.js';
import { importPortal } from '../../src/engine/import/import-portal.js';
import type { KindSet } from '../../src/engine/kind-set.js';
import { startTestPortal, type TestPortal } from '../support/portal.js';

/** An example config, with the emulator data it is written against. */
export interface KindSetExample {
  dir: string;
  data: string;
}

export interface KindSetUnderTest {
  kinds: KindSet;
  /** Examples that together declare every kind of the set; their READMEs name every operation. */
  examples: readonly KindSetExample[];
  /** Routes each emulator serves besides its own (made afresh for each): the operations the set adds. */
  extraRoutes?: () => readonly Route[];
}

/** A wish to send rather than a value: import names pending invitations in comments, it does not declare them. */
const WISHES = new Set(['collaboration.invitation']);

export function kindSetConformance(label: string, setup: () => Promise<KindSetUnderTest>): void {
  describe(`${label}: kind set conformance`, () => {
    const withPortal = async (set: KindSetUnderTest, example: KindSetExample, test: (portal: TestPortal, config: LoadedConfig) => Promise<void>) => {
      const portal = await startTestPortal({ data: example.data, kinds: set.kinds, ...(set.extraRoutes ? { extraRoutes: set.extraRoutes() } : {}) });
      try {
        const config = await loadConfig([example.dir], { cwd: example.dir, env: { ...process.env, PORTAL_URL: portal.url }, kinds: set.kinds });
        await test(portal, config);
      } finally {
        await portal.close();
      }
    };

    it('composes the config schema: every contributed property, in a container that exists, and every property at any depth described', async () => {
      const { kinds } = await setup();
      const containerNames = new Set(kinds.containers.map((container) => container.name));
      const schema = configSchema(kinds);
      const text = JSON.stringify(schema);
      for (const kind of kinds.kinds) {
        for (const contribution of kind.config) {
          expect(containerNames.has(contribution.container), `${kind.name} contributes to ${contribution.container}`).toBe(true);
          for (const name of Object.keys(contribution.properties)) expect(text).toContain(`"${name}":`);
        }
      }
      expect(undescribedProperties(schema)).toEqual([]);
    });

    it('builds a precompiled validator that needs no ajv at run time and agrees with the run-time one', async () => {
      const { kinds } = await setup();
      const source = await standaloneValidatorSource(kinds);
      expect(source).not.toMatch(/\brequire\(/);
      const precompiled = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as {
        validate: ((data: unknown) => boolean) & { errors?: unknown[] };
      };
      const runtime = await compileSchemaValidator(configSchema(kinds));
      const documents: unknown[] = [{ version: 1 }, { version: 2, bogus: true }, { version: 1, organization: 7 }];
      for (const document of documents) {
        expect(precompiled.validate(document)).toBe(runtime(document).length === 0);
        expect((precompiled.validate.errors ?? []).length).toBe(runtime(document).length);
      }
    });

    it('names one operation per kind, each id once; a default administrator may call every kind that declares who may', async () => {
      const { kinds } = await setup();
      const ids = kinds.kinds.map((kind) => kind.operation.id);
      expect(new Set(ids).size).toBe(ids.length);
      const admin = callerFromSelf({ user: { username: 'admin', role: 'org_admin', roleId: 'org_admin', privileges: [] } });
      if (!admin) throw new Error('a caller was expected');
      for (const kind of kinds.kinds) if (kind.authority) expect(mayCall(admin, kind.authority), kind.name).toBe(true);
    });

    it('its examples declare every kind, and their READMEs name every operation', async () => {
      const set = await setup();
      const declared = new Set<string>();
      let readmes = '';
      for (const example of set.examples) {
        const config = await loadConfig([example.dir], { cwd: example.dir, env: { ...process.env, PORTAL_URL: 'http://127.0.0.1:1/portal/sharing/rest' }, kinds: set.kinds });
        for (const obj of config.objects) declared.add(obj.kind);
        const readme = join(example.dir, 'README.md');
        if (existsSync(readme)) readmes += await readFile(readme, 'utf8');
      }
      expect([...declared].sort()).toEqual(set.kinds.kinds.map((kind) => kind.name).sort());
      for (const kind of set.kinds.kinds) expect(readmes, `${kind.operation.id} (${kind.name})`).toMatch(new RegExp(`\\b${kind.operation.id}\\b`));
    });

    it('each example validates, applies to a fresh emulator, then plans empty with no drift', async () => {
      const set = await setup();
      for (const example of set.examples) {
        await withPortal(set, example, async (portal, config) => {
          expect(validateConfig(config).filter((diagnostic) => diagnostic.severity === 'error'), example.dir).toEqual([]);
          const before = await portal.plan(config);
          expect(before.plan.operations.length, example.dir).toBeGreaterThan(0);
          const applied = await portal.apply(config, { allowDestructive: true });
          expect(applied.result.failed, example.dir).toEqual([]);
          expect(applied.result.skipped, example.dir).toEqual([]);
          expect(applied.result.applied).toHaveLength(before.plan.operations.length);
          expect(applied.after.plan.operations, example.dir).toEqual([]);
          const again = await portal.plan(config);
          expect(again.plan.operations).toEqual([]);
          expect(again.plan.drift).toEqual([]);
        });
      }
    });

    it('import writes back what each applied example declares, for kinds that discover, and planning the import is empty', async () => {
      const set = await setup();
      for (const example of set.examples) {
        await withPortal(set, example, async (portal, config) => {
          await portal.apply(config, { allowDestructive: true });
          const imported = await importPortal({ client: portal.client, url: portal.url, kinds: set.kinds.kinds, containers: set.kinds.containers });
          expect(imported.skipped).toEqual([]);
          const reloaded = await portal.config(imported.text);
          expect(validateConfig(reloaded, imported.portal).filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
          const addresses = new Set(reloaded.objects.map((obj) => obj.address));
          const discovering = config.objects.filter((obj) => !obj.absent && !WISHES.has(obj.kind) && set.kinds.byName.get(obj.kind)?.discover);
          for (const obj of discovering) expect(addresses, obj.address).toContain(obj.address);
          expect((await portal.plan(reloaded)).plan.operations).toEqual([]);
        });
      }
    });
  });
}

/** Paths of the properties in `schema`, at any depth, that have neither a description nor a reference to one. */
function undescribedProperties(schema: unknown, path = '#'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => undescribedProperties(item, `${path}/${index}`));
  if (!isObject(schema)) return [];
  const missing: string[] = [];
  const properties = schema['properties'];
  if (isObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (isObject(property) && typeof property['description'] !== 'string' && property['$ref'] === undefined) missing.push(`${path}/properties/${name}`);
    }
  }
  for (const [key, value] of Object.entries(schema)) missing.push(...undescribedProperties(value, `${path}/${key}`));
  return missing;
}
