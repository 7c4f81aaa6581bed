/**
 * libpq's TLS settings against a server that takes TLS only (pg_hba `hostssl`), started here with
 * a certificate of its own authority. `sslmode=prefer` and `allow`: node-postgres alone takes
 * `allow` for TLS with a verified certificate (refused here: its authority is not trusted) and
 * never falls back; the store tries the transports as libpq does. The root certificate: libpq's
 * default `~/.postgresql/root.crt` (or PGSSLROOTCERT) when the URL names none, which
 * node-postgres does not read. (The server without TLS is postgres-store.test.ts's.)
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type GeneratedTls } from '../../src/emulator/index.js';
import { newState, PostgresStateStore } from '../../src/state/index.js';
import { startEmbeddedPostgres } from '../support/postgres.mjs';

type TestPostgres = Awaited<ReturnType<typeof startEmbeddedPostgres>>;

const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };

describe("the state URL's TLS settings, on a server that takes TLS only", () => {
  let database: TestPostgres;
  let tls: GeneratedTls;
  let homes: string;
  beforeAll(async () => {
    tls = await generateTls();
    database = await startEmbeddedPostgres({ tls, tlsOnly: true });
    homes = await mkdtemp(join(tmpdir(), 'portalctl-pg-homes-'));
  });
  afterAll(async () => {
    await database?.dispose();
    await rm(homes, { recursive: true, force: true });
  });

  /** A home directory whose ~/.postgresql/root.crt is `authority` (none: no such file). */
  async function homeWith(authority: string | undefined): Promise<string> {
    const home = join(homes, randomUUID());
    await mkdir(join(home, '.postgresql'), { recursive: true });
    if (authority !== undefined) await writeFile(join(home, '.postgresql', 'root.crt'), authority);
    return home;
  }

  const withMode = (mode: string): string => {
    const url = new URL(database.url);
    url.searchParams.set('sslmode', mode);
    return url.toString();
  };

  /** Whether the session of the lock this store holds is encrypted, asked of the server by another session. */
  async function lockSessionUsesTls(): Promise<boolean | undefined> {
    const client = new pg.Client({ connectionString: withMode('require').replace('sslmode=require', 'sslmode=require&uselibpqcompat=true') });
    await client.connect();
    try {
      const result = await client.query<{ ssl: boolean }>(
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name LIKE 'portalctl lock%'",
      );
      return result.rows.length === 1 ? result.rows[0]?.ssl : undefined;
    } finally {
      await client.end();
    }
  }

  it('a plain connection is refused by this server (so the modes below had to use TLS)', async () => {
    const store = new PostgresStateStore({ url: withMode('disable'), name: 'default' });
    await expect(store.read()).rejects.toThrow(/Cannot read the PostgreSQL state at .*sslmode=disable.*: no pg_hba\.conf entry for host "127\.0\.0\.1", user "postgres", database "postgres", no encryption/);
    await store.close();
  });

  for (const mode of ['prefer', 'allow']) {
    it(`sslmode=${mode}: locks, writes and reads over TLS, without verifying the certificate (as libpq)`, async () => {
      const store = new PostgresStateStore({ url: withMode(mode), name: `tls-${mode}-${randomUUID()}` });
      try {
        const lock = await store.lock({ operation: 'apply' });
        expect(await lockSessionUsesTls()).toBe(true);
        expect((await store.write(newState(PORTAL))).serial).toBe(1);
        await store.unlock(lock);
        expect((await store.read())?.serial).toBe(1);
      } finally {
        await store.close();
      }
    });
  }

  it("verify-full and require check the certificate against ~/.postgresql/root.crt, or PGSSLROOTCERT, when the URL names no sslrootcert", async () => {
    const read = async (mode: string, env: NodeJS.ProcessEnv): Promise<number | undefined> => {
      const store = new PostgresStateStore({ url: withMode(mode), name: 'root-certificate', env });
      try {
        return (await store.read())?.serial;
      } finally {
        await store.close();
      }
    };
    const trusted = await homeWith(tls.authority);
    expect(await read('verify-full', { HOME: trusted })).toBeUndefined();
    expect(await read('verify-ca', { HOME: trusted })).toBeUndefined();
    const file = join(trusted, '.postgresql', 'root.crt');
    expect(await read('verify-full', { HOME: await homeWith(undefined), PGSSLROOTCERT: file })).toBeUndefined();
    // Without it, the server's authority is not trusted.
    await expect(read('verify-full', { HOME: await homeWith(undefined) })).rejects.toThrow(/Cannot read the PostgreSQL state at .*sslmode=verify-full.*: unable to verify the first certificate/);
    // require verifies only when there is a root certificate, as libpq: another authority's is refused.
    expect(await read('require', { HOME: await homeWith(undefined) })).toBeUndefined();
    const other = await generateTls();
    await expect(read('require', { HOME: await homeWith(other.authority) })).rejects.toThrow(/Cannot read the PostgreSQL state at .*sslmode=require.*: certificate signature failure/);
  });
});
