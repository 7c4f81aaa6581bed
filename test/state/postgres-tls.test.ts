/**
 * libpq's TLS settings against a server that takes TLS only (pg_hba `hostssl`), started here with
 * a certificate of its own authority. `sslmode=prefer` and `allow`: node-postgres alone takes
 * `allow` for TLS with a verified certificate (refused here: its authority is not trusted) and
 * never falls back; the store tries the transports as libpq does. The root certificate: libpq's
 * default `~/.postgresql/root.crt` (or PGSSLROOTCERT) when the URL names none, which
 * node-postgres does not read. libpq's `sslrootcert=system`: the authorities Node trusts, checked
 * through the real CLI, whose trust NODE_EXTRA_CA_CERTS extends. (The server without TLS is
 * postgres-store.test.ts's.)
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type GeneratedTls } from '../../src/emulator/index.js';
import { newState, PostgresStateStore } from '../../src/state/index.js';
import { parsePostgresUrl } from '../../src/state/postgres-url.js';
import { startCliPortal } from '../support/cli.js';
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

  it("sslrootcert=system verifies against the authorities the system trusts, as verify-full, and refuses a weaker sslmode as libpq does", async () => {
    const read = async (url: string, env: NodeJS.ProcessEnv): Promise<number | undefined> => {
      const store = new PostgresStateStore({ url, name: 'system-roots', env });
      try {
        return (await store.read())?.serial;
      } finally {
        await store.close();
      }
    };
    const system = (extra = ''): string => `${database.url}?sslrootcert=system${extra}`;
    // This run's authority is not one the system trusts, and ~/.postgresql/root.crt does not count.
    const trusted = await homeWith(tls.authority);
    await expect(read(system(), { HOME: trusted })).rejects.toThrow(/Cannot read the PostgreSQL state at .*sslrootcert=system.*: unable to verify the first certificate/);
    await expect(read(system('&sslmode=verify-full'), { HOME: trusted })).rejects.toThrow(/unable to verify the first certificate/);
    for (const weaker of ['disable', 'allow', 'prefer', 'require', 'verify-ca']) {
      await expect(read(system(`&sslmode=${weaker}`), {})).rejects.toThrow(
        `The state URL ${system(`&sslmode=${weaker}`).replace(/:[^:@/]*@/, '@')} sets sslmode=${weaker} with sslrootcert=system, which libpq refuses: anyone can get a certificate the system trusts for a host name of their own, so only sslmode=verify-full (the default with sslrootcert=system) checks the server. Set sslmode=verify-full or leave sslmode out.`,
      );
    }
    await expect(read(`${database.url}?sslmode=require`, { PGSSLROOTCERT: 'system' })).rejects.toThrow(/sets sslmode=require with PGSSLROOTCERT=system, which libpq refuses/);

    // The host name is checked too (node-postgres's verify-full), against Node's own authorities.
    const target = parsePostgresUrl(system(), {});
    expect(new URL(target.connectionString).searchParams.get('sslmode')).toBe('verify-full');
    expect(new URL(target.connectionString).searchParams.has('sslrootcert')).toBe(false);
    // Through the CLI: Node trusts the authority NODE_EXTRA_CA_CERTS names.
    const portal = await startCliPortal();
    try {
      const authorityFile = join(homes, `authority-${randomUUID()}.pem`);
      await writeFile(authorityFile, tls.authority);
      const env = { HOME: await homeWith(undefined), NODE_EXTRA_CA_CERTS: authorityFile };
      const listed = await portal.run(['state', 'list'], { state: system(), portal: null, env });
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      const shown = system().replace(/:[^:@/]*@/, '@');
      expect(listed.stdout).toBe(`No recorded state at ${shown} state "default".\n`);
      const untrusted = await portal.run(['state', 'list'], { state: system(), portal: null, env: { HOME: env.HOME } });
      // Node 24 adds its own advice to OpenSSL's words ("; if the root CA is installed locally, try running Node.js with --use-system-ca").
      expect(untrusted.stderr.replace(/; if the root CA is installed locally, try running Node\.js with --use-system-ca(?=\n$)/, '')).toBe(
        `Error: Cannot read the PostgreSQL state at ${shown} state "default": unable to verify the first certificate\n`,
      );
      expect(untrusted.code).toBe(1);
    } finally {
      await portal.dispose();
    }
  });
});
