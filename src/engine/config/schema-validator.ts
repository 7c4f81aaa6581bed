/**
 * The compiled JSON Schema validator. The build writes a precompiled (ajv standalone) module
 * next to this file so `validate` starts without loading and compiling ajv; when it is missing
 * or was built from another schema (running from source, a partial build), ajv compiles the
 * schema at run time.
 */
import type { JsonSchema } from '../../kinds/toolkit/contract.js';
import { importPrecompiledValidator } from './precompiled-validator.js';

export { precompiledValidatorFile } from './precompiled-validator.js';

export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

export type SchemaValidator = (data: unknown) => SchemaError[];

type CompiledFunction = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

/**
 * Options shared by the run-time compilation and the standalone build, so both behave alike.
 * unicode: false keeps the standalone code free of ajv's run-time helpers (the schema only uses
 * minLength 1); strictNumbers, which strict: false turns off, keeps `.inf`, `.nan` and 1e400
 * (Infinity) from passing as an integer or a number on their way to the portal.
 */
export const ajvOptions = { allErrors: true, strict: false, strictNumbers: true, unicodeRegExp: false, unicode: false, logger: false } as const;

function wrap(compiled: CompiledFunction): SchemaValidator {
  return (data) => (compiled(data) ? [] : [...(compiled.errors ?? [])]);
}

export async function loadSchemaValidator(schema: JsonSchema): Promise<SchemaValidator> {
  const schemaText = JSON.stringify(schema);
  try {
    const precompiled = await importPrecompiledValidator();
    if (precompiled.schemaText === schemaText) return wrap(precompiled.validate as CompiledFunction);
  } catch {
    // Not built (running from source): compile below.
  }
  return compileSchemaValidator(schema);
}

export async function compileSchemaValidator(schema: JsonSchema): Promise<SchemaValidator> {
  const { Ajv } = await import('ajv');
  const ajv = new Ajv(ajvOptions);
  return wrap(ajv.compile(schema) as CompiledFunction);
}
