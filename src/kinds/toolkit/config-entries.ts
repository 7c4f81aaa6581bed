/**
 * The common shapes of a kind's place in the config, so a kind file states only what differs:
 * the container, the properties it owns and the value a declaration makes.
 */
import type { JsonValue } from '../../core/json.js';
import type { ConfigContribution, JsonSchema } from './contract.js';
import { absentKeyword, pick } from './support.js';

/**
 * The entry itself is the object (a role, a federation, a workspace): the properties it
 * declares, at the entry's address; an entry that declares none of them declares nothing.
 */
export function entryFields(container: string, properties: Readonly<Record<string, JsonSchema>>): ConfigContribution {
  const fields = Object.keys(properties);
  return {
    container,
    properties,
    extract(entry, scope, declare) {
      const value = pick(entry, fields);
      if (Object.keys(value).length === 0) return;
      declare.object({ address: scope.address, ids: scope.ids, value, absent: false, path: [] });
    },
    addressOf: (_entry, scope) => scope.address,
  };
}

/**
 * One property of the entry is the object, at `<entry address>.<property>`: `valueOf` turns the
 * declared value into the object's value, or gives undefined when the entry declares none.
 */
export function entryProperty(
  container: string,
  property: string,
  schema: JsonSchema,
  valueOf: (declared: JsonValue | undefined) => JsonValue | undefined,
): ConfigContribution {
  return propertyObject(container, property, schema, valueOf, false);
}

/** A property whose only value, `absent`, declares the removal of what it names (value null). */
export function absentProperty(container: string, property: string, description: string): ConfigContribution {
  return propertyObject(container, property, { ...absentKeyword, description }, (declared) => (declared === 'absent' ? null : undefined), true);
}

function propertyObject(
  container: string,
  property: string,
  schema: JsonSchema,
  valueOf: (declared: JsonValue | undefined) => JsonValue | undefined,
  absent: boolean,
): ConfigContribution {
  const path = [property];
  const suffix = `.${property}`;
  return {
    container,
    properties: { [property]: schema },
    extract(entry, scope, declare) {
      const value = valueOf(entry[property]);
      if (value === undefined) return;
      // join gives one flat string where + would chain pieces: the address is a key of every
      // lookup of a plan, and a flat key hashes and compares faster (tens of thousands of items).
      declare.object({ address: [scope.address, suffix].join(''), ids: scope.ids, value, absent, path });
    },
  };
}
