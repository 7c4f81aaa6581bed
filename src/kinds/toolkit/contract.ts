/**
 * The contract between the generic engine and the kinds of managed objects.
 *
 * A kind is one file under src/kinds/ and one line in src/kinds/index.ts. It knows the shape
 * and rules of its part of the config, how to read its live state, how to compare, which
 * request a change needs and what it depends on. The engine knows only this interface.
 */
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { ApiRequest, LiveReader } from '../../core/request.js';

export type Edition = 'self-managed' | 'hosted';

/**
 * Thrown by `KindReconciler.read` when the object a declaration changes is not on the portal
 * (an unknown group, item, user, task, role, federation, collaboration or workspace id), so
 * that `plan` names it at its place in the config instead of planning a request the portal will refuse.
 */
export class NotOnPortalError extends Error {
  constructor(
    /** What is missing, for people: e.g. `item 9b1c…`, `task a1b2c3 of user jsmith`. */
    readonly what: string,
    /**
     * Set when what is missing is the config entry the object sits in (its collaboration), not
     * the object: the entry's container (`collaboration`) and address, where the plan says it
     * once, however many of its objects found it missing.
     */
    readonly enclosing?: { container: string; address: string },
    /**
     * Where in the object's declaration the missing object is named (a federation's `groups`
     * entry, relative to the declaration), to say it there; absent: at the declaration.
     */
    readonly at?: ConfigPath,
  ) {
    super(`${what} does not exist on the portal, or this account cannot see it`);
    this.name = 'NotOnPortalError';
  }
}

/**
 * Thrown by `KindReconciler.read` when the portal would refuse the declared change for a rule the
 * spec states about the live object (a level 1 user needs a custom role and owns no items or
 * groups), so that `plan` says it at the declaration instead of planning a request the portal
 * refuses during `apply`, after the operations ordered before it.
 */
export class PortalRefusesError extends Error {
  constructor(
    /** The diagnostic's code, e.g. `user-level/built-in-role`. */
    readonly code: string,
    message: string,
    /** What would be accepted. */
    readonly expected: string,
    /** Where in the object's declaration the refused value is written (e.g. `['name']`); absent: at the declaration. */
    readonly at?: ConfigPath,
  ) {
    super(message);
    this.name = 'PortalRefusesError';
  }
}

/**
 * Thrown by `KindReconciler.read` when there are several reasons the declared change cannot be
 * made (a federation naming two groups the portal does not have), so that `plan` says each at its
 * own place in one run instead of one per run.
 */
export class ReadRefusalsError extends Error {
  constructor(readonly reasons: readonly (NotOnPortalError | PortalRefusesError)[]) {
    super(reasons.map((reason) => reason.message).join('; '));
    this.name = 'ReadRefusalsError';
  }
}

/** What is known about the target portal: declared in `portal:` or read from `portals/self`. */
export interface PortalFacts {
  edition: Edition;
  /**
   * The product release: "11.3", "10.6.1" (self-managed) or the dated "2025.1" (hosted). Never the
   * REST API version a portal reports as `currentVersion`, never a float; absent when unknown (then
   * no version gate refuses anything).
   */
  version?: string;
  access?: 'public' | 'private';
  isVerified?: boolean;
}

/** One managed object declared in the config, at one address. */
export interface DesiredObject {
  /** Kind.name of the kind that owns it. */
  kind: string;
  /** DESIGN.md address, e.g. `user[jsmith].task[a1b2c3]`. */
  address: string;
  /** Identifiers the request paths need, e.g. `{ username: 'jsmith', taskId: 'a1b2c3' }`. */
  ids: Readonly<Record<string, string>>;
  /**
   * The managed fields only, normalised the way the kind compares them, with `${...}`
   * references resolved. `null` when the object is declared absent.
   */
  value: JsonValue;
  /** Declared removal (`absent`), or a removal implied by `prune: true`. */
  absent: boolean;
  /** Removal implied by `prune: true` (or otherwise destructive): needs --allow-destructive. */
  destructive: boolean;
  /** Where the object is declared. */
  source: SourceLocation;
  /**
   * Entries on the way to the object that the config names instead of giving their id
   * (outermost first): until the plan resolves them, their `ids` and address hold placeholders.
   */
  names?: readonly NamedKey[];
}

/**
 * An entry the config names by what people see instead of its id (README "Names instead of
 * ids"): `roles: [{ id: { name: Field Analyst }, ... }]`. The plan resolves it from the reads it
 * makes anyway, through the NameLookup of the entry's container.
 */
export interface NamedKey {
  /** ContainerDefinition.name of the entry, e.g. `role`, `workspace`. */
  container: string;
  /** The entry's name in `ids`, e.g. `roleId`. */
  idName: string;
  /** The name as declared, e.g. `{ name: 'Field Analyst' }`, `{ title: 'Parcels', owner: 'jdoe' }`. */
  fields: Readonly<Record<string, string>>;
  /** What stands for the id until it is resolved, in `ids` and in the address: `name=Field Analyst`. */
  placeholder: string;
  /** Where the name is written. */
  readonly source: SourceLocation;
}

/** One field a container's entries may be named by. */
export interface NameField {
  name: string;
  /** Required fields must be given; the others narrow the match when names repeat (a group's owner). */
  required: boolean;
  description: string;
}

/** A live object a name may mean: its id and the name fields it has. */
export interface NameCandidate {
  id: string;
  fields: Readonly<Record<string, string>>;
}

/**
 * How the entries of one container may be named instead of identified by id: declared as data
 * by the kind that owns the container's objects, resolved by the engine. `candidates` reads
 * through the plan's memoised reader, by the same paths the kind's live reads use, so resolving
 * names costs no request of its own where the API lists the objects.
 */
export interface NameLookup {
  /** ContainerDefinition.name, e.g. `group`. */
  container: string;
  /** What the objects are called in messages: `role`, `group`, `item`. */
  noun: string;
  /** The fields, in the order messages name them. */
  fields: readonly NameField[];
  /** The live objects (with `parent`: the ids of the enclosing entries, e.g. `{ collaborationId }`). */
  candidates(reader: LiveReader, parent: Readonly<Record<string, string>>): Promise<NameCandidate[]>;
}

export type Action = 'create' | 'update' | 'delete';

/** What a kind proposes when desired and live differ. */
export interface Change {
  action: Action;
  /** Live value projected onto the managed fields (null: does not exist / no value). */
  before: JsonValue;
  /** Value after the change (null: removed). */
  after: JsonValue;
  request: ApiRequest;
}

export interface CheckContext {
  /**
   * What is known about the portal. At `validate` time only what the config's `portal:` block
   * declares (gates apply only to declared facts); at plan time the live portal's facts.
   */
  portal: Partial<PortalFacts>;
  /** Every desired object of the config, for rules that span objects (e.g. 200 categories per organization). */
  all: readonly DesiredObject[];
  /**
   * Where a part of an object's declaration sits: `path` is relative to the object's own
   * declaration (e.g. `[5]` for the sixth tree of a category schema). Falls back to obj.source.
   */
  locate?(obj: DesiredObject, path: ConfigPath): SourceLocation;
}

/** A JSON Schema fragment (draft-07 keywords), plain JSON so it can be published as is. */
export type JsonSchema = { [key: string]: JsonValue };

/** Path of a node inside one parsed config document: property names and list indexes. */
export type ConfigPath = readonly (string | number)[];

/** One entry of a config container (e.g. one element of `users:`) as a kind sees it. */
export interface ContainerScope {
  /** Address of the entry: `organization`, `user[jsmith]`, `collaboration[c0ffee].workspace[w1]`. */
  address: string;
  /** Identifiers of the entry and its enclosing entries, e.g. `{ collaborationId, workspaceId }`. */
  ids: Readonly<Record<string, string>>;
  /** The entries on the way that are named, not given by id (their `ids` are placeholders). */
  names?: readonly NamedKey[];
}

/** What a kind declares from one container entry. */
export interface Declarations {
  /** A managed object; `path` is where it is declared, relative to the entry. */
  object(declared: {
    address: string;
    ids: Readonly<Record<string, string>>;
    value: JsonValue;
    absent: boolean;
    path: ConfigPath;
  }): void;
  /** A `prune: true` opt-in: the live half removes what exists in `collection` and is not in `keys`. */
  prune(declared: Omit<PruneDeclaration, 'source'> & { path: ConfigPath }): void;
}

/**
 * A collection that opted in to `prune: true`. At plan time every live member of the
 * collection whose key is not in `keys` becomes a destructive removal by `kind`.
 */
export interface PruneDeclaration {
  /** Address prefix of the collection's members, e.g. `organization.resource` or `collaboration[c0ffee].participant`. */
  collection: string;
  /** Kind.name of the kind whose removals it implies. */
  kind: string;
  /** Identifiers of the collection's owner, e.g. `{ collaborationId: 'c0ffee' }`. */
  ids: Readonly<Record<string, string>>;
  /** Keys the config declares (kept or absent); members with other keys are pruned. */
  keys: readonly string[];
  source: SourceLocation;
  /** The named entries on the way to the collection (their ids are placeholders until resolved). */
  names?: readonly NamedKey[];
}

/**
 * What a kind adds to one container of the config (src/kinds/toolkit/containers.ts): properties of
 * the container's entries, and how declared objects are read from an entry. The top-level
 * JSON Schema is composed from these fragments.
 */
export interface ConfigContribution {
  /** ContainerDefinition.name, e.g. `organization`, `user`, `participant`. */
  readonly container: string;
  /** JSON Schema of each property this kind owns in the container's entries. */
  readonly properties: Readonly<Record<string, JsonSchema>>;
  /**
   * For containers whose entries come in variants (a participant is a removal or an
   * invitation): the property that identifies this kind's variant; it becomes required.
   */
  readonly variantKey?: string;
  /** Read the declared objects of one entry; called only when its properties passed the schema. */
  extract(entry: JsonObject, scope: ContainerScope, declare: Declarations): void;
  /**
   * Address of the object a schema problem at `path` (relative to the entry, starting with one of
   * `properties`) belongs to. Default: `<entry address>.<property>`.
   */
  addressOf?(entry: JsonObject, scope: ContainerScope, path: ConfigPath): string;
}

/**
 * The config half of a kind: its place in the YAML, its JSON Schema fragment, how declared
 * objects are extracted, and the portal's rules. Used by `validate`, which needs no network.
 */
export interface KindDefinition {
  /** Stable name, e.g. `group.categorySchema`; also the key in the state file. */
  readonly name: string;
  /** The spec operation it drives: id (E1..E14) and name, shown in plans. */
  readonly operation: { readonly id: string; readonly name: string };

  /** Where the kind sits in the config, its schema fragments and how objects are extracted. */
  readonly config: readonly ConfigContribution[];

  /** Rules the portal would reject, beyond the JSON Schema's shape (limits, editions, versions). */
  check(obj: DesiredObject, ctx: CheckContext): Diagnostic[];

  /** Who may call the operation (the spec's Authentication table); absent when it states nothing. */
  readonly authority?: Authority;

  /** Containers whose entries may be named instead of identified by id, and how names are resolved. */
  readonly names?: readonly NameLookup[];

  /** Fields of the value that hold other objects' ids, which the config may give by name instead. */
  readonly references?: readonly NamedReference[];
}

/**
 * A field of a kind's value that holds the id of an entry of another container (a federation's
 * `roleId`: a role), or a list of them: the config may give each by the container's name fields
 * (`roleId: { name: Viewer }`), resolved by the plan through that container's NameLookup.
 */
export interface NamedReference {
  /** The value's field, e.g. `roleId`. */
  field: string;
  /** ContainerDefinition.name of the entries it refers to, e.g. `role`: a top-level one (a name names no enclosing entry). */
  container: string;
  /** The field holds a list of ids (a federation's `groups`). */
  list?: boolean;
}

/**
 * Who may call a kind's operation. A caller qualifies by its role (`administrator`: role
 * org_admin; `defaultAdministrator`: role and roleId org_admin) or, when `privilege` is named, by
 * holding that privilege. App tokens have no role: only their app's privileges count.
 */
export interface Authority {
  /** The spec's wording, shown when the caller does not qualify. */
  readonly who: string;
  readonly role: 'administrator' | 'defaultAdministrator';
  readonly privilege?: string;
}

/** What a read knows of the plan around it: how many objects of the same kind are read with it (to choose one list read over single reads), and which. */
export interface ReadContext {
  declared: number;
  /**
   * The objects of the same kind read with it (a role's rename onto the name another declared
   * role gives up is no clash); absent where a read is made alone.
   */
  peers?: readonly DesiredObject[];
}

/** The live half of a kind: reading, comparing, the change's request, ordering. */
export interface KindReconciler {
  /**
   * The live value of the object, normalised and projected onto the fields `obj` manages, in
   * the same shape as `obj.value`; `null` when it does not exist or has no value.
   */
  read(obj: DesiredObject, reader: LiveReader, context?: ReadContext): Promise<JsonValue>;

  /**
   * The object as a person knows it (an item's title and owner, a user's full name), from the
   * reads `read` made or from a list endpoint read once for all: never a request per object.
   */
  label?(obj: DesiredObject, reader: LiveReader, context?: ReadContext): Promise<string | undefined>;

  /** Normalised comparison (absent = null = "" where the API treats them alike, ...). */
  inSync(desired: DesiredObject, live: JsonValue): boolean;

  /**
   * The recorded and live values over what both describe, for drift: a kind of declared fields
   * compares only the fields `obj` declares now that the record holds too (a field no longer
   * declared, or declared since it was recorded, changed nothing on the portal). Absent: both whole.
   */
  driftValues?(obj: DesiredObject, recorded: JsonValue, live: JsonValue): { recorded: JsonValue; live: JsonValue };

  /**
   * The live value with the declared fields the portal's answer left out taken from the record
   * (`recorded`: what portalctl last set or saw is all that is known of them). Without a record
   * they stay out, unknown, and their declared values are sent. Absent: the value as read.
   */
  withUnreported?(obj: DesiredObject, live: JsonValue, recorded: JsonValue | undefined): JsonValue;

  /** The change that brings `live` to `desired`; called only when they are not in sync. */
  change(desired: DesiredObject, live: JsonValue): Change;

  /**
   * Differences the plan cannot resolve, named as warnings (e.g. a joined participant whose
   * access differs from the config: no spec operation changes it). Called for every targeted object.
   */
  warnings?(desired: DesiredObject, live: JsonValue): string[];

  /**
   * For operations whose answer carries something only that answer gives (E13's invitation
   * file): how to get it again from the live portal when the answer was lost (unknown outcome,
   * the process killed in flight) but the portal shows the operation was performed. Either the
   * file itself, read from the live portal, or a request whose answer is the file.
   */
  recoverAnswer?(obj: DesiredObject, reader: LiveReader): Promise<RecoveredAnswer | undefined>;

  /**
   * Addresses this object must wait for (a role before a federation that names it). `live`: the
   * values the plan compares against, by address (read from the portal, or recorded with
   * `--refresh=false`), for an order the portal's present state decides (a role renamed onto the
   * name another declared role has now waits for that role's rename); empty where none is known.
   */
  dependsOn(obj: DesiredObject, all: readonly DesiredObject[], live: ReadonlyMap<string, JsonValue>): string[];

  /**
   * Why objects of this kind that wait on each other in a ring (two roles swapping names) can
   * never be changed in one apply: said at each of them, before anything is written. `ring` starts
   * at `obj`, each object waiting for the next and the last for the first. Absent: the ring is
   * said as a dependency cycle at each object's declaration.
   */
  ringRefusal?(obj: DesiredObject, ring: readonly DesiredObject[]): PortalRefusesError;

  /**
   * For kinds whose collections accept `prune: true`: the live members the declaration does
   * not name, as absent, destructive objects (read through `reader`, never from the config).
   */
  prune?(declaration: PruneDeclaration, reader: LiveReader): Promise<DesiredObject[]>;

  /**
   * For `import`: the live objects of this kind that can be declared, in config form, plus
   * comments on what exists but cannot be declared (removal-only kinds, disabled tasks, ...).
   * Reads only through `reader`; a refused read (403 GWM_0003) may simply be thrown.
   */
  discover?(reader: LiveReader, portal: PortalFacts): Promise<DiscoveredObject[]>;
}

/** A lost answer, got again: a file read from the live portal, or the request that answers with it. */
export type RecoveredAnswer = { file: { filename: string; content: string } } | { request: ApiRequest };

/** One step from the top of the config down to an entry: a container (src/kinds/toolkit/containers.ts) and, for lists, the entry's key. */
export interface ConfigStep {
  /** ContainerDefinition.name, e.g. `organization`, `user`, `workspace`. */
  container: string;
  /** The entry's key for list containers (`id`, `username`); omitted for sections and for the list itself. */
  key?: string;
  /** Names the entry for a reviewer; written as a comment above it, e.g. `Road Centerlines (owner publisher1)`. */
  comment?: string;
  /** `import --by-name`: the entry's name fields, written as its key instead of the id. */
  name?: Readonly<Record<string, string>>;
}

/** A comment inside an entry's fields, e.g. above `tasks[0]`. */
export interface FieldComment {
  /** Path relative to the entry: a property name, then list indexes and property names. */
  at: ConfigPath;
  text: string;
}

/** What `import` found live for one kind at one place of the config. */
export interface DiscoveredObject {
  /** Where the entry sits, from the top-level section down to the entry itself. */
  path: readonly ConfigStep[];
  /** The entry's properties this object declares, in config form; empty for a comment-only note. */
  fields: JsonObject;
  /**
   * How many managed objects (addresses) `fields` declare, when not one: a user's enabled tasks
   * are one entry's `tasks` list and one object each, as `validate` and `plan` count them.
   */
  objects?: number;
  comments?: readonly FieldComment[];
  /**
   * What exists but cannot be declared, as comment lines. They go above the entry, or, when no
   * field creates it, above the nearest enclosing part of the config that exists.
   */
  notes?: readonly string[];
}

export type Kind = KindDefinition & KindReconciler;
