#!/usr/bin/env node
// Build step after tsc: bundles the CLI into one file, dist/bin/portalctl.js (the package's
// bin). Resolving and loading ~90 small ES modules plus yaml's and commander's files cost more
// than Node's own start-up; one file (commands still evaluated only when run) keeps `validate`
// and `plan --refresh=false` under twice `node -e 0` (bench/README.md). Splitting it into
// chunks per command measured slower: each chunk is one more module to resolve.
import { copyFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { portalctl: join(root, 'dist', 'cli', 'main.js') },
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
  plugins: [commanderWithoutChildProcess()],
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __portalctlRequire } from 'node:module'; const require = __portalctlRequire(import.meta.url);" },
});

// The precompiled schema validator is loaded at run time from beside the module that uses it.
await copyFile(join(root, 'dist', 'engine', 'config', 'schema-validator.generated.js'), join(outdir, 'schema-validator.generated.js'));
