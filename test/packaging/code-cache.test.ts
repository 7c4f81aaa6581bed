/**
 * The bin starts the bundle through a per-user code cache (src/cli/launcher.ts): V8 cached data
 * written by the launcher (and, on Node 22.1+, Node's compile cache for what Node's loaders load
 * later). What a user relies on: the output is the same with and without a cache, the cache lives
 * in the user's own directory, a bad or unusable cache never breaks a command, and a cache made
 * for another build is never used.
 */
import { isAscii } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { CLI, REPO_ROOT, SAMPLE_ORG } from '../support/cli.js';

const example = join(REPO_ROOT, 'examples/minimal');
let home: string;

function portalctl(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const { NODE_DISABLE_COMPILE_CACHE: _disabled, NODE_COMPILE_CACHE: _elsewhere, ...inherited } = process.env;
  return spawnSync(process.execPath, [...nodeArgs, CLI, ...args], { encoding: 'utf8', cwd: home, env: { ...inherited, HOME: home, XDG_CACHE_HOME: join(home, 'cache'), ...env } });
}

/** The same, without blocking this process (where the emulator runs). */
function portalctlAsync(args: string[], env: Record<string, string>, nodeArgs: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { NODE_DISABLE_COMPILE_CACHE: _disabled, NODE_COMPILE_CACHE: _elsewhere, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { cwd: home, env: { ...inherited, HOME: home, XDG_CACHE_HOME: join(home, 'cache'), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Every file below `directory`, relative to it (Node's own compile cache on 22.1+ included). */
function filesBelow(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(join(directory, name)).isFile()).sort();
}

/**
 * The launcher's cache file of a bundle for one command: named after the bundle's digest, the
 * command, V8's version and the architecture, and marked for the commands that may reach a
 * portal, which run with WebAssembly on the baseline compiler (src/cli/launcher.ts).
 */
function launcherCacheName(bundle = 'cli', { command = 'validate', network = false } = {}): string {
  const digest = createHash('sha256').update(readFileSync(join(REPO_ROOT, `dist/bin/${bundle}.cjs`))).digest('hex').slice(0, 16);
  return `${bundle}-${digest}.${command}.${process.versions.v8}.${process.arch}${network ? '.liftoff' : ''}.cache`;
}

const cacheHeader = (file: string) => JSON.parse(readFileSync(file).subarray(0, readFileSync(file).indexOf(10)).toString('utf8')) as { commands: string[]; file: string };

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'portalctl-cache-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('the code cache of the bin', () => {
  it('lives in the per-user cache directory, and a cached start gives the same output', () => {
    const directory = join(home, 'cache', 'portalctl');
    // Caches of other builds of the bundle (other versions) are never loaded. The three most
    // recently written stay, so that versions used in turn keep theirs; older ones go.
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const otherBuilds = ['0000000000000001', '0000000000000002', '0000000000000003', '0000000000000004'].map((digest, age) => {
      const file = join(directory, `cli-${digest}.validate.${process.versions.v8}.${process.arch}.cache`);
      writeFileSync(file, '{"commands":["validate"]}\nnot V8 data');
      // The first written longest ago.
      const written = new Date(Date.now() - (4 - age) * 3_600_000);
      utimesSync(file, written, written);
      return file;
    });
    const [oldest, ...recent] = otherBuilds;

    const first = portalctl(['validate', example]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^Valid: 2 managed objects/);
    if (process.platform !== 'win32') expect(statSync(directory).mode & 0o777).toBe(0o700);

    const cacheFile = join(directory, launcherCacheName());
    expect(existsSync(oldest!)).toBe(false);
    expect(recent.filter((file) => existsSync(file))).toEqual(recent);
    for (const file of recent) rmSync(file);
    expect(filesBelow(directory).filter((name) => !name.startsWith('node-compile-cache'))).toEqual([launcherCacheName()]);
    if (process.platform !== 'win32') expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(cacheHeader(cacheFile).commands).toEqual(['validate']);
    const written = statSync(cacheFile);

    // The same command again is served from the cache, which V8 accepted: it is not rewritten
    // (a rewrite renames a new file into place).
    const second = portalctl(['validate', example]);
    expect(second).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
    expect(statSync(cacheFile)).toMatchObject({ ino: written.ino, mtimeMs: written.mtimeMs });

    // Another command writes its own file, with only its own code.
    const schema = portalctl(['schema']);
    expect(schema.status).toBe(0);
    expect(JSON.parse(schema.stdout)).toHaveProperty('$schema');
    expect(filesBelow(directory)).toEqual([launcherCacheName('cli', { command: 'schema' }), launcherCacheName()].sort());
    expect(statSync(cacheFile)).toMatchObject({ ino: written.ino, mtimeMs: written.mtimeMs });
    const again = portalctl(['validate', example]);
    expect(again).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
  });

  it('undici, pg and yaml come from the bundles beside the CLI, through the same cache, never from node_modules', async () => {
    // A preload that fails any load of the packages from node_modules.
    const blocker = join(home, 'no-node-modules.cjs');
    writeFileSync(
      blocker,
      [
        "const Module = require('node:module');",
        'const load = Module._load;',
        "Module._load = function (request, ...rest) { if (/^(undici|pg|yaml)(\\/|$)/.test(request)) throw new Error(`${request} was loaded from node_modules`); return load.call(this, request, ...rest); };",
      ].join('\n'),
    );
    const emulator = await startEmulator({ port: 0, data: SAMPLE_ORG });
    try {
      const drift = ['drift', join(REPO_ROOT, 'examples/full'), '--portal', emulator.url, '--no-color'];
      const env = { PORTALCTL_TOKEN: 'admin-token' };
      const first = await portalctlAsync(drift, env, ['--require', blocker]);
      expect(first.stderr).toBe('');
      // Drift found: the sample organization differs from examples/full, shown with nested values as YAML.
      expect(first.status).toBe(2);
      expect(first.stdout).toContain('categorySchema');
      const directory = join(home, 'cache', 'portalctl');
      const written = ['cli', 'undici', 'yaml'].map((bundle) => launcherCacheName(bundle, { command: 'drift', network: true }));
      expect(filesBelow(directory).filter((name) => !name.startsWith('node-compile-cache'))).toEqual([...written].sort());
      const before = written.map((name) => statSync(join(directory, name)).ino);
      // Served from the caches the second time: none is rewritten.
      expect(await portalctlAsync(drift, env, ['--require', blocker])).toMatchObject({ status: 2, stdout: first.stdout, stderr: '' });
      expect(written.map((name) => statSync(join(directory, name)).ino)).toEqual(before);

      // A PostgreSQL state: pg from its bundle.
      const state = portalctl(['state', 'list', '--state', inject('postgresUrl'), '--state-name', `cache-${process.pid}`], {}, ['--require', blocker]);
      expect(state).toMatchObject({ status: 0, stderr: '' });
      expect(filesBelow(directory)).toContain(launcherCacheName('pg', { command: 'state' }));
    } finally {
      await emulator.close();
    }
  });

  it('a damaged cache is ignored (and replaced): the command runs as without one', () => {
    const first = portalctl(['validate', example, '--format', 'json']);
    expect(first.status).toBe(0);
    const directory = join(home, 'cache', 'portalctl');
    const cacheFile = join(directory, launcherCacheName());

    // Bytes changed inside V8's data, the header left as it was: V8 would not notice (it checks
    // versions, flags and lengths), the launcher's checksum does, and the data is made anew.
    const written = readFileSync(cacheFile);
    const dataStart = written.indexOf(10) + 1;
    const flipped = Buffer.from(written);
    for (let at = dataStart + 4096; at < flipped.length; at += 4096) flipped[at] = flipped[at]! ^ 0xff;
    writeFileSync(cacheFile, flipped);
    const before = statSync(cacheFile);
    const bitRot = portalctl(['validate', example, '--format', 'json']);
    expect(bitRot).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
    expect(statSync(cacheFile).ino).not.toBe(before.ino);
    expect(readFileSync(cacheFile).equals(flipped)).toBe(false);

    // Every cache file (Node's own on 22.1+ too) of the same length with other bytes, then cut short.
    const files = filesBelow(directory);
    for (const file of files) {
      const path = join(directory, file);
      writeFileSync(path, Buffer.concat([Buffer.from('{"commands":["validate"]}\n'), Buffer.alloc(Math.max(0, statSync(path).size - 26), 0x5a)]));
    }
    const damaged = portalctl(['validate', example, '--format', 'json']);
    expect(damaged).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
    expect(readFileSync(cacheFile).subarray(26, 64).every((byte) => byte === 0x5a)).toBe(false);

    for (const file of filesBelow(directory)) writeFileSync(join(directory, file), readFileSync(join(directory, file)).subarray(0, 40));
    expect(portalctl(['validate', example, '--format', 'json'])).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
  });

  it('data made for another bundle is never run, though its name, its length and its own checksum match', () => {
    // The cache of the bundle as built.
    const built = portalctl(['validate', example]);
    expect(built.stdout).toMatch(/^Valid: /);
    // The same bin beside a bundle changed in place, to a text of the same length: V8 would
    // take the data (it checks the source's length) and run the code of the bundle it was made from.
    const copy = join(home, 'bin');
    cpSync(join(REPO_ROOT, 'dist/bin'), copy, { recursive: true });
    const bundle = readFileSync(join(copy, 'cli.cjs'), 'utf8');
    expect(bundle.includes('Valid: ')).toBe(true);
    writeFileSync(join(copy, 'cli.cjs'), bundle.replaceAll('Valid: ', 'Vxlid: '));
    const { NODE_DISABLE_COMPILE_CACHE: _disabled, NODE_COMPILE_CACHE: _elsewhere, ...inherited } = process.env;
    const changed = spawnSync(process.execPath, [join(copy, 'portalctl.js'), 'validate', example], {
      encoding: 'utf8',
      env: { ...inherited, HOME: home, XDG_CACHE_HOME: join(home, 'cache') },
    });
    expect(changed.stderr).toBe('');
    expect(changed.stdout).toMatch(/^Vxlid: /);
  });

  it('the checksum is FNV-1a over the data as the launcher documents it, and the data is bound to the bundle file it was made for', () => {
    expect(portalctl(['validate', example]).status).toBe(0);
    const cacheFile = join(home, 'cache', 'portalctl', launcherCacheName());
    const written = readFileSync(cacheFile);
    const newline = written.indexOf(10);
    const header = JSON.parse(written.subarray(0, newline).toString('utf8')) as { checksum: number; file: string };
    // The reference: FNV-1a over little-endian 32-bit words (the last one zero-padded), then the length mixed in.
    const data = written.subarray(newline + 1);
    const padded = Buffer.alloc((data.length + 3) & ~3);
    data.copy(padded);
    let hash = 0x811c9dc5;
    for (let at = 0; at < padded.length; at += 4) hash = Math.imul(hash ^ padded.readInt32LE(at), 0x01000193);
    expect(header.checksum).toBe(Math.imul(hash ^ data.length, 0x01000193) >>> 0);
    const bundle = statSync(join(REPO_ROOT, 'dist/bin/cli.cjs'));
    expect(header.file).toBe(`${bundle.size}:${bundle.mtimeMs}:${bundle.ctimeMs}:${bundle.ino}:${bundle.dev}`);

    // The same bytes in another file (a copy of the bin): its identity differs, so the data is made anew for it.
    const copy = join(home, 'bin');
    cpSync(join(REPO_ROOT, 'dist/bin'), copy, { recursive: true });
    const { NODE_DISABLE_COMPILE_CACHE: _disabled, NODE_COMPILE_CACHE: _elsewhere, ...inherited } = process.env;
    const fromCopy = spawnSync(process.execPath, [join(copy, 'portalctl.js'), 'validate', example], { encoding: 'utf8', env: { ...inherited, HOME: home, XDG_CACHE_HOME: join(home, 'cache') } });
    expect(fromCopy).toMatchObject({ status: 0, stderr: '' });
    const copied = statSync(join(copy, 'cli.cjs'));
    expect(cacheHeader(cacheFile)).toMatchObject({ file: `${copied.size}:${copied.mtimeMs}:${copied.ctimeMs}:${copied.ino}:${copied.dev}` });
  });

  it('the built bundles are ASCII (read without decoding); one changed in place to other text is read as UTF-8', () => {
    for (const name of ['cli', 'yaml', 'undici', 'pg', 'emulator']) expect(isAscii(readFileSync(join(REPO_ROOT, `dist/bin/${name}.cjs`))), name).toBe(true);
    const copy = join(home, 'bin');
    cpSync(join(REPO_ROOT, 'dist/bin'), copy, { recursive: true });
    const bundle = readFileSync(join(copy, 'cli.cjs'), 'utf8');
    writeFileSync(join(copy, 'cli.cjs'), bundle.replaceAll('Valid: ', 'Välid ✓ '));
    const { NODE_DISABLE_COMPILE_CACHE: _disabled, NODE_COMPILE_CACHE: _elsewhere, ...inherited } = process.env;
    const run = () => spawnSync(process.execPath, [join(copy, 'portalctl.js'), 'validate', example], { encoding: 'utf8', env: { ...inherited, HOME: home, XDG_CACHE_HOME: join(home, 'cache') } });
    // Without a cache, then with the one the first run wrote.
    for (const changed of [run(), run()]) {
      expect(changed.stderr).toBe('');
      expect(changed.stdout).toMatch(/^Välid ✓ 2 managed objects/);
    }
  });

  it('a cache directory that cannot be made, or that others can write to, is not used and breaks nothing', () => {
    // XDG_CACHE_HOME is a file: no directory can be made below it.
    writeFileSync(join(home, 'not-a-directory'), '');
    const blocked = portalctl(['validate', example], { XDG_CACHE_HOME: join(home, 'not-a-directory') });
    expect(blocked.stderr).toBe('');
    expect(blocked.status).toBe(0);
    // No home at all (HOME and XDG_CACHE_HOME empty): no cache, same run.
    expect(portalctl(['validate', example], { HOME: '', XDG_CACHE_HOME: '' })).toMatchObject({ status: 0, stderr: '', stdout: blocked.stdout });

    if (process.platform !== 'win32') {
      // Writable by everyone: another user could plant code there.
      const shared = join(home, 'shared', 'portalctl');
      mkdirSync(shared, { recursive: true });
      chmodSync(shared, 0o777);
      const unsafe = portalctl(['validate', example], { XDG_CACHE_HOME: join(home, 'shared') });
      expect(unsafe).toMatchObject({ status: 0, stderr: '', stdout: blocked.stdout });
      expect(filesBelow(shared)).toEqual([]);
    }
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    const run = portalctl(['validate', example], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(existsSync(join(home, 'cache', 'portalctl'))).toBe(false);
  });
});
