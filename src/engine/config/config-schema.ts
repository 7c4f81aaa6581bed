/** The config schema of the registered kinds, and its published text. */
import { containers, kinds } from '../../kinds/index.js';
import type { JsonSchema } from '../../kinds/contract.js';
import { composeConfigSchema } from './schema.js';

let cached: JsonSchema | undefined;

export function configSchema(): JsonSchema {
  return (cached ??= composeConfigSchema(containers, kinds));
}

/** The text of schemas/portalctl.schema.json. */
export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}
