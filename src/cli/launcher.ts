/**
 * The package's bin (built by scripts/bundle.mjs as CommonJS into dist/bin/portalctl.js; it runs
 * only from there). It starts the CLI bundle, cli.cjs beside it, through a V8 code cache kept per
 * user, so that a start neither parses the bundle nor compiles the functions a command runs.
 *
 * The bundle is compiled as a vm.Script with the cached data of an earlier run. The data is
 * written at exit, so it holds the functions the command compiled and not only the top level;
 * it is rewritten when there was none or V8 refused it. Each command has its own file: V8
 * deserializes the whole of a cache, and a command's own holds only the code it runs. Node's
 * own compile cache (22.1+) makes its data at compile time, before the functions a command runs
 * are compiled: measured on examples/minimal, `validate` took 78 ms with it on Node 22 and 60 ms
 * with this cache (node -e 0: 35 ms), so it is not used. The bundles the CLI loads on first use
 * beside it (yaml.cjs, undici.cjs, pg.cjs, emulator.cjs) go through this cache too: the bundle's
 * `require` of them is answered here.
 *
 * A cache never decides whether a command works: any failure to find, read, check or write it
 * just means compiling as usual. A cache file is named after its bundle's digest, the V8 version
 * and the architecture, so an upgrade never meets an old cache; V8 itself refuses data made with
 * other flags; a checksum keyed by the bundle keeps data made for another bundle from running. Set NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) to turn it off.
 */
import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import { crc32 } from 'node:zlib';

/** sha256 of each bundle beside the launcher (its first 16 hex digits) by file name, written in by the build. */
declare const PORTALCTL_BUNDLE_DIGESTS: Record<string, string>;

const bundleFile = join(__dirname, 'cli.cjs');
/** Cache files kept per bundle build (one per command); past this, no new one is written. */
const MAX_COMMANDS = 32;

/**
 * The per-user cache directory (XDG on Linux), or undefined when the environment names no home
 * to put it in (node:os is not loaded for a fallback: it costs every start).
 */
function userCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'win32') return env['LOCALAPPDATA'] ? join(env['LOCALAPPDATA'], 'portalctl', 'Cache') : undefined;
  const home = env['HOME'];
  if (process.platform === 'darwin') return home ? join(home, 'Library', 'Caches', 'portalctl') : undefined;
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && isAbsolute(xdg)) return join(xdg, 'portalctl');
  return home ? join(home, '.cache', 'portalctl') : undefined;
}

/**
 * The cache directory, created if need be, when it is safe to load code from: owned by this user
 * and writable by no one else (cached data is code; another user must not be able to plant it).
 */
function safeCacheDirectory(): string | undefined {
  if (process.env['NODE_DISABLE_COMPILE_CACHE']) return undefined;
  try {
    const directory = userCacheDirectory(process.env);
    if (!directory) return undefined;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') {
      const stats = statSync(directory);
      if (stats.uid !== process.getuid?.() || (stats.mode & 0o022) !== 0) return undefined;
    }
    return directory;
  } catch {
    return undefined;
  }
}

/** The command's name (first argument), or '' for none: each command has its own cache files. */
function commandName(argv: string[]): string {
  const first = argv[2] ?? '';
  return /^[a-z][a-z-]{0,31}$/.test(first) ? first : '';
}

interface CacheFile {
  commands: string[];
  data: Buffer | undefined;
}

interface CacheHeader {
  commands?: unknown;
  bundle?: unknown;
  checksum?: unknown;
}

/**
 * The data's checksum, keyed by its bundle: a CRC-32 of the data seeded with one of the bundle's
 * bytes, itself seeded with the bundle's build digest. V8 checks cached data's versions, flags
 * and the source's *length* only, and in release builds not the data's bytes: data made for
 * another bundle (a cache restored by CI, a bundle changed in place with the file name's digest
 * unchanged) or damaged bytes would run as code. With the checksum they never do. (A CRC does
 * not stop a forger; only the user can write the directory, which safeCacheDirectory checks.)
 */
function checksum(data: Uint8Array, digest: string, bundleBytes: Uint8Array): number {
  return crc32(data, crc32(bundleBytes, crc32(digest)));
}

/**
 * A bundle's text from its bytes. The build keeps the bundles ASCII (scripts/bundle.mjs checks),
 * and ASCII read as latin1 is the same text without UTF-8 decoding: about 2 ms of every start
 * for cli.cjs. A bundle that is not ASCII (changed in place) is decoded as UTF-8.
 */
function bundleText(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * A cache file: one JSON line (the commands it covers, the bundle's digest, the keyed checksum),
 * then V8's cached data. Any doubt (another bundle, a checksum that does not match, a header
 * that does not parse) means no data: a normal start.
 */
function readCache(file: string, digest: string, bundleBytes: Uint8Array): CacheFile {
  try {
    const bytes = readFileSync(file);
    const newline = bytes.indexOf(10);
    const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as CacheHeader;
    const data = bytes.subarray(newline + 1);
    if (newline < 0 || header.bundle !== digest || header.checksum !== checksum(data, digest, bundleBytes)) return { commands: [], data: undefined };
    const commands = Array.isArray(header.commands) ? header.commands.filter((name): name is string => typeof name === 'string') : [];
    return { commands, data };
  } catch {
    return { commands: [], data: undefined };
  }
}

/**
 * Written whole under a temporary name, then renamed: a concurrent start never reads half a file.
 * Caches of other builds of the bundle are of no further use and go; past MAX_COMMANDS files for
 * this build (mistyped commands make theirs too), no more are added.
 */
function writeCache(directory: string, file: string, prefix: string, digest: string, commands: string[], data: Buffer, bundleBytes: Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const thisBuild = `${prefix}-${digest}.`;
    let kept = 0;
    for (const name of readdirSync(directory)) {
      if (!name.startsWith(`${prefix}-`)) continue;
      if (name.startsWith(thisBuild)) kept += 1;
      else rmSync(join(directory, name), { force: true });
    }
    if (kept >= MAX_COMMANDS) return;
    const header = { commands, bundle: digest, checksum: checksum(data, digest, bundleBytes) };
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** What the bundles evaluated so far exported, by file name (as require's cache would hold them). */
const loadedBundles = new Map<string, { exports: unknown }>();
/** Cache files to write at exit. */
const pendingCaches: (() => void)[] = [];

/**
 * The launcher's own CommonJS `require` (every bundle lives beside it, so it resolves as theirs
 * would). Taken as a value: `node:module`'s createRequire would load Node's ES module loader at
 * every start.
 */
const nodeRequire: NodeJS.Require = require;

/** `require` for the bundles' code: the bundles beside it come through the code cache, the rest from Node. */
function bundleRequire(directory: string): NodeJS.Require {
  const load = (id: string): unknown => {
    const sibling = /^\.\/([a-z]+\.cjs)$/.exec(id)?.[1];
    return sibling !== undefined && PORTALCTL_BUNDLE_DIGESTS[sibling] !== undefined ? loadBundle(directory, sibling) : nodeRequire(id);
  };
  return Object.assign(load, { resolve: nodeRequire.resolve, cache: nodeRequire.cache, extensions: nodeRequire.extensions, main: nodeRequire.main });
}

/**
 * Compiles a bundle beside the launcher with the cached data, keeps the data fresh at exit, and
 * runs it once; returns what it exports.
 */
function loadBundle(directory: string, name: string): unknown {
  const loaded = loadedBundles.get(name);
  if (loaded) return loaded.exports;
  const file = join(__dirname, name);
  const prefix = name.replace(/\.cjs$/, '');
  const command = commandName(process.argv);
  // One file per command: V8 deserializes all of a cache, and a command's own holds only its code.
  const digest = PORTALCTL_BUNDLE_DIGESTS[name] ?? 'unknown';
  const cacheFile = join(directory, `${prefix}-${digest}.${command || 'none'}.${process.versions.v8}.${process.arch}${baseline ? '.liftoff' : ''}.cache`);
  const bytes = readFileSync(file);
  const source = bundleText(bytes);
  const cached = readCache(cacheFile, digest, bytes);
  // CommonJS's own wrapper, on the bundle's first line so that line numbers stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cached.data ? { cachedData: cached.data } : {}),
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cached.data === undefined || script.cachedDataRejected) {
    pendingCaches.push(() => writeCache(directory, cacheFile, prefix, digest, [command], script.createCachedData(), bytes));
  }
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  const bundleModule = { exports: {} };
  loadedBundles.set(name, bundleModule);
  wrapper.call(bundleModule.exports, bundleModule.exports, bundleRequire(directory), bundleModule, file, __dirname);
  return bundleModule.exports;
}

/**
 * Whether this run keeps WebAssembly on V8's baseline compiler. undici parses HTTP with llhttp
 * compiled to WebAssembly, and V8 11 (Node 20) compiles its large parser function again with
 * TurboFan on a background thread as soon as it runs, more CPU than the rest of a small
 * `drift`; the baseline code parses a command's answers fast enough. V8 12+ (Node 22, 24) does not pay it. Only for the commands that may
 * reach a portal: setting a flag means loading `node:v8`, which loads Node's streams. The flag is set before anything is compiled and names the cache
 * files, since V8 checks cached code against the flags it was made under.
 */
function baselineWasmOnly(argv: string[]): boolean {
  if (Number(process.versions.v8.split('.')[0]) >= 12) return false;
  const command = commandName(argv);
  if (command === 'plan') return !argv.includes('--refresh=false') && !argv.some((arg, index) => arg === '--refresh' && argv[index + 1] === 'false');
  return command === 'apply' || command === 'drift' || command === 'import';
}

const baseline = baselineWasmOnly(process.argv);
if (baseline) {
  const v8: typeof import('node:v8') = nodeRequire('node:v8');
  v8.setFlagsFromString('--liftoff-only');
}

const directory = safeCacheDirectory();
if (directory) {
  // Written at exit, so that the data holds the functions the command ran.
  process.once('exit', () => {
    for (const write of pendingCaches) {
      try {
        write();
      } catch {
        // No cache this time.
      }
    }
  });
  loadBundle(directory, 'cli.cjs');
} else {
  nodeRequire(bundleFile);
}
