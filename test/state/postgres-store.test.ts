/** What only the PostgreSQL store has: schemas and names apart, table versions, TLS settings, secrets, a lost lock. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { sql, uniqueSchema, withSchema } from '../support/postgres-sql.js';
import { FileStateStore, PostgresStateStore, POSTGRES_SCHEMA_VERSION, StateCorruptError, StateLockedError, migrateSchema, newState, recordOperation, openStateStore, redactPostgresUrl } from '../../src/state/index.js';
import { entry } from './conformance.js';

const url = inject('postgresUrl');
const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };

describe('PostgresStateStore', () => {
  it('is chosen by a postgres:// or postgresql:// --state, or PORTALCTL_STATE when the flag is absent; the flag wins', async () => {
    const fromEnv = openStateStore(undefined, { cwd: '/tmp', env: { PORTALCTL_STATE: url }, name: 'prod' });
    expect(fromEnv).toBeInstanceOf(PostgresStateStore);
    expect(fromEnv.describe()).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres state "prod"$/);
    const longForm = openStateStore(url.replace(/^postgres:/, 'postgresql:'), { cwd: '/tmp', env: {} });
    expect(longForm).toBeInstanceOf(PostgresStateStore);
    expect(await longForm.read()).toBeUndefined();
    await Promise.all([fromEnv.close(), longForm.close()]);
    const flag = openStateStore('s.json', { cwd: '/tmp', env: { PORTALCTL_STATE: url } });
    expect(flag).toBeInstanceOf(FileStateStore);
    expect(flag.describe()).toBe('file /tmp/s.json');
    expect(openStateStore(undefined, { cwd: '/tmp', env: {} }).describe()).toBe('file /tmp/portalctl.state.json');
    expect(() => openStateStore(url, { cwd: '/tmp', env: {}, name: 'no spaces' })).toThrow(/--state-name takes letters/);
    expect(() => openStateStore(`${url}?schema=bad-name`, { cwd: '/tmp', env: {} })).toThrow(/plain SQL name/);
  });

  it('keeps state names and schemas apart: their locks never collide', async () => {
    const name = `apart-${randomUUID()}`;
    const schema = uniqueSchema('s');
    const stores = [
      new PostgresStateStore({ url, name }),
      new PostgresStateStore({ url, name: `${name}-b` }),
      new PostgresStateStore({ url: withSchema(schema), name }),
    ];
    // The schema is said once, as the URL names it.
    expect(stores[2]?.describe()).toMatch(new RegExp(`\\?schema=${schema} state "${name}"$`));
    try {
      const locks = await Promise.all(stores.map((store) => store.lock({ operation: 'apply' })));
      expect(new Set(locks.map((lock) => lock.info.id)).size).toBe(3);
      // The same name in the same schema is refused, naming the holder.
      const again = new PostgresStateStore({ url, name });
      await expect(again.lock({ operation: 'apply' })).rejects.toThrow(StateLockedError);
      await again.close();
      const written = await stores[2]?.write(recordOperation(newState(PORTAL), 'role[a]', entry(1)));
      expect(written?.serial).toBe(1);
      expect(await stores[0]?.read()).toBeUndefined();
      expect(await stores[1]?.read()).toBeUndefined();
      await Promise.all(stores.map((store, index) => store.unlock(locks[index] as NonNullable<(typeof locks)[number]>)));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('creates its tables once when many runs start together, in the schema named by ?schema=', async () => {
    const schema = uniqueSchema('s');
    const stores = Array.from({ length: 4 }, (_, index) => new PostgresStateStore({ url: withSchema(schema), name: `n${index}` }));
    try {
      const written = await Promise.all(stores.map((store) => store.write(newState(PORTAL))));
      expect(written.map((state) => state.serial)).toEqual([1, 1, 1, 1]);
      expect(await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('reads nothing and creates nothing when the schema does not exist yet', async () => {
    const schema = uniqueSchema('s');
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'default' });
    expect(await store.read()).toBeUndefined();
    expect(await store.history()).toEqual([]);
    expect(await store.currentLock()).toBeUndefined();
    await store.close();
    expect(await sql(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [schema])).toEqual([]);
  });

  it('brings tables of an older release forward, keeping the state', async () => {
    const schema = uniqueSchema('s');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const old = recordOperation(newState(PORTAL), 'role[a]', entry(1));
    try {
      await migrateSchema(client, schema, 1);
      await client.query(`INSERT INTO "${schema}".states (name, lineage, serial, document) VALUES ('default', $1, 1, $2::jsonb)`, [old.lineage, JSON.stringify({ ...old, serial: 1 })]);
    } finally {
      await client.end();
    }
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'default' });
    try {
      expect((await store.read())?.lineage).toBe(old.lineage);
      const next = await store.write({ ...old, serial: 1 });
      expect(next.serial).toBe(2);
      expect((await store.history()).map((item) => item.serial)).toEqual([2]);
      expect(await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    } finally {
      await store.close();
    }
  });

  it('refuses tables written by a newer release, and changes nothing', async () => {
    const schema = uniqueSchema('s');
    const first = new PostgresStateStore({ url: withSchema(schema), name: 'default' });
    const written = await first.write(newState(PORTAL));
    await first.close();
    await sql(`UPDATE "${schema}".schema_version SET version = 99`);
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'default' });
    try {
      await expect(store.read()).rejects.toThrow(/written by a newer portalctl \(tables version 99; this release knows up to \d+\)/);
      await expect(store.write(written)).rejects.toThrow(/newer portalctl/);
      await expect(store.lock({ operation: 'apply' })).rejects.toThrow(/newer portalctl/);
      expect(await sql<{ serial: string }>(`SELECT serial FROM "${schema}".states`)).toEqual([{ serial: '1' }]);
    } finally {
      await store.close();
    }
  });

  it('never shows the password: not in its description, nor in a connection error', async () => {
    const parsed = new URL(url);
    parsed.password = 'wrong-Secret-42';
    const store = new PostgresStateStore({ url: parsed.toString(), name: 'default' });
    expect(store.describe()).not.toContain('wrong-Secret-42');
    const error = (await store.read().then(
      () => new Error('read succeeded'),
      (caught: unknown) => caught as Error,
    ));
    expect(error.message).toContain('Cannot read the PostgreSQL state at postgres://postgres@');
    expect(error.message).toMatch(/password authentication failed/);
    expect(error.message).not.toContain('wrong-Secret-42');
    await store.close();
    expect(redactPostgresUrl('postgresql://u:p%40ss@db.example.com:5432/x?sslmode=require&password=q')).toBe('postgresql://u@db.example.com:5432/x?sslmode=require');
  });

  it('refuses what looks like a database URL but does not parse, without showing its password', () => {
    const open = (spec: string, env: NodeJS.ProcessEnv = {}) => () => openStateStore(spec, { cwd: '/tmp', env });
    // One slash: a URL without a host, once taken for a file path and printed whole.
    for (const spec of ['postgres:/user:Hunter2pw@db.example.com/prod', 'postgresql:user:Hunter2pw@db.example.com/prod', 'postgres://user:Hunter2pw@/prod']) {
      expect(open(spec)).toThrow(/is not a valid PostgreSQL URL; write it as postgres:\/\/user@host:port\/database/);
      expect(open(spec)).not.toThrow(/Hunter2pw/);
    }
    expect(open('postgres:/user:Hunter2pw@db.example.com/prod')).toThrow('--state postgres:/user@db.example.com/prod is not a valid PostgreSQL URL');
    // The same through PORTALCTL_STATE.
    expect(() => openStateStore(undefined, { cwd: '/tmp', env: { PORTALCTL_STATE: 'postgres:/u:Hunter2pw@h/db' } })).toThrow(/not a valid PostgreSQL URL/);
    expect(redactPostgresUrl('postgres:/user:Hunter2pw@db.example.com/prod?password=x')).toBe('postgres:/user@db.example.com/prod?password=***');
  });

  it('refuses an sslmode libpq does not know, and names a bad %-escape in the password without showing it', () => {
    const open = (spec: string) => () => openStateStore(spec, { cwd: '/tmp', env: {} });
    expect(open('postgres://u@db.example.com/x?sslmode=bogus')).toThrow(
      'The state URL postgres://u@db.example.com/x?sslmode=bogus sets sslmode=bogus; it takes one of disable, allow, prefer, require, verify-ca, verify-full (as libpq reads it).',
    );
    expect(open('postgres://u:pa%zzss@db.example.com/x')).toThrow(/The password in the state URL postgres:\/\/u@db\.example\.com\/x holds a "%" not followed by two hexadecimal digits\. Write "%" as %25/);
    expect(open('postgres://u:pa%zzss@db.example.com/x')).not.toThrow(/pa%zzss|URI malformed/);
    expect(open('postgres://u:%C3%28@db.example.com/x')).toThrow(/holds a %-escape that is not UTF-8/);
    expect(open('postgres://u@db.example.com/x?query_timeout=soon')).toThrow(/sets query_timeout=soon; it takes a number of seconds greater than 0 \(default 30\)/);
    expect(open('postgres://u@db.example.com/x?connect_timeout=0')).toThrow(/sets connect_timeout=0; it takes a number of seconds greater than 0 \(default 10\)/);
  });

  it('honours sslmode: require fails clearly on a server without TLS, disable connects', async () => {
    const requireTls = new URL(url);
    requireTls.searchParams.set('sslmode', 'require');
    const refused = new PostgresStateStore({ url: requireTls.toString(), name: 'default' });
    await expect(refused.read()).rejects.toThrow(/Cannot read the PostgreSQL state at .*sslmode=require.*: The server does not support SSL connections/);
    await refused.close();
    const plain = new URL(url);
    plain.searchParams.set('sslmode', 'disable');
    const store = openStateStore(plain.toString(), { cwd: '/', env: {}, name: `tls-${randomUUID()}` });
    expect(await store.read()).toBeUndefined();
    await store.close();
  });

  it('honours sslmode=prefer and allow as libpq does: a server without TLS takes a plain connection (node-postgres alone refused it)', async () => {
    for (const mode of ['prefer', 'allow']) {
      const spec = new URL(url);
      spec.searchParams.set('sslmode', mode);
      const store = new PostgresStateStore({ url: spec.toString(), name: `tls-${mode}-${randomUUID()}` });
      try {
        // The lock's own connection and the pooled ones.
        const lock = await store.lock({ operation: 'apply' });
        expect((await store.write(newState(PORTAL))).serial, mode).toBe(1);
        await store.unlock(lock);
        expect((await store.read())?.serial, mode).toBe(1);
        expect(store.describe()).toContain(`sslmode=${mode}`);
      } finally {
        await store.close();
      }
    }
    // A server that cannot be reached is said as before, not as a TLS problem.
    const unreachable = new URL(url);
    unreachable.port = '1';
    unreachable.searchParams.set('sslmode', 'prefer');
    unreachable.searchParams.set('connect_timeout', '5');
    const down = new PostgresStateStore({ url: unreachable.toString(), name: 'default' });
    await expect(down.read()).rejects.toThrow(/Cannot read the PostgreSQL state at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres\?sslmode=prefer&connect_timeout=5 state "default": connect ECONNREFUSED/);
    await expect(down.lock({ operation: 'apply' })).rejects.toThrow(/Cannot lock the PostgreSQL state at .*: connect ECONNREFUSED/);
    await down.close();
  });

  // The lock's session must be a process of this machine, stopped here: not so on another server.
  it.skipIf(process.env['PORTALCTL_TEST_PG'] !== undefined)('state unlock by id returns once the ended session has let the lock go, not when it was only signalled', async () => {
    const name = `lingering-${randomUUID()}`;
    const holder = new PostgresStateStore({ url, name });
    let released: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => (released = resolve));
    // The unlock's first wait for the session to exit is the event the test waits for.
    const admin = new PostgresStateStore({ url, name, sleep: async () => released() });
    let backendPid: number | undefined;
    try {
      await holder.write(newState(PORTAL));
      const lock = await holder.lock({ operation: 'apply' });
      backendPid = (await sql<{ backend_pid: number }>('SELECT backend_pid FROM portalctl.locks WHERE name = $1', [name]))[0]?.backend_pid;
      expect(backendPid).toBeGreaterThan(0);
      // A stopped process cannot act on the signal that ends it: it holds the lock until it runs again.
      process.kill(backendPid as number, 'SIGSTOP');
      let settled = false;
      const unlocking = admin.forceUnlock(lock.info.id).finally(() => (settled = true));
      // Whichever comes first: an unlock that does not wait returns while the session still holds the lock.
      await Promise.race([waited, unlocking]);
      expect(settled).toBe(false);
      expect((await admin.lockStatus()).state).not.toBe('none');
      process.kill(backendPid as number, 'SIGCONT');
      expect(await unlocking).toMatchObject({ id: lock.info.id });
      expect(await admin.lockStatus()).toEqual({ state: 'none' });
    } finally {
      // Never left stopped, whatever failed (gone already when the test passed).
      if (backendPid !== undefined) {
        try {
          process.kill(backendPid, 'SIGCONT');
        } catch {
          // It has exited.
        }
      }
      await Promise.all([holder.close(), admin.close()]);
    }
  });

  it('a run whose lock session is ended cannot write any more, and another run gets the lock', async () => {
    const name = `ended-${randomUUID()}`;
    const holder = new PostgresStateStore({ url, name, command: 'portalctl apply' });
    const other = new PostgresStateStore({ url, name });
    try {
      const first = await holder.write(newState(PORTAL));
      const lock = await holder.lock({ operation: 'apply' });
      expect(await other.forceUnlock(lock.info.id)).toMatchObject({ id: lock.info.id, command: 'portalctl apply' });
      // Said as what ended it (it read as a database that went away: "once the database is reachable").
      await expect(holder.write(first)).rejects.toThrow(/Lost the connection to the PostgreSQL state .*: ended by another run's `portalctl state unlock`, or by the server stopping\).* Check that no one else is applying|Cannot write the PostgreSQL state/s);
      const taken = await other.lock({ operation: 'apply', timeoutMs: 10_000, pollMs: 20 });
      expect((await other.write(first)).serial).toBe(2);
      await other.unlock(taken);
      await holder.unlock(lock);
    } finally {
      await Promise.all([holder.close(), other.close()]);
    }
  });

  it("a state started afresh under the name of one whose states row was deleted by hand sets the other state's rows aside: never read, listed or rebuilt as its own", async () => {
    const schema = uniqueSchema('s');
    const notices: string[] = [];
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'prod', onNotice: (message, kind) => notices.push(`${kind}: ${message}`) });
    try {
      let old = await store.write(newState(PORTAL));
      for (const value of [1, 2, 3]) old = await store.write(recordOperation(old, `role[a${value}]`, entry(value)));
      const oldRows = await sql(`SELECT serial::int, lineage, change::text FROM "${schema}".history ORDER BY serial`);
      await sql(`DELETE FROM "${schema}".states WHERE name = 'prod'`);
      // The history of a state whose row is gone is still listed (all that is left of it).
      expect((await store.history()).map((kept) => [kept.serial, kept.lineage])).toEqual([4, 3, 2, 1].map((serial) => [serial, old.lineage]));

      const fresh = await store.write(recordOperation(newState(PORTAL), 'role[b]', entry(9)));
      expect(fresh.serial).toBe(1);
      const aside = `prod.history-${old.lineage}`;
      expect(notices).toEqual([
        `history: ${store.describe()} held the history and entries of another state (lineage ${old.lineage}, its states row gone); they are kept under the state name "${aside}", and this state's history starts afresh.`,
      ]);
      // The removed state's entries are not the new state's.
      const reader = new PostgresStateStore({ url: withSchema(schema), name: 'prod' });
      expect(await reader.read()).toEqual(fresh);
      await reader.close();
      expect((await store.history()).map((kept) => [kept.serial, kept.lineage])).toEqual([[1, fresh.lineage]]);
      expect(await store.readSerial(1)).toEqual(fresh);
      expect(await store.readSerial(3)).toBeUndefined();
      // Kept whole under the other name: every history row, and the entries.
      expect(await sql(`SELECT serial::int, lineage, change::text FROM "${schema}".history WHERE name = $1 ORDER BY serial`, [aside])).toEqual(oldRows);
      expect(await sql(`SELECT address FROM "${schema}".resources WHERE name = $1 ORDER BY address`, [aside])).toEqual([{ address: 'role[a1]' }, { address: 'role[a2]' }, { address: 'role[a3]' }]);

      // A history an earlier release mixed (the old state's later serials left under the name, one
      // of them a whole copy as releases before tables version 3 kept it): never this state's.
      await sql(`INSERT INTO "${schema}".history (name, serial, lineage, document, change, command, resources, changed) SELECT 'prod', serial, lineage, document, change, command, resources, changed FROM "${schema}".history WHERE name = $1 AND serial > 1`, [aside]);
      await sql(`UPDATE "${schema}".history SET document = $1::jsonb WHERE name = 'prod' AND serial = 2`, [JSON.stringify(old)]);
      expect((await store.history()).map((kept) => [kept.serial, kept.lineage])).toEqual([[1, fresh.lineage]]);
      expect(await store.readSerial(2)).toBeUndefined();
      const next = await store.write(recordOperation(fresh, 'role[c]', entry(5)));
      expect(await store.readSerial(1)).toEqual(fresh);
      expect(await store.readSerial(2)).toEqual(next);
    } finally {
      await store.close();
    }
  });

  it('a corrupt state says what the database keeps of it: show --serial rebuilds from the state itself, so only a whole copy of an earlier release is offered', async () => {
    const schema = uniqueSchema('s');
    const store = new PostgresStateStore({ url: withSchema(schema), name: 'prod' });
    try {
      const first = await store.write(recordOperation(newState(PORTAL), 'role[a]', entry(1)));
      const second = await store.write(recordOperation(first, 'role[b]', entry(2)));
      await sql(`UPDATE "${schema}".states SET head = '{"formatVersion": 1, "lineage": "x"}'::jsonb WHERE name = 'prod'`);
      const where = store.describe();
      const noCopy =
        `State ${where} is corrupt: portal.url is missing. Nothing was changed. No earlier version of it is kept (its history holds the changes of each serial, which rebuild earlier serials from this state only). ` +
        `Restore it from a copy (delete its row from the ${schema}.states table, then \`portalctl state push\` the copy), or use another --state-name to start a new state.`;
      const writer = new PostgresStateStore({ url: withSchema(schema), name: 'prod' });
      for (const reading of [() => store.read(), () => store.readSerial(1), () => writer.write(second)]) {
        const error = await reading().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StateCorruptError);
        expect((error as Error).message).toBe(noCopy);
      }
      await writer.close();
      // A whole copy, as releases before tables version 3 kept every serial: offered, and shown.
      await sql(`UPDATE "${schema}".history SET document = $1::jsonb WHERE name = 'prod' AND serial = 1`, [JSON.stringify(first)]);
      await expect(store.read()).rejects.toThrow(
        `State ${where} is corrupt: portal.url is missing. Nothing was changed. An earlier version is kept whole in its history (serial 1); \`portalctl state show --serial 1\` shows it.`,
      );
      expect(await store.readSerial(1)).toEqual(first);
    } finally {
      await store.close();
    }
  });
});
