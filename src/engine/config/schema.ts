/**
 * The JSON Schema of the whole config, composed from the containers' skeleton and the kinds'
 * fragments (nothing here knows a particular kind). It is published as
 * schemas/portalctl.schema.json and compiled into the validator.
 */
import type { ConfigContribution, JsonSchema, KindDefinition, NamedReference, NameLookup } from '../../kinds/toolkit/contract.js';
import type { ContainerDefinition } from '../../kinds/toolkit/containers.js';
import { environmentsSchema, valuesSchema } from './environment-schema.js';
import type { JsonValue } from '../../core/json.js';

export const schemaId = 'https://portalctl.dev/schemas/portalctl.schema.json';

const portalSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'The target portal and the facts validation may rely on. Version gates apply only when edition and version are declared.',
  properties: {
    url: {
      type: 'string',
      description: 'REST root of the portal, e.g. https://gis.example.com/portal/sharing/rest. ${env:PORTAL_URL} works; --portal overrides it.',
    },
    edition: { enum: ['self-managed', 'hosted'], description: 'self-managed | hosted. Drives edition gates (E4, federation userType).' },
    version: {
      type: 'string',
      pattern: '^\\d+(\\.\\d+)*$',
      description:
        'The product release as a quoted string: the ArcGIS Enterprise release on self-managed ("11.3", "10.6.1"), the dated release on hosted ("2025.1"); not the REST API version (currentVersion). Drives the spec\'s version gates; plan checks it against the release it learns from the portal.',
    },
    access: {
      enum: ['public', 'private'],
      description: "Optional fact: the organization's access. public_authoritative item status needs public.",
    },
    verified: {
      type: 'boolean',
      description: "Optional fact: whether the organization's identity is verified. public_authoritative item status needs true.",
    },
  },
};

const share = (what: string): JsonSchema => ({
  type: 'number',
  minimum: 0,
  maximum: 1,
  description: `Largest share (0 to 1) of the kind's managed objects one apply may ${what} without --force.`,
});

/** `safety:` limits per kind name (src/engine/plan/safety.ts); every kind may be named, nothing else. */
function safetySchema(kinds: readonly KindDefinition[]): JsonSchema {
  const limits: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUpdates: share('update (default 0.3)'),
      maxRemovals: share('remove (default 0.1)'),
      minManaged: {
        type: 'integer',
        minimum: 0,
        description: 'The shares are checked only when at least this many objects of the kind are managed (default 10).',
      },
    },
  };
  // One limits schema for every kind (not a copy per kind): the precompiled validator stays small.
  return {
    type: 'object',
    description:
      'Change thresholds per kind name: apply refuses (unless --force) to update more than maxUpdates or remove more than maxRemovals of the managed objects of a kind, when at least minManaged are managed.',
    propertyNames: { enum: kinds.map((kind) => kind.name) },
    additionalProperties: limits,
  };
}

function contributionsTo(kinds: readonly KindDefinition[], container: string): ConfigContribution[] {
  return kinds.flatMap((kind) => kind.config.filter((contribution) => contribution.container === container));
}

function entrySchema(container: ContainerDefinition, all: readonly ContainerDefinition[], kinds: readonly KindDefinition[]): JsonSchema {
  const contributions = contributionsTo(kinds, container.name);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (container.key) {
    properties[container.key.property] = keySchema(container, container.key.schema, kinds);
    required.push(container.key.property);
  }
  for (const contribution of contributions) {
    const owner = kinds.find((kind) => kind.config.includes(contribution));
    for (const [name, schema] of Object.entries(contribution.properties)) {
      if (properties[name] !== undefined) {
        throw new Error(`Two kinds declare the property ${name} of ${container.name}; each property has one owner.`);
      }
      const reference = owner?.references?.find((candidate) => candidate.field === name);
      properties[name] = reference ? referenceSchema(reference, schema, all, kinds) : schema;
    }
  }
  for (const child of all.filter((candidate) => candidate.parent === container.name)) {
    properties[child.field] = containerSchema(child, all, kinds);
  }
  const schema: JsonSchema = { type: 'object', additionalProperties: false, properties };
  if (required.length > 0) schema['required'] = required;
  const variants = contributions.filter((contribution) => contribution.variantKey !== undefined);
  if (variants.length > 0) {
    // An entry is one variant: identified by its variant key, it may use only that variant's properties.
    const variantKeys = variants.map((variant) => variant.variantKey as string);
    schema['anyOf'] = variantKeys.map((key) => ({ required: [key] }));
    schema['allOf'] = variants.map((variant) => ({
      if: { required: [variant.variantKey as string] },
      then: { propertyNames: { enum: Object.keys(variant.properties) } },
    }));
  }
  return schema;
}

const lookupOf = (kinds: readonly KindDefinition[], container: string): NameLookup | undefined =>
  kinds.flatMap((kind) => kind.names ?? []).find((candidate) => candidate.container === container);

/** An id schema that may also be a name: the id, or a mapping of the name fields `lookup` declares. */
function idOrName(idSchema: JsonSchema, lookup: NameLookup): JsonSchema {
  const byName: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    required: lookup.fields.filter((field) => field.required).map((field) => field.name),
    properties: Object.fromEntries(lookup.fields.map((field) => [field.name, { type: 'string', minLength: 1, description: field.description }])),
    description: `The ${lookup.noun} by name instead of id: ${lookup.fields.map((field) => `${field.name}${field.required ? '' : ' (optional)'}`).join(', ')}; resolved by the plan from the portal.`,
  };
  return { description: `${String(idSchema['description'] ?? 'Id.')} Or the ${lookup.noun} by name: ${lookup.fields.map((field) => field.name).join(', ')}.`, anyOf: [idSchema, byName] };
}

/** A key that may be a name (README "Names instead of ids"). */
function keySchema(container: ContainerDefinition, idSchema: JsonSchema, kinds: readonly KindDefinition[]): JsonSchema {
  const lookup = lookupOf(kinds, container.name);
  return lookup ? idOrName(idSchema, lookup) : idSchema;
}

/** A field holding another object's id (or a list of them) that may be a name: each id may be one. */
function referenceSchema(reference: NamedReference, schema: JsonSchema, all: readonly ContainerDefinition[], kinds: readonly KindDefinition[]): JsonSchema {
  const lookup = lookupOf(kinds, reference.container);
  if (!lookup) throw new Error(`The field ${reference.field} refers to ${reference.container}, whose entries no kind names.`);
  if (all.find((candidate) => candidate.name === reference.container)?.parent !== undefined) {
    throw new Error(`The field ${reference.field} refers to ${reference.container}, which is not a top-level container.`);
  }
  if (!reference.list) return idOrName(schema, lookup);
  const items = schema['items'];
  if (typeof items !== 'object' || items === null || Array.isArray(items)) throw new Error(`The list field ${reference.field} declares no items schema.`);
  const { description, ...list } = schema;
  return { ...list, items: idOrName(items, lookup), ...(description === undefined ? {} : { description: `${String(description)} Each by id or by the ${lookup.noun}'s name.` }) };
}

function containerSchema(container: ContainerDefinition, all: readonly ContainerDefinition[], kinds: readonly KindDefinition[]): JsonSchema {
  const entry = entrySchema(container, all, kinds);
  if (container.shape === 'object') return { ...entry, description: container.description };
  return { type: 'array', description: container.description, items: entry };
}

/** The limits of a schema node in words, for an editor's hover: `At most 100 characters.` */
function limitsInWords(node: JsonSchema): string[] {
  const words: string[] = [];
  const number = (key: string): number | undefined => (typeof node[key] === 'number' ? Number(node[key]) : undefined);
  const [maxLength, minItems, maxItems, minimum, maximum] = ['maxLength', 'minItems', 'maxItems', 'minimum', 'maximum'].map(number);
  if (maxLength !== undefined) words.push(`At most ${maxLength} characters.`);
  if (minItems !== undefined && maxItems !== undefined) words.push(`From ${minItems} to ${maxItems} entries.`);
  else if (maxItems !== undefined) words.push(`At most ${maxItems} entries.`);
  if (minimum !== undefined && maximum !== undefined) words.push(`From ${minimum} to ${maximum}.`);
  else if (minimum !== undefined) words.push(`At least ${minimum}.`);
  if (typeof node['patternErrorMessage'] === 'string') words.push(node['patternErrorMessage']);
  return words;
}

/**
 * Every described node also gets a `markdownDescription` (what VS Code and the YAML language
 * server show on hover) that states its limits, so an editor explains what it flags. Only the
 * published schema has them: they are annotations, which validation does not read, and composing
 * them cost every start of `validate` about a millisecond.
 */
export function withEditorHints(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withEditorHints);
  if (typeof value !== 'object' || value === null) return value;
  const node: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) node[key] = withEditorHints(child);
  if (typeof node['description'] === 'string' && node['markdownDescription'] === undefined) {
    const description = node['description'];
    // A limit the description already states (its numbers, or the reserved characters) is not said twice.
    const said = (sentence: string): boolean => {
      const numbers = sentence.match(/\d+/g);
      return numbers ? numbers.every((figure) => description.includes(figure)) : /reserved/.test(description);
    };
    node['markdownDescription'] = [description, ...limitsInWords(node).filter((sentence) => !said(sentence))].join(' ');
  }
  return node;
}

/** The config's JSON Schema, as validation uses it (no editor hints). Deterministic: same kinds, same text. */
export function composeConfigSchema(containers: readonly ContainerDefinition[], kinds: readonly KindDefinition[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    version: { const: 1, description: 'Format version of this file; 1.' },
    portal: portalSchema,
    safety: safetySchema(kinds),
    values: valuesSchema,
    environments: environmentsSchema(portalSchema),
  };
  for (const container of containers.filter((candidate) => candidate.parent === undefined)) {
    properties[container.field] = containerSchema(container, containers, kinds);
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: schemaId,
    title: 'portalctl configuration',
    description:
      "Desired administrative settings of a portal organization. Omitted means unmanaged; removal is explicit (absent). Strings may use ${env:NAME}, ${file:relative/path} and ${var:name}.",
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties,
  };
}
