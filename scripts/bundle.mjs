#!/usr/bin/env node
// Build step after tsc: bundles the CLI into one file, dist/bin/cli.js, started by the
// package's bin dist/bin/portalctl.js (a launcher that turns on Node's compile cache first). Resolving and loading ~90 small ES modules plus yaml's and commander's files cost more
// than Node's own start-up; one file (commands still evaluated only when run) keeps `validate`
// and `plan --refresh=false` under twice `node -e 0` (bench/README.md). Splitting it into
// chunks per command measured slower: each chunk is one more module to resolve.
import { chmod, rm, writeFile } from 'node:fs/promises';
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

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const emulatorExports = Object.keys(await import(pathToFileURL(join(root, 'dist', 'emulator', 'index.js')).href));
const yamlExports = Object.keys(createRequire(join(root, 'package.json'))('yaml')).filter((name) => name !== 'default' && name !== '__esModule');
const outdir = join(root, 'dist', 'bin');

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(root, 'dist', 'cli', 'main.js') },
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  // Loaded on demand from node_modules, as Node loads them (named exports of CommonJS included):
  // the HTTP client only when a command reaches the network, ajv only without the precompiled validator.
  external: ['undici', 'ajv', 'ajv-formats', 'pg'],
  // Less text to parse at every start; names are kept so stack traces with --verbose stay readable.
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [commanderWithoutChildProcess(), yamlOnFirstUse(yamlExports), emulatorOnFirstUse(emulatorExports), builtinsOnFirstUse()],
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __portalctlRequire } from 'node:module'; const require = __portalctlRequire(import.meta.url);" },
});

/** The parts the CLI loads on first use: CommonJS files beside the bundle, required synchronously. */
const onFirstUseFile = { bundle: true, format: 'cjs', platform: 'node', target: 'node20', outdir, outExtension: { '.js': '.cjs' }, minify: true, keepNames: true, logLevel: 'warning' };

await build({ ...onFirstUseFile, entryPoints: { emulator: join(root, 'dist', 'emulator', 'index.js') }, plugins: [yamlOnFirstUse(yamlExports)] });
await build({ ...onFirstUseFile, entryPoints: { yaml: 'yaml' }, absWorkingDir: root });

/**
 * The bin: Node 22.1+ keeps the compiled code of the bundle (and of what it loads later) in its
 * compile cache between runs, which only works for modules compiled after the cache is turned
 * on, hence a launcher. Older Nodes lack the function and just load the bundle.
 */
const launcher = join(outdir, 'portalctl.js');
await writeFile(
  launcher,
  [
    '#!/usr/bin/env node',
    "import module from 'node:module';",
    'module.enableCompileCache?.();',
    "await import('./cli.js');",
    '',
  ].join('\n'),
);
await chmod(launcher, 0o755);

// The precompiled schema validator is loaded at run time from beside the module that uses it;
// minified, as ajv writes it verbosely and every validate and plan compiles it.
await build({
  entryPoints: [join(root, 'dist', 'engine', 'config', 'schema-validator.generated.js')],
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  minify: true,
  logLevel: 'warning',
});
