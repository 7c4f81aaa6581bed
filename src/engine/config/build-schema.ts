/**
 * Build step (`npm run build`, after tsc): writes the published schema
 * (schemas/portalctl.schema.json) and the precompiled validator module next to
 * schema-validator.js, so `validate` need not load ajv at run time.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configSchema, configSchemaText } from './config-schema.js';
import { ajvOptions, precompiledValidatorFile } from './schema-validator.js';

export async function standaloneValidatorSource(): Promise<string> {
  const { Ajv } = await import('ajv');
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default.default;
  const ajv = new Ajv({ ...ajvOptions, code: { source: true, esm: true } });
  const validate = ajv.compile(configSchema());
  const code = standaloneCode(ajv, validate);
  if (/\brequire\(/.test(code)) throw new Error('The standalone validator needs ajv at run time; keep the schema free of keywords that do.');
  return `${code}\nexport const schemaText = ${JSON.stringify(JSON.stringify(configSchema()))};\n`;
}

async function main(): Promise<void> {
  const schemaFile = fileURLToPath(new URL('../../../schemas/portalctl.schema.json', import.meta.url));
  await writeFile(schemaFile, configSchemaText());
  const validatorFile = fileURLToPath(new URL(`./${precompiledValidatorFile}`, import.meta.url));
  await writeFile(validatorFile, await standaloneValidatorSource());
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
