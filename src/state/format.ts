/**
 * The recorded-state format (DESIGN.md "Known state, plan and drift"): one JSON document, written
 * with one resource per line (serializeState), e.g.
 *
 * ```json
 * {
 *   "formatVersion": 1,
 *   "lineage": "8c1e…",
 *   "serial": 7,
 *   "portal": {"url":"https://host/portal/sharing/rest","id":"0123abcd"},
 *   "resources": {
 *     "<address>": {"kind":"organization.securityPolicy","ids":{},"value":{"minLength":12},"status":"present","appliedAt":"2025-01-01T00:00:00.000Z","observedAt":"2025-01-01T00:00:00.000Z"}
 *   }
 * }
 * ```
 *
 * `lineage` is a random UUID fixed when the state is created; `serial` is +1 on every write. Per
 * address: `kind` (Kind.name), `ids` (identifiers of the request paths), `value` (the last
 * applied / observed managed value), `status` ("present", or "absent" when removed by
 * portalctl), `appliedAt` (last successful apply), `observedAt` (when the recorded value was read
 * from the portal; a read that finds the same value does not rewrite the entry)
 * and, for an object the config names instead of giving its id or whose fields name other
 * objects, `names` (each name on the way to it, and each in a field with that `field`, with the
 * portal's fields and id: `plan --refresh=false` resolves names from them).
 * Any JSON layout of the same document reads the same (earlier releases wrote it pretty-printed).
 *
 * Resources are keyed by address and written sorted, so diffs of the file are stable. The
 * state never holds secrets: a value that came from a `${env:}`/`${file:}` reference is
 * recorded as its fingerprint (`sha256:<hex> ${env:NAME}`), never in clear, and never tokens.
 *
 * `unknownOutcomes` (absent when empty) names the operations whose outcome is not known: a
 * request that must not be repeated (E13) is marked "in flight" before it is sent, and any
 * request whose answer never came is marked at once. The next run reads the live portal for
 * that address before it plans anything for it (engine/unknown-outcomes.ts).
 */
import { randomUUID } from 'node:crypto';
import { parseAddress } from '../core/address.js';
import { errorMessage } from '../core/errors.js';
import { isObject, parseJsonOrUndefined, type JsonValue } from '../core/json.js';
import { NotAStateFileError, StateCorruptError, StateError, StateFromLaterVersionError, StatePortalMismatchError } from './errors.js';

export const STATE_FORMAT_VERSION = 1;

export interface StatePortal {
  /** The REST root the state was made against. */
  url: string;
  /** The organization id from `portals/self`, when known. */
  id?: string;
}

export type ResourceStatus = 'present' | 'absent';

export interface StateEntry {
  kind: string;
  ids: Record<string, string>;
  value: JsonValue;
  status?: ResourceStatus;
  /** ISO 8601 time of the last successful apply of this address. */
  appliedAt?: string;
  /** ISO 8601 time of the last read of the live value. */
  observedAt?: string;
  /**
   * The names the config gave instead of ids on the way to this object (outermost first), each
   * with every field the portal showed for the object named, as the last read resolved them:
   * what `--refresh=false` resolves the same names from.
   */
  names?: RecordedName[];
}

/** A name resolved to an id (`{ noun: 'role', name: { name: 'Field Analyst' }, id: 'r7HkQ2' }`). */
export interface RecordedName {
  /** What the object is (`role`, `group`, `workspace`). */
  noun: string;
  name: Record<string, string>;
  id: string;
  /** For a name the value gives in a field instead of an id (a federation's `roleId`): the field. */
  field?: string;
}

/** An operation whose outcome is not known, at its address. */
export interface UnknownOutcome {
  kind: string;
  ids: Record<string, string>;
  /** The spec operation, e.g. "E13 Invite collaboration participant". */
  operation: string;
  /** The value the operation was setting. */
  value: JsonValue;
  /** "in flight" (marked before sending) or why no answer came. */
  reason: string;
  /** ISO 8601 time of the mark. */
  since: string;
}

export interface StateDocument {
  formatVersion: typeof STATE_FORMAT_VERSION;
  lineage: string;
  serial: number;
  portal: StatePortal;
  resources: Record<string, StateEntry>;
  /** Operations whose outcome is not known, by address; absent when there is none. */
  unknownOutcomes?: Record<string, UnknownOutcome>;
}

/** A fresh state: new lineage, serial 0 (the first write makes it 1). */
export function newState(portal: StatePortal): StateDocument {
  return {
    formatVersion: STATE_FORMAT_VERSION,
    lineage: randomUUID(),
    serial: 0,
    portal: portal.id === undefined ? { url: portal.url } : { url: portal.url, id: portal.id },
    resources: {},
  };
}

/** Record what an operation applied or observed at one address (its outcome is then known). Pure: returns a new state. */
export function recordOperation(state: StateDocument, address: string, entry: StateEntry): StateDocument {
  return clearUnknownOutcome({ ...state, resources: { ...state.resources, [address]: { ...entry, ids: { ...entry.ids } } } }, address);
}

/** Mark an operation's outcome as unknown at `address`. Pure. */
export function markUnknownOutcome(state: StateDocument, address: string, mark: UnknownOutcome): StateDocument {
  return { ...state, unknownOutcomes: { ...state.unknownOutcomes, [address]: { ...mark, ids: { ...mark.ids } } } };
}

/** The outcome at `address` is known again (recorded, or the portal answered). Pure. */
export function clearUnknownOutcome(state: StateDocument, address: string): StateDocument {
  if (!state.unknownOutcomes || !Object.hasOwn(state.unknownOutcomes, address)) return state;
  const { [address]: _cleared, ...rest } = state.unknownOutcomes;
  const next: StateDocument = { ...state };
  if (Object.keys(rest).length > 0) next.unknownOutcomes = rest;
  else delete next.unknownOutcomes;
  return next;
}

/** Forget an address entirely (e.g. it is no longer managed), with any unknown outcome there. Pure. */
export function forgetResource(state: StateDocument, address: string): StateDocument {
  if (!Object.hasOwn(state.resources, address)) return clearUnknownOutcome(state, address);
  const resources = { ...state.resources };
  delete resources[address];
  return clearUnknownOutcome({ ...state, resources }, address);
}

/** Move an address's record to another address (`state mv`). Pure; throws when `from` is unknown or `to` is taken. */
export function moveResource(state: StateDocument, from: string, to: string): StateDocument {
  const entry = Object.hasOwn(state.resources, from) ? state.resources[from] : undefined;
  if (!entry) throw new StateError(`The state has no resource at ${from}; nothing was moved.`);
  if (Object.hasOwn(state.resources, to)) throw new StateError(`The state already has a resource at ${to}; nothing was moved. Remove it first with \`portalctl state rm ${to}\`.`);
  const resources = { ...state.resources };
  delete resources[from];
  resources[to] = { ...entry, ids: movedIds(entry.ids, from, to) };
  return { ...state, resources };
}

/** The ids of a moved record: an id named in a step of `from` becomes the id of that step in `to`. */
function movedIds(ids: Record<string, string>, from: string, to: string): Record<string, string> {
  const before = parseAddress(from) ?? [];
  const after = parseAddress(to) ?? [];
  const renamed = new Map<string, string>();
  before.forEach((step, index) => {
    const next = after[index]?.id;
    if (step.id !== undefined && next !== undefined && next !== step.id) renamed.set(step.id, next);
  });
  return Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, renamed.get(id) ?? id]));
}

/** Compare REST roots ignoring case of scheme/host, default ports and trailing slashes. */
export function sameUrl(left: string, right: string): boolean {
  const normalise = (text: string): string => {
    try {
      const url = new URL(text);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return text.replace(/\/+$/, '');
    }
  };
  return normalise(left) === normalise(right);
}

/**
 * Refuse a state made for another portal. When both ids are known they decide (the same
 * organization may be reached through several URLs); otherwise the URLs must match.
 */
export function assertSamePortal(state: StateDocument, url: string, id?: string): void {
  const recorded = state.portal;
  if (recorded.id !== undefined && id !== undefined) {
    if (recorded.id === id) return;
    throw new StatePortalMismatchError(
      `The state belongs to portal organization ${recorded.id} (${recorded.url}), but the target ${url} is organization ${id}. ` +
        'Use the state file of that portal (--state), or a new state path for this one.',
    );
  }
  if (!sameUrl(recorded.url, url)) {
    throw new StatePortalMismatchError(
      `The state belongs to ${recorded.url}, but the target portal is ${url}. ` +
        'Use the state file of that portal (--state), or a new state path for this one.',
    );
  }
}

/**
 * Stable text: resources sorted by address, one per line (`"<address>": {compact entry}`), the
 * few top-level fields one per line, trailing newline. Still one JSON document (any JSON reader
 * takes it, and files written pretty-printed by earlier releases read the same), without the
 * indentation that would be half of a large state's size. A change to one address is a change to
 * one line of a diff.
 */
export function serializeState(state: StateDocument): string {
  const { before, after } = stateTextAround(state);
  const addresses = sortedAddresses(state.resources);
  const lines = addresses.map((address) => resourceLine(address, state.resources[address]));
  return lines.length === 0 ? `${before}{}${after}` : `${before}{\n${lines.join(',\n')}\n  }${after}`;
}

/**
 * serializeState's text around the resources' object: what comes before its opening brace and
 * after its closing one (the head fields, and the unknown outcomes one per line).
 */
export function stateTextAround(state: StateDocument): { before: string; after: string } {
  const { unknownOutcomes, ...rest } = state;
  const document: Record<string, unknown> = { ...rest };
  if (unknownOutcomes && Object.keys(unknownOutcomes).length > 0) document['unknownOutcomes'] = unknownOutcomes;
  // The fields before the resources and after them, in the document's order.
  const head: string[] = [];
  const tail: string[] = [];
  let fields = head;
  for (const [key, value] of Object.entries(document)) {
    if (key === 'resources') fields = tail;
    if (value === undefined || key === 'resources') continue;
    const text = key === 'unknownOutcomes' && unknownOutcomes ? recordText(unknownOutcomes) : JSON.stringify(value);
    fields.push(`  ${JSON.stringify(key)}: ${text}`);
  }
  return { before: `{\n${head.map((field) => `${field},\n`).join('')}  "resources": `, after: `${tail.map((field) => `,\n${field}`).join('')}\n}\n` };
}

/** One line of a record keyed by address. */
export function resourceLine(address: string, value: unknown): string {
  return `    ${JSON.stringify(address)}: ${JSON.stringify(value)}`;
}

/** The addresses of `record` that hold a value, in sort()'s order. */
export function sortedAddresses(record: Record<string, unknown>): string[] {
  const addresses: string[] = [];
  for (const address in record) if (record[address] !== undefined) addresses.push(address);
  // A state read from its file is in order already; checking costs less than sorting again.
  for (let index = 1; index < addresses.length; index++) {
    if ((addresses[index - 1] as string) > (addresses[index] as string)) return addresses.sort();
  }
  return addresses;
}

/**
 * What a file that does not read as a state is, when it is plainly none: text that does not
 * begin as JSON does (a config), a saved plan, or JSON with none of a state's fields. A state cut
 * short (empty, or `{` and part of it) is not one of these: it is corrupt.
 */
export function notAStateFile(file: string, text: string): NotAStateFileError | undefined {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start === '') return undefined;
  if (!start.startsWith('{')) {
    const config = /^version:[ \t]*["']?1["']?[ \t]*(#.*)?$/m.test(text);
    // Its text is not quoted: a file named by mistake may be anything, a file of secrets too.
    return new NotAStateFileError(file, config ? 'it is a config (YAML)' : 'it does not hold JSON');
  }
  const data = parseJsonOrUndefined(text);
  if (!isObject(data)) return undefined;
  if ('basisDigest' in data && 'operations' in data) return new NotAStateFileError(file, 'it is a saved plan (`portalctl plan --out`)');
  if (!('lineage' in data) && !('serial' in data) && !('resources' in data)) return new NotAStateFileError(file, "it holds JSON without a state's lineage, serial or resources");
  return undefined;
}

/** A record keyed by address: its entries sorted, one compact entry per line. */
function recordText(record: Record<string, unknown>): string {
  const lines = sortedAddresses(record).map((address) => resourceLine(address, record[address]));
  return lines.length === 0 ? '{}' : `{\n${lines.join(',\n')}\n  }`;
}

/** Parse and validate a state file's text; throws StateCorruptError naming `file`. */
export function parseState(text: string, file: string): StateDocument {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StateCorruptError(file, `not valid JSON (${errorMessage(error)}); it may be truncated`, { cause: error });
  }
  const state = stateFromValue(data, file);
  const mentioning = addressesMentioningFingerprints(text);
  if (mentioning) fingerprintHints.set(state, mentioning);
  return state;
}

/** Entry fields whose values repeat across entries (StateAssembler shares them). */
const REPEATED_FIELDS = ['kind', 'status', 'appliedAt', 'observedAt'];

/**
 * A state built from its entries given one at a time, each as its JSON text (a database's rows,
 * a state file's lines): no text of the whole state is built, and what parseState learns from
 * the text about fingerprints is learnt per entry.
 */
export class StateAssembler {
  private readonly resources: Record<string, unknown> = {};
  private readonly mentioning = new Set<string>();
  private readonly checker = new EntryChecker(false);
  /**
   * One string for each kind, status and time the entries repeat: a parsed entry has its own
   * copy of each, which a large state would hold once per entry.
   */
  private readonly repeated = new Map<string, string>();

  constructor(
    private readonly where: string,
    private readonly what?: string,
  ) {}

  /** One entry, checked as it comes (a second pass over a large state's entries cost as much again). */
  add(address: string, text: string): void {
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch (error) {
      throw this.corrupt(`the entry at ${JSON.stringify(address)} is not valid JSON (${error instanceof Error ? error.message : String(error)})`, error);
    }
    const problem = this.checker.problem(address, entry);
    if (problem) throw this.corrupt(problem);
    if (isObject(entry)) for (const field of REPEATED_FIELDS) this.share(entry, field);
    this.resources[address] = entry;
    // As in addressesMentioningFingerprints; an escape could spell a fingerprint, so it counts as one.
    if (text.includes('"sha256:') || text.includes('\\u')) this.mentioning.add(address);
  }

  private share(entry: Record<string, unknown>, field: string): void {
    const value = entry[field];
    if (typeof value !== 'string') return;
    const shared = this.repeated.get(value);
    if (shared === undefined) this.repeated.set(value, value);
    else entry[field] = shared;
  }

  private corrupt(reason: string, cause?: unknown): StateCorruptError {
    return new StateCorruptError(this.where, reason, { ...(cause === undefined ? {} : { cause }), ...(this.what ? { what: this.what } : {}) });
  }

  /** The state: `head` is the rest of the document (parsed JSON); `serial` when it is kept apart from it. */
  finish(head: unknown, serial?: number): StateDocument {
    const document = isObject(head)
      ? {
          formatVersion: head['formatVersion'],
          lineage: head['lineage'],
          serial: serial ?? head['serial'],
          portal: head['portal'],
          resources: this.resources,
          ...(head['unknownOutcomes'] === undefined ? {} : { unknownOutcomes: head['unknownOutcomes'] }),
        }
      : head;
    // The entries were checked as they came.
    const state = stateFromValue(document, this.where, this.what, { entries: [] });
    for (const [address, mark] of Object.entries(state.unknownOutcomes ?? {})) {
      const text = JSON.stringify(mark);
      if (text.includes('"sha256:') || text.includes('\\u')) this.mentioning.add(address);
    }
    fingerprintHints.set(state, this.mentioning);
    return state;
  }
}

/** A state from its head, its serial and its entries' texts (StateAssembler). */
export function stateFromParts(head: unknown, serial: number, entries: Iterable<readonly [string, string]>, where: string, what?: string): StateDocument {
  const assembler = new StateAssembler(where, what);
  for (const [address, text] of entries) assembler.add(address, text);
  return assembler.finish(head, serial);
}

/**
 * Per state parsed from a file in serializeState's layout: the addresses whose line mentions a
 * fingerprint (`"sha256:`). Finding fingerprints in recorded values otherwise means walking
 * every value of every plan, for a state that usually holds none.
 */
const fingerprintHints = new WeakMap<StateDocument, ReadonlySet<string>>();

/**
 * Which recorded entries may hold a fingerprint (README "The state"): false only where that is
 * known from the file's text; true everywhere for a state of unknown provenance.
 */
export function mayHoldFingerprint(state: StateDocument): (address: string) => boolean {
  const hint = fingerprintHints.get(state);
  if (hint === undefined) return () => true;
  if (hint.size === 0) return () => false;
  return (address) => hint.has(address);
}

/** One resource (or unknown outcome) line of serializeState: its address is the line's key. */
const entryLine = /^ {4}("(?:[^"\\\n]|\\.)*"): \{/;

/**
 * The addresses whose line mentions `"sha256:`; undefined when that cannot be told from the
 * text: a mention outside an entry line (another layout, such as the pretty-printed files of
 * earlier releases), or `\u` escapes, which could spell a fingerprint without its text.
 */
function addressesMentioningFingerprints(text: string): ReadonlySet<string> | undefined {
  if (text.includes('\\u')) return undefined;
  const found = new Set<string>();
  // Searched without the quote: a search that starts with a character as common as `"` is slower.
  for (let at = text.indexOf('sha256:'); at !== -1; at = text.indexOf('sha256:', at + 1)) {
    if (text[at - 1] !== '"') continue;
    const start = text.lastIndexOf('\n', at) + 1;
    const key = entryLine.exec(text.slice(start, at - 1))?.[1];
    if (key === undefined) return undefined;
    const address: unknown = JSON.parse(key);
    if (typeof address !== 'string') return undefined;
    found.add(address);
  }
  return found;
}

/**
 * Validate an already-parsed state (e.g. a database's JSON column); throws StateCorruptError
 * naming `where`. Parsed JSON holds only JSON values, so entry values are not walked. `entries`:
 * check these entries alone (StateAssembler checked the others as it took them).
 */
export function stateFromValue(data: unknown, where: string, what?: string, options: { entries?: Iterable<string> } = {}): StateDocument {
  assertState(data, where, what, options.entries);
  return data;
}

/** A state of a later format is no corrupt one: said as such before anything else is checked. */
export function assertReadableVersion(data: unknown, where: string, what?: string): void {
  const version = isObject(data) ? data['formatVersion'] : undefined;
  if (typeof version === 'number' && version > STATE_FORMAT_VERSION) throw new StateFromLaterVersionError(where, version, STATE_FORMAT_VERSION, what);
}

function assertState(data: unknown, where: string, what: string | undefined, entries: Iterable<string> | undefined): asserts data is StateDocument {
  assertReadableVersion(data, where, what);
  const problem = findProblem(data, false, entries);
  if (problem) throw new StateCorruptError(where, problem, what ? { what } : undefined);
}

/**
 * Validate an in-memory state before it is written (the same rules as a file). With `entries`,
 * only those entries are checked (with the rest of the document): a write checks what it
 * changes, the entries it leaves as they were having been checked when they were stored.
 */
export function validateState(state: unknown, options: { entries?: Iterable<string> } = {}): string | undefined {
  return findProblem(state, true, options.entries);
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) {
    for (const item of value) if (!isJsonValue(item, depth + 1)) return false;
    return true;
  }
  if (isObject(value)) {
    for (const key in value) if (!isJsonValue(value[key], depth + 1)) return false;
    return true;
  }
  return false;
}

/** The shape portalctl writes (`toISOString`): checked without Date.parse, which was a large share of reading a big state. */
const isoTime = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const isTime = (value: unknown): boolean => typeof value === 'string' && (isoTime.test(value) || !Number.isNaN(Date.parse(value)));

function idsProblem(ids: unknown): boolean {
  if (!isObject(ids)) return true;
  for (const key in ids) if (typeof ids[key] !== 'string') return true;
  return false;
}

/**
 * The check of one resource entry. Entries recorded or observed by one apply share their times:
 * a time equal to the last one accepted is not checked again. `checkValues`: walk the value too
 * (an in-memory state may hold what JSON cannot).
 */
class EntryChecker {
  private appliedAt: unknown;
  private observedAt: unknown;

  constructor(private readonly checkValues: boolean) {}

  problem(address: string, entry: unknown): string | undefined {
    const at = `resources["${address}"]`;
    if (!isObject(entry)) return `${at} is not an object`;
    if (typeof entry['kind'] !== 'string' || entry['kind'] === '') return `${at}.kind is missing`;
    if (idsProblem(entry['ids'])) return `${at}.ids is not an object of strings`;
    if (!('value' in entry) || (this.checkValues && !isJsonValue(entry['value']))) return `${at}.value is missing or not JSON`;
    const status = entry['status'];
    if (status !== undefined && status !== 'present' && status !== 'absent') return `${at}.status must be "present" or "absent"`;
    if (entry['appliedAt'] !== undefined && entry['appliedAt'] !== this.appliedAt) {
      if (!isTime(entry['appliedAt'])) return `${at}.appliedAt is not a date`;
      this.appliedAt = entry['appliedAt'];
    }
    if (entry['observedAt'] !== undefined && entry['observedAt'] !== this.observedAt) {
      if (!isTime(entry['observedAt'])) return `${at}.observedAt is not a date`;
      this.observedAt = entry['observedAt'];
    }
    if (entry['names'] !== undefined && namesProblem(entry['names'])) return `${at}.names is not a list of {noun, name, id, field?}`;
    return undefined;
  }
}

function namesProblem(names: unknown): boolean {
  if (!Array.isArray(names)) return true;
  return !names.every(
    (named: unknown) =>
      isObject(named) && typeof named['noun'] === 'string' && typeof named['id'] === 'string' && !idsProblem(named['name']) && (named['field'] === undefined || typeof named['field'] === 'string'),
  );
}

/** `checkValues`: walk entry values too (an in-memory state may hold what JSON cannot); `only`: check these entries alone. */
function findProblem(data: unknown, checkValues: boolean, only?: Iterable<string>): string | undefined {
  if (!isObject(data)) return 'the top level is not an object';
  if (data['formatVersion'] !== STATE_FORMAT_VERSION) {
    return typeof data['formatVersion'] === 'number'
      ? `formatVersion ${data['formatVersion']} is not supported (this portalctl reads version ${STATE_FORMAT_VERSION}); use the portalctl that wrote it`
      : 'formatVersion is missing';
  }
  if (typeof data['lineage'] !== 'string' || data['lineage'] === '') return 'lineage is missing';
  const serial = data['serial'];
  if (typeof serial !== 'number' || !Number.isInteger(serial) || serial < 0) return 'serial is not a non-negative integer';
  const portal = data['portal'];
  if (!isObject(portal) || typeof portal['url'] !== 'string' || portal['url'] === '') return 'portal.url is missing';
  if (portal['id'] !== undefined && typeof portal['id'] !== 'string') return 'portal.id is not a string';
  const resources = data['resources'];
  if (!isObject(resources)) return 'resources is not an object';
  const checker = new EntryChecker(checkValues);
  for (const address of only ?? Object.keys(resources)) {
    if (only && !Object.prototype.hasOwnProperty.call(resources, address)) continue;
    const problem = checker.problem(address, resources[address]);
    if (problem) return problem;
  }
  const unknown = data['unknownOutcomes'];
  if (unknown !== undefined) {
    if (!isObject(unknown)) return 'unknownOutcomes is not an object';
    for (const [address, mark] of Object.entries(unknown)) {
      const where = `unknownOutcomes["${address}"]`;
      if (!isObject(mark)) return `${where} is not an object`;
      if (typeof mark['kind'] !== 'string' || mark['kind'] === '') return `${where}.kind is missing`;
      const ids = mark['ids'];
      if (!isObject(ids) || !Object.values(ids).every((id) => typeof id === 'string')) return `${where}.ids is not an object of strings`;
      if (typeof mark['operation'] !== 'string' || typeof mark['reason'] !== 'string') return `${where} needs operation and reason`;
      if (!('value' in mark) || !isJsonValue(mark['value'])) return `${where}.value is missing or not JSON`;
      if (typeof mark['since'] !== 'string' || Number.isNaN(Date.parse(mark['since']))) return `${where}.since is not a date`;
    }
  }
  return undefined;
}
