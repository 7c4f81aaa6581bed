/**
 * How the PostgreSQL store keeps a state (tables version 3, postgres-store.ts migrates to it):
 *
 * - `states`: one row per state name, with lineage, serial and `head`, the document without its
 *   resources (portal, unknown outcomes);
 * - `resources`: one row per address and state, the entry as jsonb;
 * - `history`: one row per serial with its time, command and counts, and `change`, what that
 *   write changed (journal.ts); rows written before version 3 hold a whole `document` instead.
 *
 * A write puts and removes only the entries it changed, updates the states row and adds its
 * change to the history, in the caller's transaction: what it writes grows with what changed,
 * not with the state. Reads see one snapshot (one statement, or a read-only repeatable-read
 * transaction), never half a write.
 */
import type { ClientBase } from 'pg';
import { StateConflictError } from './errors.js';
import { stateFromParts, stateFromValue, type StateDocument } from './format.js';
import { changeFromValue, checkedDiff, headOf, rebuildSerial, type StateChange } from './journal.js';

/** Entries per statement when many change at once (a pushed state): bounds one parameter's size. */
const ENTRIES_PER_STATEMENT = 2_000;

export interface PostgresStateTables {
  /** The schema, quoted for SQL. */
  quoted: string;
  name: string;
  /** The state as messages name it. */
  where: string;
}

/** A stored state and the database's digest of its states row's head (a write checks that the head it starts from is still the stored one). */
export interface StoredState {
  state: StateDocument;
  headDigest: string;
  /** Its number of entries. */
  count: number;
}

/**
 * The stored state in one statement (one snapshot): the states row first, then every entry as
 * text, parsed one by one. Undefined when there is no state of this name.
 */
export async function readStoredState(client: ClientBase, tables: PostgresStateTables, what?: string): Promise<StoredState | undefined> {
  const { quoted, name } = tables;
  const result = await client.query<[string | null, string]>({
    text:
      `SELECT NULL::text, jsonb_build_object('serial', serial, 'head', head, 'digest', md5(head::text))::text FROM ${quoted}.states WHERE name = $1 ` +
      `UNION ALL SELECT address, entry::text FROM ${quoted}.resources WHERE name = $1`,
    values: [name],
    rowMode: 'array',
  });
  let top: unknown;
  const entries: [string, string][] = [];
  for (const [address, text] of result.rows) {
    if (address === null) top = JSON.parse(text);
    else entries.push([address, text]);
  }
  if (typeof top !== 'object' || top === null) return undefined;
  const serial: unknown = Reflect.get(top, 'serial');
  const digest: unknown = Reflect.get(top, 'digest');
  const state = stateFromParts(Reflect.get(top, 'head'), typeof serial === 'number' ? serial : -1, entries, tables.where, what ?? 'State');
  return { state, headDigest: typeof digest === 'string' ? digest : '', count: entries.length };
}

/**
 * The lineage whose history rows are this state's: the stored state's, or when its states row is
 * gone, the lineage written last (all that is left of it). Rows of another lineage (a state
 * removed by hand and started afresh under the same name, before setAsideLeftovers) are never
 * listed or rebuilt as this state's. `$1` is the state's name.
 */
export const ownLineage = (quoted: string): string =>
  `COALESCE((SELECT lineage FROM ${quoted}.states WHERE name = $1), (SELECT lineage FROM ${quoted}.history WHERE name = $1 ORDER BY written_at DESC, serial DESC LIMIT 1))`;

/** Where setAsideLeftovers moved a removed state's rows: the name they are kept under. */
export interface SetAside {
  lineage: string;
  name: string;
}

/**
 * Before a state is created under `name` (no states row): what a state removed by hand left
 * (its states row deleted, its entries and history not) would otherwise read as the new
 * state's. History rows of another lineage and the leftover entries are moved whole to the name
 * `<name>.history-<their lineage>` (a suffix when that is taken), so the new serials neither
 * overwrite nor list among them; leftover entries beside history of the new state's own lineage
 * only (a copy of it pushed back) are replaced by the copy's. Returns the name they went to.
 */
export async function setAsideLeftovers(client: ClientBase, tables: PostgresStateTables, lineage: string, now: number): Promise<SetAside | undefined> {
  const { quoted, name } = tables;
  const other = await client.query<{ lineage: string }>(
    `SELECT lineage FROM ${quoted}.history WHERE name = $1 AND lineage <> $2 ORDER BY written_at DESC, serial DESC LIMIT 1`,
    [name, lineage],
  );
  const removed = other.rows[0]?.lineage;
  if (removed === undefined) {
    await client.query(`DELETE FROM ${quoted}.resources WHERE name = $1`, [name]);
    return undefined;
  }
  let aside = `${name}.history-${removed}`;
  const taken = await client.query(
    `SELECT 1 FROM ${quoted}.states WHERE name = $1 UNION ALL SELECT 1 FROM ${quoted}.history WHERE name = $1 UNION ALL SELECT 1 FROM ${quoted}.resources WHERE name = $1 LIMIT 1`,
    [aside],
  );
  if (taken.rows.length > 0) aside = `${aside}-${now}`;
  await client.query(`UPDATE ${quoted}.history SET name = $2 WHERE name = $1 AND lineage <> $3`, [name, aside, lineage]);
  await client.query(`UPDATE ${quoted}.resources SET name = $2 WHERE name = $1`, [name, aside]);
  return { lineage: removed, name: aside };
}

/**
 * Writes `next` over `previous` (the stored state, undefined when there is none) in the
 * caller's transaction: the changed entries, the states row, the history row and the pruning
 * of history past `keepHistory` (`count`: the number of entries stored, when known). Returns
 * the digest of the head written and the number of entries.
 */
export async function storeState(
  client: ClientBase,
  tables: PostgresStateTables,
  previous: StateDocument | undefined,
  next: StateDocument,
  options: { command: string; keepHistory: number; count?: number },
): Promise<{ headDigest: string; count: number }> {
  const { quoted, name } = tables;
  const diff = checkedDiff(previous, next, tables.where, options.count);
  const put = Object.entries(diff.put);
  for (let start = 0; start < put.length; start += ENTRIES_PER_STATEMENT) {
    await client.query(
      `INSERT INTO ${quoted}.resources (name, address, entry) SELECT $1, key, value FROM jsonb_each($2::jsonb) ` +
        'ON CONFLICT (name, address) DO UPDATE SET entry = EXCLUDED.entry',
      [name, JSON.stringify(Object.fromEntries(put.slice(start, start + ENTRIES_PER_STATEMENT)))],
    );
  }
  for (let start = 0; start < diff.removed.length; start += ENTRIES_PER_STATEMENT) {
    await client.query(`DELETE FROM ${quoted}.resources WHERE name = $1 AND address = ANY($2::text[])`, [name, diff.removed.slice(start, start + ENTRIES_PER_STATEMENT)]);
  }
  // The states row, the history row and the pruning in one statement (one round trip per write).
  const history =
    `recorded AS (INSERT INTO ${quoted}.history (name, serial, lineage, document, change, command, resources, changed) VALUES ($1, $2, $3, NULL, $5::jsonb, $6, $7, $8) ` +
    'ON CONFLICT (name, serial) DO UPDATE SET lineage = EXCLUDED.lineage, document = NULL, change = EXCLUDED.change, command = EXCLUDED.command, ' +
    'written_at = now(), resources = EXCLUDED.resources, changed = EXCLUDED.changed RETURNING 1), ' +
    `pruned AS (DELETE FROM ${quoted}.history WHERE name = $1 AND serial <= $9 RETURNING 1) `;
  const row = previous
    ? `UPDATE ${quoted}.states SET lineage = $3, serial = $2, head = $4::jsonb, updated_at = now() WHERE name = $1 RETURNING md5(head::text) AS digest`
    : `INSERT INTO ${quoted}.states (name, lineage, serial, head) VALUES ($1, $3, $2, $4::jsonb) ON CONFLICT (name) DO NOTHING RETURNING md5(head::text) AS digest`;
  const stored = await client.query<{ digest: string }>(`WITH ${history}${row}`, [
    name,
    next.serial,
    next.lineage,
    JSON.stringify(headOf(next)),
    JSON.stringify(diff.change),
    options.command,
    diff.resources,
    diff.changed,
    next.serial - options.keepHistory,
  ]);
  const digest = stored.rows[0]?.digest;
  if (digest === undefined) throw new StateConflictError(`Another run created the state ${tables.where} meanwhile. Run the command again.`);
  return { headDigest: digest, count: diff.resources };
}

/**
 * The state as it was at `serial`, when the history still has it: a row of an earlier release
 * holds it whole; otherwise it is rebuilt from the current state by undoing the later changes,
 * all read in one snapshot.
 */
export async function readStoredSerial(client: ClientBase, tables: PostgresStateTables, serial: number): Promise<StateDocument | undefined> {
  const { quoted, name } = tables;
  const what = 'History entry of';
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const kept = await client.query<{ document: unknown }>(`SELECT document FROM ${quoted}.history WHERE name = $1 AND serial = $2 AND lineage = ${ownLineage(quoted)}`, [name, serial]);
    const row = kept.rows[0];
    let state: StateDocument | undefined;
    if (!row) state = undefined;
    else if (row.document !== null) state = stateFromValue(row.document, tables.where, what);
    else {
      const current = (await readStoredState(client, tables))?.state;
      if (current) {
        const later = await client.query<{ serial: string; change: unknown }>(
          `SELECT serial, change FROM ${quoted}.history WHERE name = $1 AND serial > $2 AND serial <= $3 AND lineage = $4 AND change IS NOT NULL`,
          [name, serial, current.serial, current.lineage],
        );
        const changes = new Map<number, unknown>(later.rows.map((change) => [Number(change.serial), change.change]));
        const changeAt = (at: number): Promise<StateChange | undefined> => {
          const change = changes.get(at);
          return Promise.resolve(change === undefined ? undefined : changeFromValue(change, `${tables.where} (serial ${at})`));
        };
        state = await rebuildSerial(current, serial, changeAt, tables.where);
      }
    }
    await client.query('COMMIT');
    return state;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The migration to tables version 3: entries out of the document into rows, history as changes. */
export function journalMigration(quoted: string): string[] {
  return [
    `ALTER TABLE ${quoted}.states ADD COLUMN head jsonb`,
    // Room on each page for the new version of a row: an update then stays on its page and
    // leaves the index alone (HOT, https://www.postgresql.org/docs/current/storage-hot.html).
    `CREATE TABLE ${quoted}.resources (name text NOT NULL, address text NOT NULL, entry jsonb NOT NULL, PRIMARY KEY (name, address)) WITH (fillfactor = 90)`,
    `INSERT INTO ${quoted}.resources (name, address, entry) SELECT states.name, entries.key, entries.value FROM ${quoted}.states, ` +
      `jsonb_each(CASE WHEN jsonb_typeof(states.document -> 'resources') = 'object' THEN states.document -> 'resources' ELSE '{}'::jsonb END) AS entries`,
    // A document that is not an object is kept as the head, so that reading it still reports it corrupt.
    `UPDATE ${quoted}.states SET head = CASE WHEN jsonb_typeof(document) = 'object' THEN document - 'resources' - 'serial' ELSE document END`,
    `ALTER TABLE ${quoted}.states DROP COLUMN document`,
    `ALTER TABLE ${quoted}.states ALTER COLUMN head SET NOT NULL`,
    `ALTER TABLE ${quoted}.history ALTER COLUMN document DROP NOT NULL`,
    `ALTER TABLE ${quoted}.history ADD COLUMN change jsonb`,
  ];
}
