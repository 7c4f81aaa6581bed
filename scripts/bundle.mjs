#!/usr/bin/env node
// Build step after tsc and build-schema: bundles the CLI into one CommonJS file, dist/bin/cli.cjs,
// started by the package's bin dist/bin/portalctl.js (src/cli/launcher.ts), which compiles it
// through a per-user V8 code cache. Resolving and loading ~90 small ES modules plus yaml's and
// commander's files cost more than Node's own start-up; one file (commands still evaluated only
// when run) is one script for the cache to hold. Splitting it into chunks per command measured
// slower: each chunk is one more module to resolve. README "Start-up" has the figures.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build as esbuild } from 'esbuild';
import {
  assertOnFailure,
  besideTheBundle,
  builtinsOnFirstUse,
  characterEntitiesOnFirstUse,
  commanderWithoutChildProcess,
  emulatorOnFirstUse,
  http2OnFirstUse,
  positionsWorkerBesideBundle,
  precompiledValidatorInBundle,
  undiciAgentOnly,
  versionWrittenIn,
  yamlOnFirstUse,
} from './bundle-plugins.mjs';
import { THIRD_PARTY_LICENSES, thirdPartyLicenses } from './third-party-licenses.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const emulatorExports = Object.keys(await import(pathToFileURL(join(root, 'dist', 'emulator', 'index.js')).href));
const { version, engines } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
// The oldest Node the launcher starts on, from `engines` (which npm only warns about at install).
const nodeMinimum = /^>=\s*(\d+)\.(\d+)(?:\.0)?$/.exec(engines.node);
if (!nodeMinimum) throw new Error(`package.json engines.node is "${engines.node}": the launcher's check reads ">=MAJOR.MINOR" only`);
const yamlExports = Object.keys(createRequire(join(root, 'package.json'))('yaml')).filter((name) => name !== 'default' && name !== '__esModule');
const outdir = join(root, 'dist', 'bin');

/** Every file of node_modules the bundles inline (from esbuild's metafiles), for their licences. */
const inlined = new Set();
/** esbuild's build, noting the files of node_modules it inlined. */
async function build(options) {
  const result = await esbuild({ ...options, metafile: true });
  for (const input of Object.keys(result.metafile.inputs)) if (input.includes('node_modules/')) inlined.add(join(options.absWorkingDir ?? process.cwd(), input));
  return result;
}

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
  // The map stays in a clone's build (dist/bin/cli.cjs.map) and out of the package (package.json
  // `files`), so the bundle names none: a `sourceMappingURL` comment would point the published
  // file at one it does not hold (a debugger says it failed to load it).
  sourcemap: 'external',
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
    characterEntitiesOnFirstUse(),
  ],
});

/** The parts the CLI loads on first use: CommonJS files beside the bundle, required synchronously. */
const oneFile = { bundle: true, format: 'cjs', platform: 'node', target: 'node20', minify: true, keepNames: true, logLevel: 'warning' };
const onFirstUseFile = { ...oneFile, outdir, outExtension: { '.js': '.cjs' } };

await build({ ...onFirstUseFile, entryPoints: { emulator: join(root, 'dist', 'emulator', 'index.js') }, plugins: [yamlOnFirstUse(yamlExports)] });
await build({ ...onFirstUseFile, entryPoints: { yaml: 'yaml' }, absWorkingDir: root });
// Its licence comments (one names an author with a non-ASCII letter) go to undici.cjs.LEGAL.txt beside it.
await build({ ...oneFile, stdin: { contents: undiciAgentOnly, resolveDir: root, sourcefile: 'undici-agent.js', loader: 'js' }, outfile: join(outdir, 'undici.cjs'), legalComments: 'linked', plugins: [http2OnFirstUse(), assertOnFailure()] });
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
  const bytes = await readFile(join(outdir, name));
  // The launcher reads ASCII bundles as latin1, without decoding UTF-8 (src/cli/launcher.ts).
  if (!isAscii(bytes)) throw new Error(`dist/bin/${name} is not ASCII at byte ${bytes.findIndex((byte) => byte > 127)}: escape the character in the source (esbuild keeps it in regular expressions and comments)`);
  bundleDigests[name] = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}
await writeFile(join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
await build({
  entryPoints: { portalctl: join(root, 'dist', 'cli', 'launcher.js') },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir,
  define: { PORTALCTL_BUNDLE_DIGESTS: JSON.stringify(bundleDigests), PORTALCTL_NODE_MINIMUM: JSON.stringify([Number(nodeMinimum[1]), Number(nodeMinimum[2])]) },
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
await chmod(join(outdir, 'portalctl.js'), 0o755);

// The bundles hold other packages' code, and their licences (MIT, ISC, BSD...) ask that their
// notices go with every copy: the package has no node_modules to carry them.
await writeFile(join(outdir, THIRD_PARTY_LICENSES), await thirdPartyLicenses([...inlined]));
