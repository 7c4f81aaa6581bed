/** `portalctl schema`: prints the JSON Schema of the config (schemas/portalctl.schema.json). */
import { configSchemaText } from '../../engine/config/config-schema.js';
import { registry } from '../../registry.js';
import type { CommandIO } from '../io.js';

export async function schemaCommand(io: CommandIO): Promise<number> {
  io.stdout(configSchemaText(registry));
  return 0;
}
