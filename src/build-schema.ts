/**
 * Build step (`npm run build`, after tsc): the schema and precompiled validator of the
 * registered kinds. It lives beside the composition root because the engine never imports
 * the registry.
 */
import { writeSchemaArtifacts } from './engine/config/build-schema.js';
import { registry } from './registry.js';

await writeSchemaArtifacts(registry);
