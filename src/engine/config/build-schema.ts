/**
 * What the build step (src/build-schema.ts, run after tsc) writes: the published schema and the
 * precompiled validator module next to schema-validator.js, so `validate` need not load ajv at
 * run time.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { KindSet } from '../kind-set.js';
import { configSchema, configSchemaText } from './config-schema.js';
import { ajvOptions, precompiledValidatorFile } from './schema-validator.js';

export async function standaloneValidatorSource(kinds: KindSet): Promise<string> {
  const { Ajv } = await import('ajv');
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default.default;
  const ajv = new Ajv({ ...ajvOptions, code: { source: true, esm: true } });
  const validate = ajv.compile(configSchema(kinds));
  const code = standaloneCode(ajv, validate);
  if (/\brequire\(/.test(code)) throw new Error('The standalone validator needs ajv at run time; keep the schema free of keywords that do.');
  return `${code}\nexport const schemaText = ${JSON.stringify(JSON.stringify(configSchema(kinds)))};\n`;
}

/** Writes schemas/portalctl.schema.json and the precompiled validator for `kinds`. */
export async function writeSchemaArtifacts(kinds: KindSet): Promise<void> {
  const schemaFile = fileURLToPath(new URL('../../../schemas/portalctl.schema.json', import.meta.url));
  await writeFile(schemaFile, configSchemaText(kinds));
  const validatorFile = fileURLToPath(new URL(`./${precompiledValidatorFile}`, import.meta.url));
  await writeFile(validatorFile, await standaloneValidatorSource(kinds));
}
