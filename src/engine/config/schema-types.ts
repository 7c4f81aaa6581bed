/**
 * The JSON Schema types the config allows at a path, for typed references: a field that is one
 * `${env:NAME}` becomes the number or boolean the schema asks for there (README "Typed values").
 * Walks `properties`, `additionalProperties`, `items` and the alternatives of `anyOf`/`oneOf`/
 * `allOf`; enough for the config's schema, which uses nothing else to describe where values go.
 */
import type { JsonSchema } from '../../kinds/toolkit/contract.js';
import type { ConfigPath } from '../../kinds/toolkit/contract.js';
import type { JsonValue } from '../../core/json.js';

const isSchema = (value: JsonValue | undefined): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema and the schemas its alternatives add (anyOf/oneOf/allOf), flattened. */
function alternatives(schema: JsonSchema): JsonSchema[] {
  const found: JsonSchema[] = [schema];
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const entry of list) if (isSchema(entry)) found.push(...alternatives(entry));
  }
  return found;
}

function child(schema: JsonSchema, step: string | number): JsonSchema | undefined {
  if (typeof step === 'number') return isSchema(schema['items']) ? schema['items'] : undefined;
  const properties = schema['properties'];
  if (isSchema(properties) && isSchema(properties[step])) return properties[step];
  return isSchema(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
}

function typeOfValue(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typesOf(schema: JsonSchema, into: Set<string>): void {
  const type = schema['type'];
  if (typeof type === 'string') into.add(type);
  if (Array.isArray(type)) for (const entry of type) if (typeof entry === 'string') into.add(entry);
  const values = Array.isArray(schema['enum']) ? schema['enum'] : 'const' in schema ? [schema['const'] as JsonValue] : [];
  for (const value of values) into.add(typeOfValue(value));
}

/** The types the schema allows at `path`; undefined when the schema says nothing there. */
export function schemaTypesAt(schema: JsonSchema, path: ConfigPath): ReadonlySet<string> | undefined {
  let nodes = alternatives(schema);
  for (const step of path) {
    nodes = nodes.flatMap((node) => {
      const next = child(node, step);
      return next ? alternatives(next) : [];
    });
    if (nodes.length === 0) return undefined;
  }
  const types = new Set<string>();
  for (const node of nodes) typesOf(node, types);
  return types.size === 0 ? undefined : types;
}
