/** The config schema of a kind set, and its published text. */
import type { JsonSchema } from '../../kinds/contract.js';
import type { KindSet } from '../registry.js';

export function configSchema(kinds: KindSet): JsonSchema {
  return kinds.schema();
}

/** The text of schemas/portalctl.schema.json for the registered kinds. */
export function configSchemaText(kinds: KindSet): string {
  return `${JSON.stringify(configSchema(kinds), null, 2)}\n`;
}
