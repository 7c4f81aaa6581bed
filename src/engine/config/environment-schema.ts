/**
 * The JSON Schema of the config's `values:` and `environments:` blocks (README "Environments"),
 * added to the top level composed in schema.ts. An environment's `portal:` takes the same
 * fields as the top-level `portal:` block: it overrides them for that environment, so the
 * facts version gates use (edition, the product release) come from one place either way.
 */
import type { JsonSchema } from '../../kinds/toolkit/contract.js';

/** Names of environments and state names share one alphabet: an environment's name is its default state name. */
export const ENVIRONMENT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const VARIABLE_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
const VALUE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_.-]*$';

export const valuesSchema: JsonSchema = {
  type: 'object',
  description:
    'Named values for ${var:name} references: defaults here, per environment under environments.<name>.values. A field that is one ${var:name} takes the value with its type (a number, a list, ...).',
  propertyNames: { pattern: VALUE_NAME_PATTERN },
};

const variable = (description: string): JsonSchema => ({ type: 'string', pattern: VARIABLE_PATTERN, description });

export function environmentsSchema(portal: JsonSchema): JsonSchema {
  return {
    type: 'object',
    description:
      'The portals this configuration is applied to, by name: --env NAME (or PORTALCTL_ENV) picks one, --env a,b or --all-envs several. Declared once across the base files.',
    propertyNames: { pattern: ENVIRONMENT_NAME_PATTERN },
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      properties: {
        description: { type: 'string', description: 'What the environment is, for people.' },
        portal: { ...portal, description: "The environment's portal: its fields replace those of the top-level portal block (url, edition, version, ...)." },
        state: {
          type: 'string',
          pattern: ENVIRONMENT_NAME_PATTERN,
          description: "The environment's state: its name in a PostgreSQL database, or the part added to a state file's name. Default: the environment's name.",
        },
        credentials: {
          type: 'object',
          additionalProperties: false,
          description:
            "The names of the variables that hold this environment's credentials (never the credentials): token, or username and password, or clientId and clientSecret. Default: PORTALCTL_TOKEN, ... as without environments.",
          properties: {
            token: variable('Variable holding a token.'),
            username: variable('Variable holding the user name (generateToken).'),
            password: variable('Variable holding the password (generateToken).'),
            clientId: variable('Variable holding the OAuth client id (oauth2/token).'),
            clientSecret: variable('Variable holding the OAuth client secret (oauth2/token).'),
          },
        },
        values: { ...valuesSchema, description: "This environment's values for ${var:name}; they replace the top-level values of the same name." },
        overlays: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description:
            "Overlay files (or directories of them), relative to this file's directory, merged over the base in order: maps merge, lists of keyed objects merge by key, other values replace, `$patch: delete` removes.",
        },
      },
    },
  };
}
