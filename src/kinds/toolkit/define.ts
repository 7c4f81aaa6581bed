/**
 * A kind as data (issue 11): where its live record comes from, which fields it manages and how
 * each compares and encodes, which request a change sends. `defineKind` turns that into the
 * Kind contract the engine sees, with the generic diff: read -> project -> compare -> before,
 * after and request. Dependencies, rule checks and warnings default to none. Only kinds with
 * real special cases (category trees, invitations, removals found by prune) write code of
 * their own, as plain functions passed in here.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { deepEqual } from '../../core/json.js';
import type { ApiRequest, LiveReader } from '../../core/request.js';
import { toFormValue } from '../../api/encoding.js';
import { isMissingPrivilege, isUncodedRefusal } from '../../api/errors.js';
import {
  NotOnPortalError,
  ReadRefusalsError,
  type PortalRefusesError,
  type Action,
  type Change,
  type DesiredObject,
  type Kind,
  type KindDefinition,
  type KindReconciler,
  type ReadContext,
} from './contract.js';
import { isObject, pick } from './support.js';

/** One field of an object-valued kind: how it is read, compared and sent. */
export interface ManagedField {
  /** The live value in the config's shape, from the live record; default: `record[name]`. */
  read?(record: JsonObject): JsonValue | undefined;
  /** The value both sides are compared as; default: the value itself, a missing one as null. */
  compare?(value: JsonValue | undefined): JsonValue;
  /** The field's form text; default: the one form encoder (numbers as text, null as ""). */
  encode?(value: JsonValue): string | undefined;
}

/**
 * A list the kind's objects sit in (roles, the organization's items, a user's tasks, ...): read
 * once for every declared object of the kind, when that costs fewer requests than one read each.
 */
export interface ListSource {
  /** The list's path, the same for every object it serves (the reader memoises it). */
  path(obj: DesiredObject, reader: LiveReader): Promise<string> | string;
  itemsField: string;
  /** An entry's key, matched against `idOf` of the object. */
  keyOf(entry: JsonObject): string | undefined;
  idOf(obj: DesiredObject): string | undefined;
  /**
   * The path of the list owner's own read (a task list's user). When the list is refused with a
   * 400 that names no messageCode (an unknown owner looks like any other bad request there), the
   * owner's read tells whether the owner is missing; only then, so a list read costs nothing more.
   */
  owner?(obj: DesiredObject): string;
}

export interface LiveSource {
  /** The object's own read (GET); undefined: it does not exist. */
  one?(obj: DesiredObject, reader: LiveReader): Promise<JsonObject | undefined>;
  /** The list holding it; without `one` the list is always read. */
  list?: ListSource;
  /**
   * What to name when the record is missing (`listOwnerFound` false: the list's owner, such as
   * the user of a task list, is not there either), for a kind the API cannot create (the plan
   * says so); absent: a missing record is the value null. An error naming an enclosing entry
   * (the task's user) is said once at that entry.
   */
  missing?(obj: DesiredObject, listOwnerFound: boolean): string | NotOnPortalError;
  /**
   * Asked when the record is missing, before `missing`: the entry the object sits in, when it is
   * that entry the portal does not have (it answers an unknown collaboration's workspaces and
   * participants as it answers an unknown workspace: 404). Undefined when the entry is there.
   */
  missingEnclosing?(obj: DesiredObject, reader: LiveReader): Promise<NotOnPortalError | undefined>;
  /**
   * Asked when the record is there: why the portal would refuse the declared change, for a rule
   * the spec states about the live object, or an object the declaration names that the portal
   * does not have (undefined or none: no reason). Thrown by `read`, so the plan says it at the
   * declaration; several are all said, each at its place.
   */
  refusal?(
    record: JsonObject,
    obj: DesiredObject,
    reader: LiveReader,
    context: ReadContext | undefined,
  ): Promise<PortalRefusesError | NotOnPortalError | readonly (PortalRefusesError | NotOnPortalError)[] | undefined>;
}

/** The request of a change: a POST answered with JSON. */
export interface RequestSpec {
  path(desired: DesiredObject): string;
  /**
   * The form as values, encoded once here (default: the declared fields, each by its field's
   * `encode`). An undefined value is not sent.
   */
  form?(desired: DesiredObject): Record<string, JsonValue | undefined>;
}

interface KindSpecBase extends Omit<KindDefinition, 'check'> {
  check?: KindDefinition['check'];
  live: LiveSource;
  request: RequestSpec;
  /** The object as a person knows it (title, owner, full name), from its live record. */
  label?(record: JsonObject, obj: DesiredObject): string | undefined;
  /**
   * A list that names the objects (a group's title for its schema), or their owner beside their
   * own label (a task's user); read once, and only when it costs no more than one read per object.
   */
  labelList?: ListSource & { labelOf(entry: JsonObject): string | undefined };
  dependsOn?: KindReconciler['dependsOn'];
  ringRefusal?: KindReconciler['ringRefusal'];
  warnings?: KindReconciler['warnings'];
  prune?: KindReconciler['prune'];
  discover?: KindReconciler['discover'];
}

/** A kind whose value is an object of declared fields, each managed as the table says. */
export interface FieldsKindSpec extends KindSpecBase {
  fields: Readonly<Record<string, ManagedField>>;
  /**
   * Fields whose live value may be missing from the answer: then left out of the live value, and
   * the engine takes them from the record (`withUnreported`); never recorded, they are sent.
   */
  mayBeUnreported?: ReadonlySet<string>;
}

/** A kind whose value is one value (a status, a level, a tree). */
export interface ValueKindSpec extends KindSpecBase {
  value: {
    read(record: JsonObject, obj: DesiredObject): JsonValue;
    /** Both sides compare as this; default: the value itself. */
    compare?(value: JsonValue): JsonValue;
    /** `deepEqual(compare(a), compare(b))` without building either side, for large values. */
    same?(a: JsonValue, b: JsonValue): boolean;
    /** The change's action; default: `delete` for a null value, else `update`. */
    action?(desired: DesiredObject): Action;
  };
}

/** A kind whose only operation is a removal: in sync once the record is gone. */
export interface RemovalKindSpec extends KindSpecBase {
  removal: {
    /** The view of the record shown as `before`. */
    view(record: JsonObject, obj: DesiredObject): JsonValue;
  };
}

export type KindSpec = FieldsKindSpec | ValueKindSpec | RemovalKindSpec;

const pageSize = 100;

/**
 * Whether one list read serves `declared` objects for fewer requests than one read each: a list
 * of N entries costs ceil(N / 100) pages (the first page, which tells N, is read anyway and
 * memoised); K single reads cost K.
 */
export async function listPays(reader: LiveReader, path: string, itemsField: string, declared: number): Promise<boolean> {
  if (!reader.total) return false;
  const total = await reader.total(path, itemsField);
  if (total === undefined) return false;
  return Math.max(1, Math.ceil(total / pageSize)) <= Math.max(1, declared);
}

/** The entries of a list by key, built once per list answer. */
const indexes = new WeakMap<readonly JsonObject[], Map<string, JsonObject>>();

async function listEntryOf(source: ListSource, obj: DesiredObject, reader: LiveReader): Promise<{ listed: boolean; entry?: JsonObject }> {
  let entries: JsonObject[] | undefined;
  try {
    entries = await reader.list(await source.path(obj, reader), source.itemsField);
  } catch (error) {
    if (source.owner && isUncodedRefusal(error) && (await ownerMissing(source.owner(obj), reader))) return { listed: false };
    throw error;
  }
  if (!entries) return { listed: false };
  let index = indexes.get(entries);
  if (!index) {
    index = new Map();
    for (const entry of entries) {
      const key = source.keyOf(entry);
      if (key !== undefined && !index.has(key)) index.set(key, entry);
    }
    indexes.set(entries, index);
  }
  const id = source.idOf(obj);
  const entry = id === undefined ? undefined : index.get(id);
  return entry ? { listed: true, entry } : { listed: true };
}

/** Whether the owner's read says it does not exist; a failure of that read explains nothing (the list's own error stands). */
async function ownerMissing(path: string, reader: LiveReader): Promise<boolean> {
  try {
    return (await reader.get(path)) === undefined;
  } catch {
    return false;
  }
}

/** The object's live record: from its list when that pays (or there is no single read), else its own read. */
async function recordOf(live: LiveSource, obj: DesiredObject, reader: LiveReader, context: ReadContext | undefined): Promise<{ record?: JsonObject; listed: boolean }> {
  const { list, one } = live;
  if (list && (!one || (await listPays(reader, await list.path(obj, reader), list.itemsField, context?.declared ?? 1)))) {
    const { entry, listed } = await listEntryOf(list, obj, reader);
    if (entry) return { record: entry, listed };
    if (!one) return { listed };
    // Not in the list (search results may lag or omit it): its own read decides.
  }
  const record = one ? await one(obj, reader) : undefined;
  return record ? { record, listed: true } : { listed: true };
}

/**
 * The label from the kind's label list, when reading that list pays. A token that may not read
 * the list (the organization's members are for administrators: 403 GWM_0003) gets no label from
 * it: a label names the object for a reader, it is no reason to fail a plan.
 */
async function listedLabel(labelList: NonNullable<KindSpec['labelList']>, obj: DesiredObject, reader: LiveReader, context: ReadContext | undefined): Promise<string | undefined> {
  try {
    if (!(await listPays(reader, await labelList.path(obj, reader), labelList.itemsField, context?.declared ?? 1))) return undefined;
    const { entry } = await listEntryOf(labelList, obj, reader);
    return entry ? labelList.labelOf(entry) : undefined;
  } catch (error) {
    if (isMissingPrivilege(error)) return undefined;
    throw error;
  }
}

function requestForm(values: Record<string, JsonValue | undefined>, fields?: Readonly<Record<string, ManagedField>>): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const encode = fields?.[name]?.encode;
    const text = encode ? encode(value) : toFormValue(value);
    if (text !== undefined) form[name] = text;
  }
  return form;
}

function requestOf(spec: KindSpec, desired: DesiredObject): ApiRequest {
  const fields = 'fields' in spec ? spec.fields : undefined;
  const values = spec.request.form ? spec.request.form(desired) : isObject(desired.value) ? desired.value : {};
  return { method: 'POST', path: spec.request.path(desired), form: requestForm(values, fields), response: 'json', idempotent: true };
}

const nullish = (value: JsonValue | undefined): JsonValue => (value === undefined ? null : value);

function reconcilerOf(spec: KindSpec): Pick<KindReconciler, 'inSync' | 'change' | 'driftValues' | 'withUnreported'> & { project(record: JsonObject, obj: DesiredObject): JsonValue } {
  if ('removal' in spec) {
    return {
      project: (record, obj) => spec.removal.view(record, obj),
      inSync: (desired, live) => (desired.absent ? live === null : live !== null),
      change: (desired, live) => ({ action: 'delete', before: live, after: null, request: requestOf(spec, desired) }),
    };
  }
  if ('value' in spec) {
    const compare = spec.value.compare ?? ((value: JsonValue) => value);
    const same = spec.value.same ?? ((a: JsonValue, b: JsonValue) => deepEqual(compare(a), compare(b)));
    return {
      project: (record, obj) => spec.value.read(record, obj),
      inSync: (desired, live) => same(desired.value, live),
      change: (desired, live): Change => {
        const action = spec.value.action ? spec.value.action(desired) : desired.value === null ? 'delete' : 'update';
        return { action, before: live, after: action === 'delete' ? null : desired.value, request: requestOf(spec, desired) };
      },
    };
  }
  const comparable = (name: string, value: JsonValue | undefined): JsonValue => {
    const compare = spec.fields[name]?.compare;
    return compare ? compare(value) : nullish(value);
  };
  return {
    project(record, obj) {
      const projected: JsonObject = {};
      for (const name of Object.keys(isObject(obj.value) ? obj.value : {})) {
        const field = spec.fields[name];
        const value = field?.read ? field.read(record) : record[name];
        // Unknown: left out, for the engine to take from the record (withUnreported).
        if (value === undefined && spec.mayBeUnreported?.has(name)) continue;
        projected[name] = nullish(value);
      }
      return projected;
    },
    inSync(desired, live) {
      if (!isObject(desired.value) || !isObject(live)) return false;
      return Object.entries(desired.value).every(([name, value]) => deepEqual(comparable(name, value), comparable(name, live[name])));
    },
    change: (desired, live) => ({ action: 'update', before: live, after: desired.value, request: requestOf(spec, desired) }),
    ...(spec.mayBeUnreported
      ? {
          withUnreported(obj: DesiredObject, live: JsonValue, recorded: JsonValue | undefined): JsonValue {
            const declared = obj.value;
            if (!isObject(declared) || !isObject(live) || !isObject(recorded)) return live;
            const known = [...(spec.mayBeUnreported ?? [])].filter((name) => Object.hasOwn(declared, name) && !Object.hasOwn(live, name) && Object.hasOwn(recorded, name));
            return known.length === 0 ? live : { ...live, ...pick(recorded, known) };
          },
        }
      : {}),
    driftValues(obj, recorded, live) {
      if (!isObject(obj.value) || !isObject(recorded) || !isObject(live)) return { recorded, live };
      const both = Object.keys(obj.value).filter((name) => Object.prototype.hasOwnProperty.call(recorded, name));
      return { recorded: pick(recorded, both), live: pick(live, both) };
    },
  };
}

/** The Kind contract from a kind's data. */
export function defineKind(spec: KindSpec): Kind {
  const { live, label, labelList } = spec;
  const { project, inSync, change, driftValues, withUnreported } = reconcilerOf(spec);
  const kind: Kind = {
    name: spec.name,
    operation: spec.operation,
    config: spec.config,
    ...(spec.authority ? { authority: spec.authority } : {}),
    ...(spec.names ? { names: spec.names } : {}),
    ...(spec.references ? { references: spec.references } : {}),
    check: spec.check ?? (() => []),
    async read(obj, reader, context) {
      const { record, listed } = await recordOf(live, obj, reader, context);
      if (!record) {
        const enclosing = await live.missingEnclosing?.(obj, reader);
        if (enclosing) throw enclosing;
        const missing = live.missing?.(obj, listed);
        if (missing !== undefined) throw typeof missing === 'string' ? new NotOnPortalError(missing) : missing;
        return null;
      }
      const refused = await live.refusal?.(record, obj, reader, context);
      if (refused instanceof Error) throw refused;
      if (refused && refused.length > 1) throw new ReadRefusalsError(refused);
      if (refused?.[0]) throw refused[0];
      return project(record, obj);
    },
    async label(obj, reader, context) {
      // The same memoised reads as `read`: no request of its own.
      const { record } = label ? await recordOf(live, obj, reader, context) : {};
      const own = record && label ? label(record, obj) : undefined;
      const listed = labelList ? await listedLabel(labelList, obj, reader, context) : undefined;
      return own && listed ? `${own} (${listed})` : (own ?? listed);
    },
    inSync,
    change,
    ...(driftValues ? { driftValues } : {}),
    ...(withUnreported ? { withUnreported } : {}),
    dependsOn: spec.dependsOn ?? (() => []),
    ...(spec.ringRefusal ? { ringRefusal: spec.ringRefusal } : {}),
    ...(spec.warnings ? { warnings: spec.warnings } : {}),
    ...(spec.prune ? { prune: spec.prune } : {}),
    ...(spec.discover ? { discover: spec.discover } : {}),
  };
  return kind;
}
