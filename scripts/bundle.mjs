#!/usr/bin/env node
// Build step after tsc and build-schema: bundles the CLI into one CommonJS file, dist/bin/cli.cjs,
// started by the package's bin dist/bin/portalctl.js (src/cli/launcher.ts), which compiles it
// through a per-user V8 code cache. Resolving and loading ~90 small ES modules plus yaml's and
// commander's files cost more than Node's own start-up; one file (commands still evaluated only
// when run) is one script for the cache to hold. Splitting it into chunks per command measured
// slower: each chunk is one more module to resolve. README "Start-up" has the figures.
import { createHash } from 'node:crypto';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * commander loads node:child_process at start-up only to run stand-alone executable
 * subcommands, which portalctl does not have; loading it cost about 5 ms of every start.
 * Any attempt to use it fails loudly.
 */
function commanderWithoutChildProcess() {
  return {
    name: 'commander-without-child-process',
    setup(build) {
      build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        args.importer.includes(`${'node_modules'}/commander/`) ? { path: 'child_process', namespace: 'no-child-process' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'no-child-process' }, () => ({
        contents: "module.exports = { spawn() { throw new Error('portalctl has no executable subcommands'); } };",
        loader: 'js',
      }));
    },
  };
}

/**
 * The `yaml` package is a third of the bundle, and compiling it cost every start about as much
 * as the rest of loading a small config; `validate` and `plan` read YAML with js-yaml's
 * data-only path and need `yaml` only for positions (a diagnostic, a prune's location) and for
 * `import` output. So it is bundled on its own (dist/bin/yaml.cjs) and the main bundle gets a
 * stand-in whose exports load it on first use.
 */
function yamlOnFirstUse(names) {
  return {
    name: 'yaml-on-first-use',
    setup(build) {
      build.onResolve({ filter: /^yaml$/ }, () => ({ path: 'yaml', namespace: 'yaml-on-first-use' }));
      // Required at run time from beside the bundle (the banner's require resolves it there).
      build.onResolve({ filter: /^\.\/yaml\.cjs$/ }, (args) => (args.namespace === 'yaml-on-first-use' ? { path: './yaml.cjs', external: true } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'yaml-on-first-use' }, () => ({
        contents: [
          'let loaded;',
          "const load = () => (loaded ??= require('./yaml.cjs'));",
          `for (const name of ${JSON.stringify(names)}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });`,
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * undici and pg are bundled on their own (dist/bin/undici.cjs, pg.cjs), so that the launcher
 * compiles them through the same V8 code cache as the CLI: loaded from node_modules, Node 20
 * compiled their files at every run (undici alone was a fifth of a `drift`'s CPU time). The CLI's
 * imports of them (already dynamic: only commands that reach the network or a database load
 * them) become a require of the file beside the bundle.
 */
function besideTheBundle(packages) {
  return {
    name: 'beside-the-bundle',
    setup(build) {
      const names = new RegExp(`^(${packages.join('|')})$`);
      build.onResolve({ filter: names }, (args) => ({ path: args.path, namespace: 'beside-the-bundle' }));
      build.onResolve({ filter: /^\.\/[a-z]+\.cjs$/ }, (args) => (args.namespace === 'beside-the-bundle' ? { path: args.path, external: true } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'beside-the-bundle' }, (args) => ({ contents: `module.exports = require('./${args.path}.cjs');`, loader: 'js' }));
    },
  };
}

/**
 * What of undici the CLI uses: the Agent, with the request method undici's index adds to every
 * dispatcher (src/api/transport.ts calls `agent.request`). The index also loads fetch, WebSocket,
 * mocks and caches, and with them Node's own copy of undici, none of which the CLI uses.
 * A path that moves in a new undici fails this build.
 */
const undiciAgentOnly = [
  "const Dispatcher = require('undici/lib/dispatcher/dispatcher');",
  "Object.assign(Dispatcher.prototype, require('undici/lib/api'));",
  "module.exports = { Agent: require('undici/lib/dispatcher/agent') };",
].join('\n');

/**
 * undici's HTTP/2 client is loaded with its HTTP/1 client, and with it `node:http2`, which loads
 * http, tls, crypto and readline: half of what undici's Agent brought into a command that speaks
 * HTTP/1.1 only. In undici.cjs, `node:http2` is a stand-in holding the protocol's constants
 * (which undici reads when it loads; they are RFC 9113's, the same in every Node) whose other
 * exports require the module on first use.
 */
function http2OnFirstUse() {
  const nodeRequire = createRequire(import.meta.url);
  return {
    name: 'http2-on-first-use',
    setup(build) {
      build.onResolve({ filter: /^(node:)?http2$/ }, () => ({ path: 'http2', namespace: 'http2-on-first-use' }));
      build.onLoad({ filter: /.*/, namespace: 'http2-on-first-use' }, () => {
        const http2 = nodeRequire('node:http2');
        const names = Object.keys(http2).filter((key) => key !== 'constants' && key !== 'default');
        return {
          contents: [
            'let loaded;',
            "const load = () => (loaded ??= require('node:http2'));",
            `module.exports = { constants: ${JSON.stringify(http2.constants)} };`,
            `for (const name of ${JSON.stringify(names)}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });`,
          ].join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * Node's built-in modules, loaded on first use. A bundle hoists every `import ... from 'node:x'`
 * of every module to its top, so each start loaded http, net, crypto, readline and streams for
 * the emulator, the HTTP client, digests and prompts that `validate` never reaches: more than a
 * tenth of its start-up. Each built-in imported by our modules becomes a stand-in whose exports
 * require it on first access (through the banner's require).
 */
function builtinsOnFirstUse() {
  const nodeRequire = createRequire(import.meta.url);
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  return {
    name: 'builtins-on-first-use',
    setup(build) {
      build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
        args.kind === 'import-statement' && builtins.has(args.path) && !args.path.endsWith('child_process') ? { path: args.path, namespace: 'builtin-on-first-use' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'builtin-on-first-use' }, (args) => {
        const name = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
        const names = Object.keys(nodeRequire(name)).filter((key) => key !== 'default' && key !== '__esModule');
        return {
          contents: [
            'let loaded;',
            `const load = () => (loaded ??= require(${JSON.stringify(name)}));`,
            `for (const name of ${JSON.stringify(names)}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });`,
          ].join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * The emulator (a fifth of the CLI's code) is only for `portalctl emulator`: it is bundled on
 * its own (dist/bin/emulator.cjs) and the command's import of it becomes a stand-in that
 * requires it on first use, so no other command compiles it.
 */
function emulatorOnFirstUse(names) {
  return {
    name: 'emulator-on-first-use',
    setup(build) {
      build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) => (args.importer.includes(`${'/dist/cli/'}`) ? { path: 'emulator', namespace: 'emulator-on-first-use' } : undefined));
      build.onResolve({ filter: /^\.\/emulator\.cjs$/ }, (args) => (args.namespace === 'emulator-on-first-use' ? { path: './emulator.cjs', external: true } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'emulator-on-first-use' }, () => ({
        contents: [
          'let loaded;',
          "const load = () => (loaded ??= require('./emulator.cjs'));",
          `for (const name of ${JSON.stringify(names)}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });`,
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * The precompiled schema validator (build-schema.js writes it beside the compiled
 * schema-validator.js) goes inside the bundle, so the code cache covers it too: the module that
 * loads it from disk at run time is replaced by a static import of it. esbuild fails the build
 * when the file is missing.
 */
function precompiledValidatorInBundle() {
  return {
    name: 'precompiled-validator-in-bundle',
    setup(build) {
      build.onLoad({ filter: /[\\/]engine[\\/]config[\\/]precompiled-validator\.js$/ }, (args) => ({
        contents: [
          "export const precompiledValidatorFile = 'schema-validator.generated.js';",
          "export const importPrecompiledValidator = () => import('./schema-validator.generated.js');",
        ].join('\n'),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/**
 * The config parser's worker thread (src/engine/config/off-thread.ts) runs positions-worker.cjs,
 * bundled beside the CLI: the module naming it from import.meta (empty in CommonJS) is replaced.
 */
function positionsWorkerBesideBundle() {
  return {
    name: 'positions-worker-beside-bundle',
    setup(build) {
      build.onLoad({ filter: /[\\/]engine[\\/]config[\\/]positions-worker-file\.js$/ }, () => ({
        contents: "export const positionsWorkerFile = require('node:path').join(__dirname, 'positions-worker.cjs');",
        loader: 'js',
      }));
    },
  };
}

/** The version is written into the bundle, in place of the module that reads package.json at run time. */
function versionWrittenIn(version) {
  return {
    name: 'version-written-in',
    setup(build) {
      build.onLoad({ filter: /[\\/]cli[\\/]version\.js$/ }, () => ({ contents: `export const version = ${JSON.stringify(version)};`, loader: 'js' }));
    },
  };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const emulatorExports = Object.keys(await import(pathToFileURL(join(root, 'dist', 'emulator', 'index.js')).href));
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const yamlExports = Object.keys(createRequire(join(root, 'package.json'))('yaml')).filter((name) => name !== 'default' && name !== '__esModule');
const outdir = join(root, 'dist', 'bin');

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(root, 'dist', 'cli', 'main.js') },
  bundle: true,
  splitting: false,
  // CommonJS: one script, which the launcher compiles as a vm.Script with V8's cached data.
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  platform: 'node',
  target: 'node20',
  outdir,
  // The bundle's own dynamic imports become lazy initialisers; the remaining ones (node_modules,
  // built-ins) become require() calls, which a vm.Script runs without an ES module loader.
  supported: { 'dynamic-import': false },
  // import.meta would be empty in CommonJS: the modules that use it are replaced (version,
  // precompiled validator) or bundled on their own (emulator); any other use fails the build.
  logOverride: { 'empty-import-meta': 'error' },
  // Loaded on demand from node_modules: ajv only without the precompiled validator (which is
  // bundled: it is in dist/ beside schema-validator.js when the bundle is built).
  external: ['ajv', 'ajv-formats'],
  // Less text to parse and compile (when there is no cache yet); names are kept so stack traces
  // with --verbose stay readable.
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [
    commanderWithoutChildProcess(),
    versionWrittenIn(version),
    precompiledValidatorInBundle(),
    positionsWorkerBesideBundle(),
    yamlOnFirstUse(yamlExports),
    emulatorOnFirstUse(emulatorExports),
    besideTheBundle(['undici', 'pg']),
    builtinsOnFirstUse(),
  ],
});

/** The parts the CLI loads on first use: CommonJS files beside the bundle, required synchronously. */
const oneFile = { bundle: true, format: 'cjs', platform: 'node', target: 'node20', minify: true, keepNames: true, logLevel: 'warning' };
const onFirstUseFile = { ...oneFile, outdir, outExtension: { '.js': '.cjs' } };

await build({ ...onFirstUseFile, entryPoints: { emulator: join(root, 'dist', 'emulator', 'index.js') }, plugins: [yamlOnFirstUse(yamlExports)] });
await build({ ...onFirstUseFile, entryPoints: { yaml: 'yaml' }, absWorkingDir: root });
await build({ ...oneFile, stdin: { contents: undiciAgentOnly, resolveDir: root, sourcefile: 'undici-agent.js', loader: 'js' }, outfile: join(outdir, 'undici.cjs'), plugins: [http2OnFirstUse()] });
// pg's optional native binding and its Cloudflare socket are required only where they are used.
await build({ ...onFirstUseFile, entryPoints: { pg: 'pg' }, absWorkingDir: root, external: ['pg-native', 'pg-cloudflare'] });
await build({ ...onFirstUseFile, entryPoints: { 'positions-worker': join(root, 'dist', 'engine', 'config', 'positions-worker.js') }, plugins: [yamlOnFirstUse(yamlExports)] });
// The escaping of untrusted text (src/engine/render/escape.ts) for the CI scripts' own markdown (scripts/action/).
await build({ ...onFirstUseFile, entryPoints: { escape: join(root, 'dist', 'engine', 'render', 'escape.js') } });

/**
 * The bin (src/cli/launcher.ts): compiles the bundles with V8 cached data kept per user, written
 * after a command's run (and turns on Node 22.1+'s compile cache for what is loaded later). Each
 * cache file is named after its bundle's digest, written in here, so an upgraded package never
 * loads the code of the one before. The launcher and the bundle are CommonJS (dist/bin/package.json
 * says so): an ES module bin would start Node's ES module loader, which costs more than the rest
 * of the launcher.
 */
const bundleDigests = {};
for (const name of ['cli.cjs', 'yaml.cjs', 'emulator.cjs', 'undici.cjs', 'pg.cjs']) {
  bundleDigests[name] = createHash('sha256').update(await readFile(join(outdir, name))).digest('hex').slice(0, 16);
}
await writeFile(join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
await build({
  entryPoints: { portalctl: join(root, 'dist', 'cli', 'launcher.js') },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir,
  define: { PORTALCTL_BUNDLE_DIGESTS: JSON.stringify(bundleDigests) },
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
await chmod(join(outdir, 'portalctl.js'), 0o755);
