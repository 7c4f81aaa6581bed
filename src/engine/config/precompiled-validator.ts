/**
 * Loading the precompiled validator that the build (build-schema.ts) writes beside the compiled
 * schema-validator.js. The CLI bundle (scripts/bundle.mjs) puts a static import of that file in
 * place of this module, so the validator is inside the bundle and its code cache; unbundled (tsc
 * output, tests from source) it is read from beside this file, when it is there.
 */

/** File name of the precompiled module, next to the compiled JS. */
export const precompiledValidatorFile = 'schema-validator.generated.js';

/** What the precompiled module exports (its `validate` is an ajv validate function). */
export interface PrecompiledValidatorModule {
  schemaText: string;
  validate: unknown;
}

export async function importPrecompiledValidator(): Promise<PrecompiledValidatorModule> {
  return (await import(new URL(`./${precompiledValidatorFile}`, import.meta.url).href)) as PrecompiledValidatorModule;
}
