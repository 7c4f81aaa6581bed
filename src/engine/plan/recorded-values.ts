/**
 * No value that came from a `${env:}` / `${file:}` reference is recorded in clear (README "The
 * state"). A string holding one is recorded as its fingerprint, `sha256:<hex>:<the string with
 * the reference text in place of the value>`, e.g. `sha256:9f86…:Edits ${env:ROLE_NOTE}`.
 *
 * Comparisons need the clear value: when a plan is made, a recorded fingerprint is replaced (in
 * memory only) by the desired or live string whose sha256 it is; one that matches neither stays
 * a fingerprint, which equals nothing, so it reads as a change, as it is.
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from '../../core/json.js';
import type { DesiredObject } from '../../kinds/toolkit/contract.js';
import { mayHoldFingerprint, type StateDocument, type StateEntry } from '../../state/index.js';
import type { Plan } from './plan.js';
import { previousReferenceValue } from './redact.js';

const FINGERPRINT = /^sha256:([0-9a-f]{64}):/;

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

function mapStrings(value: JsonValue, map: (text: string) => string): JsonValue {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((child) => mapStrings(child, map));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, mapStrings(child, map)]));
  return value;
}

function collectStrings(value: JsonValue | undefined, into: Map<string, string>): void {
  if (typeof value === 'string') into.set(hashOf(value), value);
  else if (Array.isArray(value)) for (const child of value) collectStrings(child, into);
  else if (value !== null && typeof value === 'object') for (const child of Object.values(value)) collectStrings(child, into);
}

/** What the state may hold of `value`: every string that holds a referenced value, fingerprinted. `redact` puts the reference text back. */
export function concealer(redact: <T>(value: T) => T): (value: JsonValue) => JsonValue {
  return (value) =>
    mapStrings(value, (text) => {
      const redacted = redact(text);
      return redacted === text ? text : `sha256:${hashOf(text)}:${redacted}`;
    });
}

/** The recorded value with each fingerprint replaced by the candidate string it is the fingerprint of. */
export function revealRecorded(recorded: JsonValue, candidates: readonly (JsonValue | undefined)[]): JsonValue {
  if (!containsFingerprint(recorded)) return recorded;
  const known = new Map<string, string>();
  for (const candidate of candidates) collectStrings(candidate, known);
  return mapStrings(recorded, (text) => {
    const hash = FINGERPRINT.exec(text)?.[1];
    return hash === undefined ? text : (known.get(hash) ?? text);
  });
}

/**
 * Without refresh the recorded values are the basis, each fingerprint revealed by the desired
 * value. A view of the state's entries, not a copy: a large state holds hundreds of thousands,
 * and copying them into a Map cost a twentieth of an offline plan.
 */
export class RecordedBasis implements ReadonlyMap<string, JsonValue> {
  readonly #resources: Readonly<Record<string, StateEntry>>;
  readonly #mayHold: (address: string) => boolean;
  readonly #objects: readonly DesiredObject[];
  /** Desired values by address, built on the first entry that may hold a fingerprint. */
  #desired: Map<string, JsonValue> | undefined;
  readonly #revealed = new Map<string, JsonValue>();

  constructor(state: StateDocument, objects: readonly DesiredObject[]) {
    this.#resources = state.resources;
    this.#mayHold = mayHoldFingerprint(state);
    this.#objects = objects;
  }

  get(address: string): JsonValue | undefined {
    const entry = Object.hasOwn(this.#resources, address) ? this.#resources[address] : undefined;
    if (entry === undefined || !this.#mayHold(address)) return entry?.value;
    let revealed = this.#revealed.get(address);
    if (revealed === undefined) {
      this.#desired ??= new Map(this.#objects.map((obj) => [obj.address, obj.value]));
      revealed = revealRecorded(entry.value, [this.#desired.get(address)]);
      this.#revealed.set(address, revealed);
    }
    return revealed;
  }

  has(address: string): boolean {
    return this.get(address) !== undefined;
  }

  get size(): number {
    let size = 0;
    for (const address in this.#resources) if (this.#resources[address] !== undefined) size += 1;
    return size;
  }

  *entries(): MapIterator<[string, JsonValue]> {
    for (const address in this.#resources) {
      const value = this.get(address);
      if (value !== undefined) yield [address, value];
    }
  }

  *keys(): MapIterator<string> {
    for (const [address] of this.entries()) yield address;
  }

  *values(): MapIterator<JsonValue> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, JsonValue]> {
    return this.entries();
  }

  forEach(each: (value: JsonValue, address: string, map: ReadonlyMap<string, JsonValue>) => void): void {
    for (const [address, value] of this.entries()) each(value, address, this);
  }
}

/**
 * Whether any string inside `value` may be a fingerprint. Asked of every recorded value of every
 * plan, and almost always false: a plain loop with a cheap prefix test, no arrays built.
 */
function containsFingerprint(value: JsonValue | undefined): boolean {
  if (typeof value === 'string') return value.startsWith('sha256:') && FINGERPRINT.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (containsFingerprint(value[index])) return true;
    return false;
  }
  for (const key in value) if (containsFingerprint(value[key])) return true;
  return false;
}

/**
 * The plan with every live string that is the previous value of a reference (rotated since the
 * last apply: its sha256 is a fingerprint the state recorded) shown as that reference, marked as
 * changed, never in clear: in the text, markdown and JSON plans and in a saved plan. A string
 * that is a reference's current value is left to the redactor, which shows the reference.
 */
export function concealPreviousValues(plan: Plan, state: StateDocument | undefined, redact: <T>(value: T) => T): Plan {
  if (!state) return plan;
  const mayHold = mayHoldFingerprint(state);
  const previous = (address: string): Map<string, string> | undefined => {
    const recorded = mayHold(address) ? state.resources[address]?.value : undefined;
    if (recorded === undefined || !containsFingerprint(recorded)) return undefined;
    const fingerprints = new Map<string, string>();
    mapStrings(recorded, (text) => {
      const match = FINGERPRINT.exec(text);
      const hash = match?.[1];
      if (match && hash !== undefined) fingerprints.set(hash, text.slice(match[0].length));
      return text;
    });
    return fingerprints;
  };
  const conceal = (value: JsonValue, fingerprints: Map<string, string>): JsonValue =>
    mapStrings(value, (text) => {
      if (redact(text) !== text) return text;
      const hash = hashOf(text);
      const template = fingerprints.get(hash);
      return template === undefined ? text : previousReferenceValue(template, hash);
    });
  let changed = false;
  const operations = plan.operations.map((op) => {
    const fingerprints = previous(op.address);
    if (!fingerprints) return op;
    changed = true;
    return { ...op, before: conceal(op.before, fingerprints) };
  });
  const drift = plan.drift.map((entry) => {
    const fingerprints = previous(entry.address);
    if (!fingerprints) return entry;
    changed = true;
    return { ...entry, before: conceal(entry.before, fingerprints), after: conceal(entry.after, fingerprints) };
  });
  return changed ? { ...plan, operations, drift } : plan;
}
