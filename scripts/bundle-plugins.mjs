/**
 * The esbuild plugins of scripts/bundle.mjs: each replaces a module of the bundles with what
 * loads less at start-up. Apart so that tests can build with them (test/packaging/bundle.test.ts).
 */
import { builtinModules, createRequire } from 'node:module';
import { dirname } from 'node:path';

/** A stand-in's source: `target`'s properties `names`, each requiring `moduleId` on first access. */
function onFirstUse(moduleId, names, target = 'module.exports') {
  return [
    'let loaded;',
    `const load = () => (loaded ??= require(${JSON.stringify(moduleId)}));`,
    `for (const name of ${JSON.stringify(names)}) Object.defineProperty(${target}, name, { enumerable: true, get: () => load()[name] });`,
  ].join('\n');
}

/**
 * commander loads node:child_process at start-up only to run stand-alone executable
 * subcommands, which portalctl does not have; loading it cost about 5 ms of every start.
 * Any attempt to use it fails loudly.
 */
export function commanderWithoutChildProcess() {
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
export function yamlOnFirstUse(names) {
  return {
    name: 'yaml-on-first-use',
    setup(build) {
      build.onResolve({ filter: /^yaml$/ }, () => ({ path: 'yaml', namespace: 'yaml-on-first-use' }));
      // Required at run time from beside the bundle (the banner's require resolves it there).
      build.onResolve({ filter: /^\.\/yaml\.cjs$/ }, (args) => (args.namespace === 'yaml-on-first-use' ? { path: './yaml.cjs', external: true } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'yaml-on-first-use' }, () => ({ contents: onFirstUse('./yaml.cjs', names), loader: 'js' }));
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
export function besideTheBundle(packages) {
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
export const undiciAgentOnly = [
  "const Dispatcher = require('undici/lib/dispatcher/dispatcher');",
  "Object.assign(Dispatcher.prototype, require('undici/lib/api'));",
  "module.exports = { Agent: require('undici/lib/dispatcher/agent') };",
  // Only with a proxy set (https_proxy, ...): initialised on first use, so a direct run does not pay for it.
  "Object.defineProperty(module.exports, 'ProxyAgent', { enumerable: true, get: () => require('undici/lib/dispatcher/proxy-agent') });",
  "Object.defineProperty(module.exports, 'Socks5ProxyAgent', { enumerable: true, get: () => require('undici/lib/dispatcher/socks5-proxy-agent') });",
].join('\n');

/**
 * undici's HTTP/2 client is loaded with its HTTP/1 client, and with it `node:http2`, which loads
 * http, tls, crypto and readline: half of what undici's Agent brought into a command that speaks
 * HTTP/1.1 only. In undici.cjs, `node:http2` is a stand-in holding the protocol's constants
 * (which undici reads when it loads; they are RFC 9113's, the same in every Node) whose other
 * exports require the module on first use.
 */
export function http2OnFirstUse() {
  const nodeRequire = createRequire(import.meta.url);
  return {
    name: 'http2-on-first-use',
    setup(build) {
      // The stand-in's own require of the module is the real one (not the stand-in again).
      build.onResolve({ filter: /^(node:)?http2$/ }, (args) => (args.namespace === 'http2-on-first-use' ? { path: args.path, external: true } : { path: 'http2', namespace: 'http2-on-first-use' }));
      build.onLoad({ filter: /.*/, namespace: 'http2-on-first-use' }, () => {
        const http2 = nodeRequire('node:http2');
        const names = Object.keys(http2).filter((key) => key !== 'constants' && key !== 'default');
        return { contents: `module.exports = { constants: ${JSON.stringify(http2.constants)} };\n${onFirstUse('node:http2', names)}`, loader: 'js' };
      });
    },
  };
}

/**
 * undici calls only `assert(value)` (155 places), and loading `node:assert` (its error class,
 * diff and colour helpers) cost about a millisecond of every command that makes a request. In
 * undici.cjs, `node:assert` is a function that loads the real module only to fail (the same
 * AssertionError); its other exports load it on first use. A new undici that calls another
 * assert method still works, at the old cost.
 */
export function assertOnFailure() {
  const nodeRequire = createRequire(import.meta.url);
  return {
    name: 'assert-on-failure',
    setup(build) {
      build.onResolve({ filter: /^(node:)?assert$/ }, (args) => (args.namespace === 'assert-on-failure' ? { path: args.path, external: true } : { path: 'assert', namespace: 'assert-on-failure' }));
      build.onLoad({ filter: /.*/, namespace: 'assert-on-failure' }, () => {
        const names = Object.keys(nodeRequire('node:assert')).filter((key) => key !== 'default');
        return { contents: `function assert(value, message) { if (!value) load()(value, message); }\n${onFirstUse('node:assert', names, 'assert')}\nmodule.exports = assert;`, loader: 'js' };
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
export function builtinsOnFirstUse() {
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
        return { contents: onFirstUse(name, names), loader: 'js' };
      });
    },
  };
}

/**
 * The emulator (a fifth of the CLI's code) is only for `portalctl emulator`: it is bundled on
 * its own (dist/bin/emulator.cjs) and the command's import of it becomes a stand-in that
 * requires it on first use, so no other command compiles it.
 */
export function emulatorOnFirstUse(names) {
  return {
    name: 'emulator-on-first-use',
    setup(build) {
      build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) => (args.importer.includes(`${'/dist/cli/'}`) ? { path: 'emulator', namespace: 'emulator-on-first-use' } : undefined));
      build.onResolve({ filter: /^\.\/emulator\.cjs$/ }, (args) => (args.namespace === 'emulator-on-first-use' ? { path: './emulator.cjs', external: true } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'emulator-on-first-use' }, () => ({ contents: onFirstUse('./emulator.cjs', names), loader: 'js' }));
    },
  };
}

/**
 * character-entities, the table of HTML's named character references that src/core/secret-text.ts
 * finds secrets quoted in, is 2,125 properties, about 0.3 ms to build at every start, and is read
 * only when a secret is searched for. The CLI's import of it becomes a stand-in whose export
 * requires the package (bundled in the same file, its module then initialised) on first use.
 */
export function characterEntitiesOnFirstUse() {
  const namespace = 'character-entities-on-first-use';
  return {
    name: namespace,
    setup(build) {
      // The stand-in's own require of the package resolves as usual, from where the CLI imported it.
      build.onResolve({ filter: /^character-entities$/ }, (args) => (args.namespace === namespace ? undefined : { path: 'character-entities', namespace, pluginData: args.resolveDir }));
      build.onLoad({ filter: /.*/, namespace }, (args) => ({ contents: onFirstUse('character-entities', ['characterEntities']), loader: 'js', resolveDir: args.pluginData }));
    },
  };
}

/**
 * The precompiled schema validator (build-schema.js writes it beside the compiled
 * schema-validator.js) goes inside the bundle, so the code cache covers it too: the module that
 * loads it from disk at run time is replaced by a static import of it. esbuild fails the build
 * when the file is missing.
 */
export function precompiledValidatorInBundle() {
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
export function positionsWorkerBesideBundle() {
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
export function versionWrittenIn(version) {
  return {
    name: 'version-written-in',
    setup(build) {
      build.onLoad({ filter: /[\\/]cli[\\/]version\.js$/ }, () => ({ contents: `export const version = ${JSON.stringify(version)};`, loader: 'js' }));
    },
  };
}
