/**
 * The package's bin (built by scripts/bundle.mjs as CommonJS into dist/bin/portalctl.js; it runs
 * only from there). It starts the CLI bundle, cli.cjs beside it, through a V8 code cache kept per
 * user, so that a start neither parses the bundle nor compiles the functions a command runs.
 *
 * The bundle is compiled as a vm.Script with the cached data of an earlier run. The data is
 * written at exit, so it holds the functions the command compiled and not only the top level;
 * it is rewritten when there was none, V8 refused it, or this command had not run yet. Node's
 * own compile cache (22.1+) makes its data at compile time, before the functions a command runs
 * are compiled, so it holds less of a command (bench/README.md). It is still turned on, in the same directory, for what
 * Node's loaders load later (yaml.cjs, the emulator, undici, ajv, pg).
 *
 * A cache never decides whether a command works: any failure to find, read, check or write it
 * just means compiling as usual. The cache file is named after the bundle's digest, the V8
 * version and the architecture, so an upgrade never meets an old cache; V8 itself refuses data
 * made with other flags. Set NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) to turn it off.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import { crc32 } from 'node:zlib';

/** sha256 of cli.cjs (its first 16 hex digits), written in by the build. */
declare const PORTALCTL_BUNDLE_DIGEST: string;

const bundleFile = join(__dirname, 'cli.cjs');
/** Commands remembered in one cache file; past this, a new command name no longer rewrites it. */
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

/** What the cache is asked to cover: the command's name (first argument), or '' for none. */
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
 * The data's checksum, keyed by the bundle: a CRC-32 of the data seeded with one of the bundle's
 * text, itself seeded with the bundle's build digest. V8 checks cached data's versions, flags
 * and the source's *length* only, and in release builds not the data's bytes: data made for
 * another bundle (a cache restored by CI, a bundle changed in place with the file name's digest
 * unchanged) or damaged bytes would run as code. With the checksum they never do. (A CRC does
 * not stop a forger; only the user can write the directory, which safeCacheDirectory checks.)
 */
function checksum(data: Uint8Array, bundleText: string): number {
  return crc32(data, crc32(bundleText, crc32(PORTALCTL_BUNDLE_DIGEST)));
}

/**
 * A cache file: one JSON line (the commands it covers, the bundle's digest, the keyed checksum),
 * then V8's cached data. Any doubt (another bundle, a checksum that does not match, a header
 * that does not parse) means no data: a normal start.
 */
function readCache(file: string, bundleText: string): CacheFile {
  try {
    const bytes = readFileSync(file);
    const newline = bytes.indexOf(10);
    const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as CacheHeader;
    const data = bytes.subarray(newline + 1);
    if (newline < 0 || header.bundle !== PORTALCTL_BUNDLE_DIGEST || header.checksum !== checksum(data, bundleText)) return { commands: [], data: undefined };
    const commands = Array.isArray(header.commands) ? header.commands.filter((name): name is string => typeof name === 'string') : [];
    return { commands, data };
  } catch {
    return { commands: [], data: undefined };
  }
}

/** Written whole under a temporary name, then renamed: a concurrent start never reads half a file. */
function writeCache(directory: string, file: string, commands: string[], data: Buffer, bundleText: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const header = { commands, bundle: PORTALCTL_BUNDLE_DIGEST, checksum: checksum(data, bundleText) };
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), { mode: 0o600 });
    renameSync(temporary, file);
    // Caches of other builds of the bundle are of no further use.
    for (const name of readdirSync(directory)) {
      if (name.startsWith('cli-') && !name.startsWith(`cli-${PORTALCTL_BUNDLE_DIGEST}.`)) rmSync(join(directory, name), { force: true });
    }
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** Compiles the bundle with the cached data, keeps the data fresh at exit, and runs the bundle. */
function runWithCodeCache(directory: string): void {
  const file = join(directory, `cli-${PORTALCTL_BUNDLE_DIGEST}.${process.versions.v8}.${process.arch}.cache`);
  const source = readFileSync(bundleFile, 'utf8');
  const cached = readCache(file, source);
  const command = commandName(process.argv);
  // CommonJS's own wrapper, on the bundle's first line so that line numbers stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundleFile,
    ...(cached.data ? { cachedData: cached.data } : {}),
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const covered = cached.data !== undefined && !script.cachedDataRejected;
  if (!covered || (!cached.commands.includes(command) && cached.commands.length < MAX_COMMANDS)) {
    const commands = covered ? [...cached.commands, command] : [command];
    process.once('exit', () => {
      try {
        writeCache(directory, file, commands, script.createCachedData(), source);
      } catch {
        // No cache this time.
      }
    });
  }
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  const bundleModule = { exports: {} };
  wrapper.call(bundleModule.exports, bundleModule.exports, createRequire(bundleFile), bundleModule, bundleFile, __dirname);
}

/** Node 22.1+ (absent from Node 20's types). */
const { enableCompileCache } = nodeModule as { enableCompileCache?: (directory: string) => unknown };

const directory = safeCacheDirectory();
if (directory) {
  try {
    enableCompileCache?.(join(directory, 'node-compile-cache'));
  } catch {
    // Run without it.
  }
  runWithCodeCache(directory);
} else {
  createRequire(bundleFile)(bundleFile);
}
