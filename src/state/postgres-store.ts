/**
 * The PostgreSQL state store (`--state postgres://…`, `--state-name NAME`), on node-postgres.
 *
 * - Tables live in one schema (`portalctl`, or `?schema=` in the URL), created on first use and
 *   migrated forward under a transaction-level advisory lock; `schema_version` says which
 *   release wrote them, and a newer one than this release knows is refused.
 * - Every write is one transaction: check lineage and serial (row locked), store what changed
 *   with serial+1 and add the change to the history, drop history past the keep count
 *   (postgres-journal.ts). Readers see the last committed state, never half an apply, and never
 *   wait for the lock.
 * - Lock: a session advisory lock on a dedicated connection, keyed by a 64-bit hash of the
 *   schema and the state name (so names and schemas never share a lock), with a row in `locks`
 *   naming the real holder. When the holder dies or loses its connection, the database ends
 *   its session and the lock with it. Writes of the lock holder run on that same connection, so
 *   a run that lost its lock cannot write.
 * - Every call is bounded: connecting by `connect_timeout`, each statement (the lock's, a
 *   commit's) by `query_timeout` (URL parameters, in seconds). A server that stops answering
 *   fails the command with a message naming the bound; the connection that waited is destroyed
 *   (its late answers would be read as the next statement's), which for the lock's connection
 *   means the lock is lost, and every socket this store opened is closed when it closes.
 */
import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import type { ClientBase, ClientConfig, Pool, Client, QueryResultRow } from 'pg';
import { noSuchLock, StateBackendError, StateConflictError, StateCorruptError, StateError, StateLockedError } from './errors.js';
import { describeHolder, formatWait, stoppedWaiting } from './lock.js';
import { validateState, type StateDocument } from './format.js';
import { carryWriterChanges, hasWriterChanges } from './journal.js';
import { journalMigration, ownLineage, readStoredSerial, readStoredState, setAsideLeftovers, storeState, type PostgresStateTables, type SetAside, type StoredState } from './postgres-journal.js';
import { DEFAULT_STATE_NAME, parsePostgresUrl, type PostgresTarget } from './postgres-url.js';
import { shellWord } from '../core/words.js';
import { processAlive } from '../core/processes.js';
import { copyChanges, HolderIdentity, refuseOverwrite } from './policy.js';
import { DEFAULT_HISTORY_KEEP, type HistoryEntry, type LockInfo, type LockRequest, type LockStatus, type StateLock, type StateStore, type StoreNoticeKind } from './store.js';

/** The version of the tables this release writes; see MIGRATIONS. */
export const POSTGRES_SCHEMA_VERSION = 3;

/** Forward migrations, by the version they reach. Never edit a released one: add the next. */
const MIGRATIONS: Record<number, (schema: string) => string[]> = {
  1: (s) => [
    `CREATE TABLE ${s}.states (name text PRIMARY KEY, lineage text NOT NULL, serial bigint NOT NULL, document jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${s}.locks (name text PRIMARY KEY, lock_id text NOT NULL, holder jsonb NOT NULL, backend_pid integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  ],
  2: (s) => [
    `CREATE TABLE ${s}.history (name text NOT NULL, serial bigint NOT NULL, lineage text NOT NULL, document jsonb NOT NULL, command text NOT NULL, ` +
      `written_at timestamptz NOT NULL DEFAULT now(), resources integer NOT NULL, changed integer NOT NULL, PRIMARY KEY (name, serial))`,
  ],
  // Entries as rows and history as changes: a write costs what it changed (postgres-journal.ts).
  3: journalMigration,
};

export interface PostgresStateStoreOptions {
  /** postgres:// or postgresql:// URL; `?schema=` picks the schema. */
  url: string;
  /** The state inside the database. */
  name: string;
  /** For PGPASSWORD. */
  env?: NodeJS.ProcessEnv;
  /** The command recorded in the history and the lock (password-free). */
  command?: string;
  keepHistory?: number;
  /** Told when this run waits for another's lock or takes over a dead holder's lock. */
  onNotice?: (message: string, kind: StoreNoticeKind) => void;
  host?: string;
  pid?: number;
  user?: string;
  sleep?: (ms: number) => Promise<void>;
}

type PgModule = Pick<typeof import('pg'), 'Pool' | 'Client'>;

let pgModule: Promise<PgModule> | undefined;
/**
 * Loaded on first use: commands on a file state never pay for the driver. `pg` is an optional
 * peer dependency of the package (installed only by those who keep the state in PostgreSQL), so
 * its absence is said plainly.
 */
function loadPg(): Promise<PgModule> {
  pgModule ??= import('pg').then(
    (module) => module.default,
    (error: unknown) => {
      pgModule = undefined;
      const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
      if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && /['"]pg['"]/.test(String(error))) {
        throw new StateError(
          'A PostgreSQL state needs the pg package (node-postgres), which is not installed. Install it beside portalctl: `npm install pg` (file states do not need it).',
          { cause: error },
        );
      }
      throw error;
    },
  );
  return pgModule;
}

/** 64-bit advisory lock key of a state: a hash of what names it, so no two states share one. */
export function advisoryLockKey(schema: string, name: string): bigint {
  return createHash('sha256').update(`portalctl state lock\0${schema}\0${name}`).digest().readBigInt64BE(0);
}

const DEFAULT_POLL_MS = 100;

interface StoredRow {
  lineage: string;
  serial: number;
  headDigest: string;
}

interface HeldLock {
  client: Client;
  info: LockInfo;
  /** Set when the lock's connection failed: the database has released the lock. */
  lost?: Error;
}

export class PostgresStateStore implements StateStore {
  /** A session advisory lock: the server releases it when the lock's connection closes, as it does when the process ends. */
  readonly lockEndsWithProcess = true;
  readonly name: string;
  readonly schema: string;
  private readonly target: PostgresTarget;
  private readonly quoted: string;
  private readonly key: bigint;
  private readonly command: string | undefined;
  private readonly keepHistory: number;
  private readonly onNotice: ((message: string, kind: StoreNoticeKind) => void) | undefined;
  private readonly identity: HolderIdentity;
  private readonly sleep: (ms: number) => Promise<void>;
  private pool: Pool | undefined;
  private held: HeldLock | undefined;
  private schemaReady = false;
  /**
   * The state this store read or wrote last: a write that finds the same lineage, serial and
   * head stored starts from it instead of reading the state back (serials only grow, and a
   * state copied in at the same serial must have the same content).
   */
  private known: (StoredState & { shared: boolean }) | undefined;
  /** Every socket this store opened and that is still open: closed, whatever the server does, when the store closes. */
  private readonly sockets = new Set<Socket>();

  constructor(options: PostgresStateStoreOptions) {
    this.target = parsePostgresUrl(options.url, options.env ?? process.env);
    this.name = options.name;
    this.schema = this.target.schema;
    this.quoted = `"${this.schema}"`;
    this.key = advisoryLockKey(this.schema, this.name);
    this.command = options.command;
    this.keepHistory = options.keepHistory ?? DEFAULT_HISTORY_KEEP;
    this.onNotice = options.onNotice;
    this.identity = new HolderIdentity(options);
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  describe(): string {
    // A schema other than the default is the URL's own ?schema=, shown in it.
    return `${this.target.shown} state "${this.name}"`;
  }

  unlockCommand(lockId: string): string {
    const command = `portalctl state unlock ${lockId} --state ${shellWord(this.target.shown)}${this.name === DEFAULT_STATE_NAME ? '' : ` --state-name ${shellWord(this.name)}`}`;
    // The URL is shown without the password it was given with: the command needs it from elsewhere.
    return this.target.passwordInUrl ? `PGPASSWORD=… ${command}` : command;
  }

  // ---- connections -------------------------------------------------------------------------

  /**
   * The connection string node-postgres gets, with the password from a password file (~/.pgpass,
   * PGPASSFILE) when neither the URL nor PGPASSWORD gave one: read here, as libpq would, since
   * node-postgres's own lookup prints a deprecation warning.
   */
  private connection: Promise<{ connectionString: string; password?: string }> | undefined;
  /** The password in use, whichever place it came from: never in a message. */
  private password: string | undefined;

  private async clientConfig(purpose: string): Promise<ClientConfig> {
    this.connection ??= withPasswordFromFile(this.target)
      .then((found) => this.withTransport(found))
      .catch((error: unknown) => {
        // A server not reachable yet is tried again by the next connection.
        this.connection = undefined;
        throw error;
      });
    const { connectionString, password } = await this.connection;
    this.password = password ?? this.target.password;
    return this.clientConfigFor(connectionString, purpose);
  }

  /**
   * For `sslmode=prefer|allow`, the transport the server takes, tried once per store as libpq
   * tries it: prefer falls back to a plain connection when the server answers that it has no
   * TLS; allow, to TLS when the server refuses the plain connection (pg_hba `hostssl`: SQLSTATE
   * class 28). Any other failure is the first try's, said as any failure to connect.
   */
  private async withTransport(found: { connectionString: string; password?: string }): Promise<{ connectionString: string; password?: string }> {
    const fallback = this.target.tlsFallback;
    if (!fallback) return found;
    const pg = await loadPg();
    const probe = new pg.Client(this.clientConfigFor(found.connectionString, `connect (sslmode=${fallback.from})`));
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return found;
    } catch (error) {
      const refused = fallback.from === 'prefer' ? error instanceof Error && /does not support SSL/i.test(error.message) : /^28/.test(String((error as { code?: unknown }).code ?? ''));
      if (!refused) throw error;
      const url = new URL(found.connectionString);
      url.searchParams.set('sslmode', fallback.fallbackSslMode);
      return { ...found, connectionString: url.toString() };
    } finally {
      await endClient(probe, false, this.target.queryTimeoutMs);
    }
  }

  private clientConfigFor(connectionString: string, purpose: string): ClientConfig {
    return {
      connectionString,
      application_name: `portalctl ${purpose}`.slice(0, 63),
      connectionTimeoutMillis: this.target.connectTimeoutMs,
      query_timeout: this.target.queryTimeoutMs,
      stream: () => {
        const socket = new Socket();
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        return socket;
      },
    };
  }

  /** Any failure to talk to the database, as one clear message with the URL shown safely. */
  private backendError(error: unknown, doing: string): StateError {
    if (error instanceof StateError) return error;
    const message = error instanceof Error ? error.message : String(error);
    const password = this.password ?? this.target.password;
    const safe = password ? message.split(password).join('***') : message;
    if (isQueryTimeout(error)) {
      return new StateBackendError(
        `The PostgreSQL state at ${this.describe()} did not answer within ${seconds(this.target.queryTimeoutMs)} while trying to ${doing} it ` +
          '(the query_timeout=SECONDS parameter of the state URL sets this bound).',
        { cause: error },
      );
    }
    if (isConnectTimeout(error)) {
      return new StateBackendError(
        `Could not connect to the PostgreSQL state at ${this.describe()} within ${seconds(this.target.connectTimeoutMs)} to ${doing} it ` +
          '(the connect_timeout=SECONDS parameter of the state URL, or PGCONNECT_TIMEOUT, sets this bound).',
        { cause: error },
      );
    }
    if (/client password must be a string/.test(message)) {
      return new StateBackendError(
        `Cannot ${doing} the PostgreSQL state at ${this.describe()}: the server asks for a password and none was given. ` +
          'Set PGPASSWORD, or put it in a password file (~/.pgpass, or the file PGPASSFILE names).',
        { cause: error },
      );
    }
    return new StateBackendError(`Cannot ${doing} the PostgreSQL state at ${this.describe()}: ${safe}`, { cause: error });
  }

  private async getPool(): Promise<Pool> {
    if (this.pool) return this.pool;
    const pg = await loadPg();
    const pool = new pg.Pool({ ...(await this.clientConfig('state')), max: 4, allowExitOnIdle: true, idleTimeoutMillis: 5_000 });
    // An idle connection dropped by the server is not an error of any command.
    pool.on('error', () => undefined);
    this.pool = pool;
    return pool;
  }

  /**
   * Runs `action` on the lock's connection when this store holds the lock (so a run that lost
   * its lock cannot write), else, or when asked about the lock itself, on a pooled one.
   */
  private async withClient<T>(doing: string, action: (client: ClientBase) => Promise<T>, options: { pooled?: boolean } = {}): Promise<T> {
    if (this.held && !options.pooled) {
      const held = this.held;
      if (held.lost) throw this.lostLockError(held.lost);
      try {
        return await action(held.client);
      } catch (error) {
        if (isQueryTimeout(error) || error instanceof CommitTimeoutError) {
          // A late answer would be taken for the next statement's: the connection, and the lock with it, is given up.
          held.lost ??= error instanceof Error ? error : new Error(String(error));
          held.client.connection.stream.destroy();
          throw this.backendError(error, doing);
        }
        if (held.lost) throw this.lostLockError(held.lost);
        throw this.backendError(error, doing);
      }
    }
    let client;
    try {
      client = await (await this.getPool()).connect();
    } catch (error) {
      throw this.backendError(error, doing);
    }
    let failed: unknown;
    try {
      return await action(client);
    } catch (error) {
      failed = error;
      throw this.backendError(error, doing);
    } finally {
      if (isQueryTimeout(failed) || failed instanceof CommitTimeoutError) client.connection.stream.destroy();
      // A connection that failed is not reused.
      client.release(failed !== undefined);
    }
  }

  private lostLockError(cause: Error): StateError {
    // 57P01: the session was ended on purpose, by another run's `state unlock` (pg_terminate_backend) or a server stopping.
    const ended = (cause as Error & { code?: unknown }).code === '57P01';
    return new StateBackendError(
      `Lost the connection to the PostgreSQL state at ${this.describe()} (${cause.message}${ended ? ": ended by another run's `portalctl state unlock`, or by the server stopping" : ''}); the database released this run's lock with it. ` +
        `Everything recorded before stays recorded. ${ended ? 'Check that no one else is applying, then run the command again.' : 'Run the command again once the database is reachable.'}`,
      { cause },
    );
  }

  private async transaction<T>(client: ClientBase, action: () => Promise<T>): Promise<T> {
    await client.query('BEGIN');
    let result: T;
    try {
      result = await action();
    } catch (error) {
      // A server that did not answer will not answer a rollback either: its connection is given up instead.
      if (!isQueryTimeout(error)) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    try {
      await client.query('COMMIT');
    } catch (error) {
      if (!isQueryTimeout(error)) throw error;
      throw new CommitTimeoutError(
        `The PostgreSQL state at ${this.describe()} did not answer the commit of a write within ${seconds(this.target.queryTimeoutMs)}; ` +
          'the write may or may not have been committed (the query_timeout=SECONDS parameter of the state URL sets this bound).',
        { cause: error },
      );
    }
    return result;
  }

  // ---- schema ------------------------------------------------------------------------------

  /** The tables' version, or undefined when there are none yet. */
  private async schemaVersion(client: ClientBase): Promise<number | undefined> {
    const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${this.quoted}.schema_version`]);
    if (!exists.rows[0]?.t) return undefined;
    const version = await client.query<{ version: number }>(`SELECT version FROM ${this.quoted}.schema_version`);
    return version.rows[0]?.version ?? 0;
  }

  private refuseNewer(version: number): void {
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new StateBackendError(
        `The PostgreSQL state at ${this.describe()} was written by a newer portalctl (tables version ${version}; this release knows up to ${POSTGRES_SCHEMA_VERSION}). ` +
          'Nothing was read or changed; use that newer portalctl.',
      );
    }
  }

  /** Checks the tables' version; with `create`, creates or migrates them. False when absent. */
  private async ensureSchema(client: ClientBase, create: boolean): Promise<boolean> {
    if (this.schemaReady) return true;
    const version = await this.schemaVersion(client);
    if (version !== undefined) this.refuseNewer(version);
    if (version === POSTGRES_SCHEMA_VERSION) {
      this.schemaReady = true;
      return true;
    }
    // Reading never creates tables; tables of an older release are brought forward by any use.
    if (!create && version === undefined) return false;
    await migrateSchema(client, this.schema, POSTGRES_SCHEMA_VERSION);
    this.schemaReady = true;
    return true;
  }

  // ---- reading -----------------------------------------------------------------------------

  private where(): string {
    return this.describe();
  }

  private get tables(): PostgresStateTables {
    return { quoted: this.quoted, name: this.name, where: this.where() };
  }

  /**
   * A corrupt state's message says what the database still keeps of it. History rows hold the
   * changes of each serial, undone from the state itself: only a whole copy (a row of a release
   * before tables version 3) is an earlier version to offer. A corrupt history entry is said as
   * it is.
   */
  private async withCorruptHint<T>(client: ClientBase, reading: Promise<T>): Promise<T> {
    try {
      return await reading;
    } catch (error) {
      if (!(error instanceof StateCorruptError) || error.what !== 'State') throw error;
      const whole = await client
        .query<{ serial: string }>(
          `SELECT serial FROM ${this.quoted}.history WHERE name = $1 AND document IS NOT NULL AND lineage = ${ownLineage(this.quoted)} ORDER BY serial DESC LIMIT 1`,
          [this.name],
        )
        .then((result) => result.rows[0]?.serial, () => undefined);
      throw error.withHint(
        whole !== undefined
          ? `An earlier version is kept whole in its history (serial ${whole}); \`portalctl state show --serial ${whole}\` shows it.`
          : 'No earlier version of it is kept (its history holds the changes of each serial, which rebuild earlier serials from this state only). ' +
              `Restore it from a copy (delete its row from the ${this.schema}.states table, then \`portalctl state push\` the copy), or use another --state-name to start a new state.`,
      );
    }
  }

  async read(): Promise<StateDocument | undefined> {
    return this.withClient('read', async (client) => {
      if (!(await this.ensureSchema(client, false))) return undefined;
      const stored = await this.withCorruptHint(client, readStoredState(client, this.tables));
      this.known = stored && { ...stored, shared: false };
      return stored?.state;
    });
  }

  async history(): Promise<HistoryEntry[]> {
    return this.withClient('read the history of', async (client) => {
      if (!(await this.ensureSchema(client, false))) return [];
      const result = await client.query<{ serial: string; lineage: string; written_at: Date; command: string; resources: number; changed: number }>(
        `SELECT serial, lineage, written_at, command, resources, changed FROM ${this.quoted}.history WHERE name = $1 AND lineage = ${ownLineage(this.quoted)} ORDER BY serial DESC LIMIT $2`,
        [this.name, this.keepHistory],
      );
      return result.rows.map((row) => ({
        serial: Number(row.serial),
        lineage: row.lineage,
        writtenAt: row.written_at.toISOString(),
        command: row.command,
        resources: row.resources,
        changed: row.changed,
      }));
    });
  }

  /** A database keeps no copy beside its state: its history is all there is. */
  leftCopyHint(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  async readSerial(serial: number): Promise<StateDocument | undefined> {
    return this.withClient('read the history of', async (client) => {
      if (!(await this.ensureSchema(client, false))) return undefined;
      return this.withCorruptHint(client, readStoredSerial(client, this.tables, serial));
    });
  }

  // ---- writing -----------------------------------------------------------------------------

  async write(state: StateDocument): Promise<StateDocument> {
    // The document around the entries now; the entries this write changes once they are known.
    const problem = validateState(state, { entries: [] });
    if (problem) throw new StateError(`Refusing to write an invalid state to ${this.where()}: ${problem}.`);
    const next = carryWriterChanges(state, { ...state, serial: state.serial + 1 });
    const aside = await this.withClient('write', async (client) => {
      await this.ensureSchema(client, true);
      return this.transaction(client, async () => {
        const current = await this.lockedRow(client);
        refuseOverwrite(current, state, this.where(), 'use another --state-name, or remove that state deliberately');
        const previous = current ? await this.previousDocument(client, current, state) : undefined;
        return this.store(client, previous, next);
      });
    });
    this.tellSetAside(aside);
    return next;
  }

  async importState(state: StateDocument): Promise<StateDocument> {
    const problem = validateState(state);
    if (problem) throw new StateError(`Refusing to store an invalid state in ${this.where()}: ${problem}.`);
    const { stored, aside } = await this.withClient('write', async (client) => {
      await this.ensureSchema(client, true);
      return this.transaction(client, async () => {
        const current = await this.lockedRow(client);
        const previous = current ? await this.previousDocument(client, current, state) : undefined;
        if (previous && !copyChanges(previous, state, this.where())) return { stored: previous, aside: undefined };
        return { stored: state, aside: await this.store(client, previous, state) };
      });
    });
    this.tellSetAside(aside);
    return stored;
  }

  /** The stored lineage, serial and head digest, row-locked until the transaction ends. */
  private async lockedRow(client: ClientBase): Promise<StoredRow | undefined> {
    const result = await client.query<{ lineage: string; serial: string; digest: string }>(
      `SELECT lineage, serial, md5(head::text) AS digest FROM ${this.quoted}.states WHERE name = $1 FOR UPDATE`,
      [this.name],
    );
    const row = result.rows[0];
    return row ? { lineage: row.lineage, serial: Number(row.serial), headDigest: row.digest } : undefined;
  }

  /**
   * The stored state: the one this store read or wrote last when it is still the stored one, else
   * read (under the row lock). A state a StateWriter made shares its entries with the writer, which
   * goes on changing them: it stands for the stored one only for a write that says what changed.
   */
  private async previousDocument(client: ClientBase, current: StoredRow, incoming: StateDocument): Promise<StateDocument> {
    const known = this.known;
    const usable = known !== undefined && (!known.shared || hasWriterChanges(incoming));
    if (usable && known.state.lineage === current.lineage && known.state.serial === current.serial && known.headDigest === current.headDigest) return known.state;
    const stored = await this.withCorruptHint(client, readStoredState(client, this.tables));
    if (!stored) throw new StateConflictError(`The state ${this.where()} was removed meanwhile. Run the command again.`);
    this.known = { ...stored, shared: false };
    return stored.state;
  }

  private async store(client: ClientBase, previous: StateDocument | undefined, next: StateDocument): Promise<SetAside | undefined> {
    const aside = previous === undefined ? await setAsideLeftovers(client, this.tables, next.lineage, Date.now()) : undefined;
    const count = previous !== undefined && this.known?.state === previous ? this.known.count : undefined;
    const stored = await storeState(client, this.tables, previous, next, { command: this.command ?? 'portalctl', keepHistory: this.keepHistory, ...(count === undefined ? {} : { count }) });
    // Taken as the stored state only once the transaction commits (the caller's COMMIT follows at
    // once; if it fails, the serial no longer matches and the state is read back).
    this.known = { state: next, ...stored, shared: hasWriterChanges(next) };
    return aside;
  }

  /** Said once the write that set them aside committed. */
  private tellSetAside(aside: SetAside | undefined): void {
    if (!aside) return;
    this.onNotice?.(
      `${this.where()} held the history and entries of another state (lineage ${aside.lineage}, its states row gone); they are kept under the state name "${aside.name}", and this state's history starts afresh.`,
      'history',
    );
  }

  // ---- locking -----------------------------------------------------------------------------

  async lock(request: LockRequest): Promise<StateLock> {
    const pg = await loadPg();
    let config: ClientConfig;
    try {
      config = await this.clientConfig(`lock ${request.operation} pid ${this.identity.pid}`);
    } catch (error) {
      throw this.backendError(error, 'lock');
    }
    const client = new pg.Client(config);
    const held: HeldLock = { client, info: this.identity.lockInfo(request, this.command, Date.now()) };
    // A dropped connection must not crash the process: the next use reports it.
    client.on('error', (error: Error) => (held.lost ??= error));
    try {
      await client.connect();
      await this.ensureSchema(client, true);
    } catch (error) {
      await endClient(client, true, this.target.queryTimeoutMs);
      throw this.backendError(error, 'lock');
    }
    const timeoutMs = request.timeoutMs ?? 0;
    const deadline = Date.now() + timeoutMs;
    let toldWaiting = false;
    try {
      for (;;) {
        const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [this.key.toString()]);
        if (got.rows[0]?.ok) {
          const previous = await this.lockRow(client);
          held.info = { ...held.info, created: new Date().toISOString() };
          await client.query(
            `INSERT INTO ${this.quoted}.locks (name, lock_id, holder, backend_pid) VALUES ($1, $2, $3::jsonb, pg_backend_pid()) ` +
              'ON CONFLICT (name) DO UPDATE SET lock_id = EXCLUDED.lock_id, holder = EXCLUDED.holder, backend_pid = EXCLUDED.backend_pid, created_at = now()',
            [this.name, held.info.id, JSON.stringify(held.info)],
          );
          this.held = held;
          if (previous) this.onNotice?.(`Took over the state lock of ${describeHolder(previous.info)}: its session had ended, so the database had released it.`, 'takeover');
          return previous ? { info: held.info, takenOver: { lock: previous.info, reason: 'its session had ended, so the database had released it' } } : { info: held.info };
        }
        if (Date.now() >= deadline) {
          const holder = await this.holder(client);
          throw new StateLockedError(
            this.where(),
            holder,
            `Wait for it to finish (--lock-timeout), or if that run is stuck, \`${this.unlockCommand(holder.id)}\` ends its database session. ` +
              'A run that died released the lock already.',
          );
        }
        if (!toldWaiting) {
          toldWaiting = true;
          this.onNotice?.(`The state ${this.where()} is locked by ${describeHolder(await this.holder(client))}; waiting up to ${formatWait(timeoutMs)} (--lock-timeout).`, 'waiting');
        }
        if (request.signal?.aborted) throw stoppedWaiting(this.where());
        await this.sleep(Math.min(request.pollMs ?? DEFAULT_POLL_MS, Math.max(1, deadline - Date.now())));
      }
    } catch (error) {
      await endClient(client, true, this.target.queryTimeoutMs);
      throw this.backendError(error, 'lock');
    }
  }

  /** The lock row, with the backend that wrote it. */
  private async lockRow(client: ClientBase): Promise<{ info: LockInfo; backendPid: number } | undefined> {
    const result = await client.query<{ holder: LockInfo; backend_pid: number }>(`SELECT holder, backend_pid FROM ${this.quoted}.locks WHERE name = $1`, [this.name]);
    const row = result.rows[0];
    return row ? { info: row.holder, backendPid: row.backend_pid } : undefined;
  }

  /** The database session holding this state's advisory lock, if any. */
  private async lockingBackend(client: ClientBase): Promise<number | undefined> {
    const unsigned = BigInt.asUintN(64, this.key);
    const result = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::bigint::oid AND objid = $2::bigint::oid " +
        'AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()],
    );
    return result.rows[0]?.pid;
  }

  /**
   * pg_terminate_backend only signals the session; the lock is free once it has exited (a busy
   * server may take a moment). Waited for, within the query timeout, so that a run started right
   * after `state unlock` finds the lock free and the unlock says no more than is true.
   */
  private async untilSessionReleases(client: ClientBase, backendPid: number): Promise<void> {
    const deadline = Date.now() + this.target.queryTimeoutMs;
    while ((await this.lockingBackend(client)) === backendPid) {
      if (Date.now() >= deadline) {
        throw new StateError(`Ended the database session ${backendPid} that holds the lock of ${this.where()}, but it still held the lock ${seconds(this.target.queryTimeoutMs)} later; try again.`);
      }
      await this.sleep(20);
    }
  }

  /** The live holder: the lock row written by the session that holds the lock. */
  private async liveHolder(client: ClientBase): Promise<{ state: 'none' } | { state: 'held'; lock: LockInfo; backendPid: number } | { state: 'unrecorded'; backendPid: number }> {
    const backendPid = await this.lockingBackend(client);
    if (backendPid === undefined) return { state: 'none' };
    const row = await this.lockRow(client);
    if (row && row.backendPid === backendPid) return { state: 'held', lock: row.info, backendPid };
    return { state: 'unrecorded', backendPid };
  }

  /** Who holds the lock, for a refusal; waits briefly for a holder that is writing its record. */
  private async holder(client: ClientBase): Promise<LockInfo> {
    for (let attempt = 0; attempt < 40; attempt++) {
      const live = await this.liveHolder(client);
      if (live.state === 'held') return live.lock;
      if (live.state === 'none' && attempt > 0) break;
      await this.sleep(50);
    }
    const activity = await client.query<{ usename: string | null; client_addr: string | null; application_name: string; backend_start: Date | null; pid: number }>(
      'SELECT usename, client_addr::text, application_name, backend_start, pid FROM pg_stat_activity WHERE pid = $1',
      [(await this.lockingBackend(client)) ?? -1],
    );
    const session = activity.rows[0];
    return {
      id: 'unknown',
      owner: `${session?.usename ?? 'unknown'}@${session?.client_addr ?? 'unknown'}`,
      host: session?.client_addr ?? 'unknown',
      pid: session?.pid ?? 0,
      operation: session?.application_name || 'unknown',
      created: session?.backend_start?.toISOString() ?? 'unknown',
    };
  }

  async unlock(lock: StateLock): Promise<void> {
    const held = this.held;
    if (!held || held.info.id !== lock.info.id) return;
    this.held = undefined;
    let abandon = held.lost !== undefined;
    try {
      if (!held.lost) {
        await held.client.query(`DELETE FROM ${this.quoted}.locks WHERE name = $1 AND lock_id = $2`, [this.name, held.info.id]);
        await held.client.query('SELECT pg_advisory_unlock($1::bigint)', [this.key.toString()]);
      }
    } catch {
      // Closing the session below releases the lock in any case.
      abandon = true;
    } finally {
      await endClient(held.client, abandon, this.target.queryTimeoutMs);
    }
  }

  async currentLock(): Promise<LockInfo | undefined> {
    const status = await this.lockStatus();
    return status.state === 'held' ? status.lock : undefined;
  }

  async lockStatus(): Promise<LockStatus> {
    return this.withClient('read the lock of', async (client) => {
      if (!(await this.ensureSchema(client, false))) return { state: 'none' };
      const live = await this.liveHolder(client);
      if (live.state === 'none') return { state: 'none' };
      if (live.state === 'held') return { state: 'held', lock: live.lock };
      return { state: 'unreadable', where: `${this.describe()} (database session ${live.backendPid} holds it without a lock record)` };
    }, { pooled: true });
  }

  /**
   * `state unlock`: a dead holder's lock is already gone; a live but stuck holder's database
   * session is ended, which releases its lock and stops its writes.
   */
  async forceUnlock(lockId?: string): Promise<LockInfo | undefined> {
    return this.withClient('unlock', async (client) => {
      if (!(await this.ensureSchema(client, false))) return undefined;
      const live = await this.liveHolder(client);
      if (live.state === 'none') {
        if (lockId !== undefined) {
          const stale = await this.lockRow(client);
          await client.query(`DELETE FROM ${this.quoted}.locks WHERE name = $1`, [this.name]);
          if (stale?.info.id !== lockId) throw noSuchLock(this.describe(), lockId);
        }
        return undefined;
      }
      // A run of this host whose process is alive is not stuck: ending its session would let
      // another run apply beside it (as for a file state). Removed only when named by its id.
      if (lockId === undefined && live.state === 'held' && live.lock.host === this.identity.host && live.lock.pid !== this.identity.pid && processAlive(live.lock.pid)) {
        throw new StateError(
          `The state lock is held by a running process, ${describeHolder(live.lock)}: it is not stuck, and ending its session would let another run apply beside it. ` +
            `Wait for it to finish, or stop it first; to end its session all the same, name it: \`${this.unlockCommand(live.lock.id)}\`. Nothing was removed.`,
        );
      }
      if (lockId !== undefined && (live.state !== 'held' || live.lock.id !== lockId)) {
        throw new StateError(
          live.state === 'held'
            ? `The state lock's id is ${live.lock.id} (held by ${live.lock.owner}, pid ${live.lock.pid}), not ${lockId}; nothing was removed.`
            : `The state lock has no lock record yet, so it cannot be matched to id ${lockId}; run unlock without an id to remove it.`,
        );
      }
      const ended = await client.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [live.backendPid]);
      if (!ended.rows[0]?.ok) throw new StateError(`Could not end the database session ${live.backendPid} that holds the lock of ${this.where()}.`);
      await this.untilSessionReleases(client, live.backendPid);
      await client.query(`DELETE FROM ${this.quoted}.locks WHERE name = $1 AND backend_pid = $2`, [this.name, live.backendPid]);
      return live.state === 'held' ? live.lock : undefined;
    }, { pooled: true });
  }

  async close(): Promise<void> {
    if (this.held) await this.unlock({ info: this.held.info });
    const pool = this.pool;
    this.pool = undefined;
    // A server that stopped answering never ends a session politely: its sockets are closed here.
    await withinBound(pool?.end().catch(() => undefined), this.target.queryTimeoutMs);
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

/** Create the schema's tables or bring them forward to `upTo`, serialised between processes. */
export async function migrateSchema(client: ClientBase, schema: string, upTo: number): Promise<void> {
  const quoted = `"${schema}"`;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryLockKey(schema, '\0migration').toString()]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_version (version integer NOT NULL)`);
    const found = await client.query<QueryResultRow & { version: number }>(`SELECT version FROM ${quoted}.schema_version FOR UPDATE`);
    let version = found.rows[0]?.version;
    if (version === undefined) {
      await client.query(`INSERT INTO ${quoted}.schema_version (version) VALUES (0)`);
      version = 0;
    }
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new StateBackendError(`The PostgreSQL schema ${schema} was written by a newer portalctl (tables version ${version}; this release knows up to ${POSTGRES_SCHEMA_VERSION}). Nothing was changed; use that newer portalctl.`);
    }
    for (let next = version + 1; next <= upTo; next++) {
      const migration = MIGRATIONS[next];
      if (!migration) throw new StateBackendError(`No migration to tables version ${next}.`);
      for (const statement of migration(quoted)) await client.query(statement);
      await client.query(`UPDATE ${quoted}.schema_version SET version = $1`, [next]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The connection string with the password of the password file's first matching line, if any (https://www.postgresql.org/docs/current/libpq-pgpass.html). */
async function withPasswordFromFile(target: PostgresTarget): Promise<{ connectionString: string; password?: string }> {
  const key = target.passwordFileKey;
  if (!key) return { connectionString: target.connectionString };
  // It comes with pg; where a package manager keeps it out of reach, there is no password file lookup.
  const pgpass = await import('pgpass').then(
    (module) => module.default,
    () => undefined,
  );
  if (!pgpass) return { connectionString: target.connectionString };
  const password = await new Promise<string | undefined>((resolve) => pgpass(key, resolve));
  if (password === undefined || password === '') return { connectionString: target.connectionString };
  const url = new URL(target.connectionString);
  url.password = encodeURIComponent(password);
  return { connectionString: url.toString(), password };
}

/** A commit that got no answer in time: it may or may not have been committed. */
export class CommitTimeoutError extends StateBackendError {}

/** node-postgres's error for a statement whose answer did not come within query_timeout. */
function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/** node-postgres's errors for a connection not made within connectionTimeoutMillis. */
function isConnectTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout expired|connection timeout/i.test(error.message);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Waits for `work`, at most `ms`. */
async function withinBound(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Ends a client's session: politely, or by closing its socket when `abandon` is set (its server
 * did not answer) or when the polite end is not answered within `patienceMs`.
 */
async function endClient(client: Client, abandon: boolean, patienceMs: number): Promise<void> {
  if (abandon) client.connection.stream.destroy();
  const ended = client.end().catch(() => undefined);
  const timer = setTimeout(() => client.connection.stream.destroy(), patienceMs);
  await ended;
  clearTimeout(timer);
}
