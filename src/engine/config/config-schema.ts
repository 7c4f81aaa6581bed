/** The config schema of a kind set, and its published text. */
import type { JsonSchema } from '../../kinds/toolkit/contract.js';
import type { KindSet } from '../kind-set.js';
import { composeConfigSchema, withEditorHints } from './schema.js';

const composed = new WeakMap<KindSet, JsonSchema>();

/** The JSON Schema of the config a kind set's kinds and containers make, composed once per set. */
export function configSchema(kinds: KindSet): JsonSchema {
  let schema = composed.get(kinds);
  if (!schema) {
    schema = composeConfigSchema(kinds.containers, kinds.kinds);
    composed.set(kinds, schema);
  }
  return schema;
}

/**
 * The text of schemas/portalctl.schema.json for the registered kinds: the schema validation uses,
 * with the editor hints (markdownDescription) that only editors read.
 */
export function configSchemaText(kinds: KindSet): string {
  const schema = configSchema(kinds);
  return `${JSON.stringify({ ...schema, properties: withEditorHints(schema['properties'] ?? {}) }, null, 2)}\n`;
}
