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
 * other flags; the bundle file's identity recorded with the data keeps data made for another text
 * from running, and a checksum keeps damaged data from running. Set NODE_DISABLE_COMPILE_CACHE=1
 * (Node's own switch) to turn it off.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';

/** sha256 of each bundle beside the launcher (its first 16 hex digits) by file name, written in by the build. */
declare const PORTALCTL_BUNDLE_DIGESTS: Record<string, string>;

const bundleFile = join(__dirname, 'cli.cjs');
/** Cache files kept per bundle build (one per command); past this, no new one is written. */
const MAX_COMMANDS = 32;
/**
 * Builds of a bundle whose caches are kept, this one included: the most recently written go on.
 * Two versions used in turn (a global install and a project's own, a CI matrix) must not take
 * each other's cache away at every start; a fifth build's first write removes the oldest's.
 */
const KEPT_BUILDS = 4;

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
  data: Uint8Array | undefined;
}

interface CacheHeader {
  commands?: unknown;
  bundle?: unknown;
  file?: unknown;
  checksum?: unknown;
}

/**
 * The bundle's identity on disk (size, change times, inode, device): a cache file records the one its data
 * was made for. V8 checks cached data's versions, flags and the source's *length* only: data made
 * for another text (a bundle changed in place, a cache directory restored from another machine)
 * would run as that text's code. A changed or replaced file has another identity (an in-place edit
 * changes the times; a new file, the inode and change time), and its data is made anew.
 */
function fileIdentity(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}:${stats.dev}`;
}

/**
 * FNV-1a over the data's 32-bit words, in WebAssembly: V8 does not check cached data's bytes in
 * release builds, so damaged bytes would run as code. Node's own hashes (zlib's crc32, crypto)
 * load Node's streams, about 3 ms of every start, and this loop in JavaScript runs interpreted
 * for about as long; compiled from these 101 bytes it takes a fraction of a millisecond. The
 * module, as text:
 *
 *   (module (memory (export "memory") 1)
 *     (func (export "fnv1a") (param $end i32) (result i32) (local $at i32) (local $hash i32)
 *       (local.set $hash (i32.const 0x811c9dc5))
 *       (block $done (loop $next
 *         (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *         (local.set $hash (i32.mul (i32.xor (local.get $hash) (i32.load (local.get $at))) (i32.const 0x01000193)))
 *         (local.set $at (i32.add (local.get $at) (i32.const 4)))
 *         (br $next)))
 *       (local.get $hash)))
 */
const FNV1A_WASM = [
  // Header; type section: (i32) -> i32; function section; memory section: 1 page; exports "memory", "fnv1a".
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01,
  0x07, 0x12, 0x02, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x05, 0x66, 0x6e, 0x76, 0x31, 0x61, 0x00, 0x00,
  // Code section: the function above.
  0x0a, 0x36, 0x01, 0x34, 0x01, 0x02, 0x7f, 0x41, 0xc5, 0xbb, 0xf2, 0x88, 0x78, 0x21, 0x02, 0x02, 0x40, 0x03, 0x40, 0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d,
  0x01, 0x20, 0x02, 0x20, 0x01, 0x28, 0x02, 0x00, 0x73, 0x41, 0x93, 0x83, 0x80, 0x08, 0x6c, 0x21, 0x02, 0x20, 0x01, 0x41, 0x04, 0x6a, 0x21, 0x01, 0x0c,
  0x00, 0x0b, 0x0b, 0x20, 0x02, 0x0b,
];

/** What this file uses of the WebAssembly global (TypeScript declares it only with the DOM library). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

/** The module's memory, grown to hold `bytes` bytes (a whole number of words), and its hash function. */
interface WordHasher {
  /** Bytes of the module's memory, for reading a file straight into. */
  memory(bytes: number): Uint8Array;
  /** The hash of the first `bytes` bytes of memory (zero-padded to a word), mixed with their number. */
  hash(bytes: number): number;
}

function wordHasher(): WordHasher {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(FNV1A_WASM)));
  const memory = instance.exports['memory'] as { buffer: ArrayBuffer; grow(pages: number): number };
  const fnv1a = instance.exports['fnv1a'] as (end: number) => number;
  return {
    memory(bytes) {
      const needed = Math.ceil((bytes + 4) / 65536) - memory.buffer.byteLength / 65536;
      if (needed > 0) memory.grow(needed);
      return new Uint8Array(memory.buffer, 0, bytes);
    },
    hash(bytes) {
      new Uint8Array(memory.buffer).fill(0, bytes, (bytes + 3) & ~3);
      return Math.imul(fnv1a((bytes + 3) & ~3) ^ bytes, 0x01000193) >>> 0;
    },
  };
}

/** The checksum of cached data (a copy of it in the module's memory). */
function checksumOf(data: Uint8Array): number {
  const hasher = wordHasher();
  hasher.memory(data.length).set(data);
  return hasher.hash(data.length);
}

/**
 * A bundle's text from its bytes. The build keeps the bundles ASCII (scripts/bundle.mjs checks),
 * and ASCII read as latin1 is the same text without UTF-8 decoding: about 2 ms of every start
 * for cli.cjs. A bundle that is not ASCII (changed in place) is decoded as UTF-8.
 */
function bundleText(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** A bundle's bytes, and the identity of the file they were read from. */
function readBundle(file: string): { bytes: Buffer; identity: string } {
  const fd = openSync(file, 'r');
  try {
    return { identity: fileIdentity(fstatSync(fd)), bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/**
 * A cache file: one JSON line (the commands it covers, the bundle's digest and identity, the
 * data's checksum), then V8's cached data, read straight into the hasher's memory. Any doubt
 * (another bundle, a checksum that does not match, a header that does not parse) means no data:
 * a normal start.
 */
function readCache(file: string, digest: string, identity: string): CacheFile {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const hasher = wordHasher();
    const bytes = hasher.memory(size);
    if (readSync(fd, bytes, 0, size, 0) !== size) return { commands: [], data: undefined };
    const newline = bytes.indexOf(10);
    const header = JSON.parse(Buffer.from(bytes.buffer, 0, newline).toString('utf8')) as CacheHeader;
    if (newline < 0 || header.bundle !== digest || header.file !== identity) return { commands: [], data: undefined };
    // Hashed where it lies: the data moved to the start of memory (copyWithin), then its words.
    const length = size - newline - 1;
    bytes.copyWithin(0, newline + 1);
    if (header.checksum !== hasher.hash(length)) return { commands: [], data: undefined };
    const commands = Array.isArray(header.commands) ? header.commands.filter((name): name is string => typeof name === 'string') : [];
    return { commands, data: bytes.subarray(0, length) };
  } catch {
    return { commands: [], data: undefined };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Written whole under a temporary name, then renamed: a concurrent start never reads half a file.
 * Caches of builds past the KEPT_BUILDS most recently written go; past MAX_COMMANDS files for
 * this build (mistyped commands make theirs too), no more are added.
 */
function writeCache(directory: string, file: string, prefix: string, digest: string, identity: string, commands: string[], data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const others = otherBuilds(directory, prefix, digest);
    if (others.kept >= MAX_COMMANDS) return;
    for (const build of others.builds.slice(KEPT_BUILDS - 1)) for (const name of build.files) rmSync(join(directory, name), { force: true });
    const header = { commands, bundle: digest, file: identity, checksum: checksumOf(data) };
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * The cache files in `directory` of the bundle `prefix`: how many are this build's, and the other
 * builds' files by build (`prefix-DIGEST.…`), the most recently written build first.
 */
function otherBuilds(directory: string, prefix: string, digest: string): { kept: number; builds: { files: string[]; written: number }[] } {
  let kept = 0;
  const builds = new Map<string, { files: string[]; written: number }>();
  for (const name of readdirSync(directory)) {
    if (!name.startsWith(`${prefix}-`)) continue;
    const build = name.slice(prefix.length + 1).split('.')[0] ?? '';
    if (build === digest) {
      kept += 1;
      continue;
    }
    const entry = builds.get(build) ?? { files: [], written: 0 };
    entry.files.push(name);
    entry.written = Math.max(entry.written, statSync(join(directory, name), { throwIfNoEntry: false })?.mtimeMs ?? 0);
    builds.set(build, entry);
  }
  return { kept, builds: [...builds.values()].sort((a, b) => b.written - a.written) };
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
  const { bytes, identity } = readBundle(file);
  const source = bundleText(bytes);
  const cached = readCache(cacheFile, digest, identity);
  // CommonJS's own wrapper, on the bundle's first line so that line numbers stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cached.data ? { cachedData: cached.data } : {}),
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cached.data === undefined || script.cachedDataRejected) {
    pendingCaches.push(() => writeCache(directory, cacheFile, prefix, digest, identity, [command], script.createCachedData()));
  }
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  const bundleModule = { exports: {} };
  loadedBundles.set(name, bundleModule);
  wrapper.call(bundleModule.exports, bundleModule.exports, bundleRequire(directory), bundleModule, file, __dirname);
  return bundleModule.exports;
}

/**
 * Whether this run keeps WebAssembly on V8's baseline compiler. undici parses HTTP with llhttp
 * compiled to WebAssembly, and V8 compiles its large parser function again with TurboFan on a
 * background thread as soon as it runs: 70-140 ms of CPU on Node 20, 22 and 24, more than the rest
 * of a small `drift`; the baseline code parses a command's answers fast enough. Only for the
 * commands that may reach a portal: setting a flag means loading `node:v8`, which loads Node's
 * streams. The flags are set before anything is compiled and name the cache files, since V8
 * checks cached code against the flags it was made under.
 */
function baselineWasmOnly(argv: string[]): boolean {
  const command = commandName(argv);
  if (command === 'plan') return !argv.includes('--refresh=false') && !argv.some((arg, index) => arg === '--refresh' && argv[index + 1] === 'false');
  return command === 'apply' || command === 'drift' || command === 'import';
}

/**
 * Set at run time, a flag's implications are not applied: on V8 13 (Node 24) `--liftoff-only`
 * alone still tiered up (measured), so the two flags it implies at start are set with it.
 */
const BASELINE_WASM_FLAGS = ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering'];

/** The oldest Node.js the package runs on, [major, minor] from package.json's `engines`, written in by the build. */
declare const PORTALCTL_NODE_MINIMUM: [number, number];

/**
 * An older Node fails somewhere in the start (Node 18: `vm.constants` is undefined) with a stack
 * trace that says nothing a user can act on, and npm only warns about `engines` at install: say
 * it first, in one line, and exit 1 as for any other error.
 */
function olderThanMinimum(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [minimumMajor, minimumMinor] = PORTALCTL_NODE_MINIMUM;
  return major < minimumMajor || (major === minimumMajor && minor < minimumMinor);
}

if (olderThanMinimum(process.versions.node)) {
  process.stderr.write(`Error: portalctl needs Node.js ${PORTALCTL_NODE_MINIMUM.join('.')} or later (22 or 24 recommended); this is Node.js ${process.version} (${process.execPath}).\n`);
  process.exit(1);
}

const baseline = baselineWasmOnly(process.argv);
if (baseline) {
  const v8: typeof import('node:v8') = nodeRequire('node:v8');
  for (const flag of BASELINE_WASM_FLAGS) v8.setFlagsFromString(flag);
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
