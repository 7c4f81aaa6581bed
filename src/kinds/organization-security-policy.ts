/**
 * E8: the password security policy. Value: the declared rules only, e.g.
 * `{ minLength: 12, minOther: null }`; a declared null clears the rule.
 */
import { ApiError } from '../api/errors.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { DiscoveredObject, JsonSchema, PortalFacts } from './toolkit/contract.js';
import { entryProperty } from './toolkit/config-entries.js';
import { defineKind, type ManagedField } from './toolkit/define.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { LiveReader } from '../core/request.js';
import { isObject, pick, problem, selfManagedVersionBelow } from './toolkit/support.js';
import { liveVersionBelow } from './toolkit/discover.js';

interface Bounds {
  min: number;
  max?: number;
  nullable: boolean;
  description: string;
}

/** The spec's E8 bounds table. */
export const securityPolicyBounds: Readonly<Record<string, Bounds>> = {
  minLength: { min: 8, max: 1000, nullable: false, description: 'Minimum password length, 8 to 1000.' },
  minUpper: { min: 1, nullable: true, description: 'Upper-case characters required: null or at least 1.' },
  minLower: { min: 1, nullable: true, description: 'Lower-case characters required: null or at least 1.' },
  minLetter: { min: 1, nullable: true, description: 'Letters required: null or at least 1.' },
  minDigit: { min: 1, nullable: true, description: 'Digits required: null or at least 1.' },
  minOther: { min: 1, nullable: true, description: 'Non-alphanumeric (special) characters required: null or at least 1.' },
  expirationInDays: { min: 1, max: 1095, nullable: true, description: 'Password lifetime in days: null or 1 to 1095.' },
  historySize: { min: 1, max: 24, nullable: true, description: 'Prior passwords that may not be reused: null or 1 to 24.' },
};

const ruleNames = Object.keys(securityPolicyBounds);

/** The bounds as JSON Schema says them (for editors; the rule check reports them too, once). */
function ruleSchema(bounds: Bounds): JsonSchema {
  return {
    type: bounds.nullable ? ['integer', 'null'] : 'integer',
    minimum: bounds.min,
    ...(bounds.max === undefined ? {} : { maximum: bounds.max }),
    description: bounds.description,
    examples: [bounds.min === 8 ? 12 : bounds.min],
  };
}

function describe(bounds: Bounds): string {
  const range = bounds.max === undefined ? `at least ${bounds.min}` : `${bounds.min} to ${bounds.max}`;
  return bounds.nullable ? `null or ${range}` : range;
}

/** A rule as read from `passwordPolicy`: an unset rule (absent, null or "") is null. */
function rule(name: string): ManagedField {
  const unset = (value: JsonValue | undefined): JsonValue => (value === undefined || value === '' ? null : value);
  return {
    read: (answer) => {
      const policy = answer['passwordPolicy'];
      return unset(isObject(policy) ? policy[name] : undefined);
    },
    compare: unset,
  };
}

export const organizationSecurityPolicy = defineKind({
  name: 'organization.securityPolicy',
  operation: { id: 'E8', name: 'Update security policy' },
  config: [
    entryProperty(
      'organization',
      'securityPolicy',
      {
        type: 'object',
        additionalProperties: false,
        description: 'E8: password rules for members with platform accounts (10.4 or later). Omitted rules are unmanaged; null clears a rule.',
        properties: Object.fromEntries(Object.entries(securityPolicyBounds).map(([name, bounds]) => [name, ruleSchema(bounds)])),
      },
      (policy) => (isObject(policy) ? pick(policy, ruleNames) : undefined),
    ),
  ],
  check(obj, ctx) {
    const diagnostics: Diagnostic[] = [];
    if (!isObject(obj.value)) return diagnostics;
    for (const [name, value] of Object.entries(obj.value)) {
      const bounds = securityPolicyBounds[name];
      if (bounds === undefined || value === null || typeof value !== 'number') continue;
      if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
        diagnostics.push(
          problem(ctx, obj, [name], {
            code: 'security-policy/out-of-bounds',
            message: `securityPolicy.${name} is out of bounds.`,
            value,
            expected: describe(bounds),
          }),
        );
      }
    }
    if (selfManagedVersionBelow(ctx, '10.4')) {
      diagnostics.push(
        problem(ctx, obj, [], {
          code: 'version/security-policy',
          message: `Updating the security policy (E8) exists from 10.4; the portal is ${ctx.portal.version}.`,
          value: ctx.portal.version,
          expected: 'portal.version 10.4 or later',
        }),
      );
    }
    return diagnostics;
  },
  live: { one: (_obj, reader) => readPolicy(reader) },
  // Every declared rule is sent; a null as an empty value, which the API reads as null.
  fields: Object.fromEntries(ruleNames.map((name) => [name, rule(name)])),
  request: { path: () => '/portals/self/securityPolicy/update' },
  discover: discoverSecurityPolicy,
});

const POLICY_PATH = '/portals/self/securityPolicy';

/**
 * The policy's answer, whose rules are all under `passwordPolicy` (wire-samples: a policy never
 * customised is `type: "default"`). Without it every rule would read as unset, and the plan would
 * set each declared rule over whatever the portal has: an answer of another shape is an error.
 */
async function readPolicy(reader: LiveReader): Promise<JsonObject | undefined> {
  const answer = await reader.get(POLICY_PATH);
  if (answer && !isObject(answer['passwordPolicy'])) throw new ApiError({ method: 'GET', path: POLICY_PATH, apiMessage: 'unexpected answer: no "passwordPolicy" object in it' });
  return answer;
}

/** For import: the rules that are set (whole numbers within the spec's bounds); unset rules stay unmanaged. */
async function discoverSecurityPolicy(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]> {
  if (liveVersionBelow(portal, '10.4')) return [];
  const policy = (await readPolicy(reader))?.['passwordPolicy'];
  if (!isObject(policy)) return [];
  const rules: JsonObject = {};
  for (const [name, bounds] of Object.entries(securityPolicyBounds)) {
    const value = policy[name];
    if (typeof value !== 'number' || !Number.isInteger(value)) continue;
    if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) continue;
    rules[name] = value;
  }
  if (Object.keys(rules).length === 0) return [];
  return [{ path: [{ container: 'organization' }], fields: { securityPolicy: rules } }];
}
