/**
 * `npm pack`, then the tarball installed into an empty directory as a user would (install
 * scripts allowed), gives a working `portalctl`: validate and plan on the shipped examples
 * against the emulator, `emulator --help`, the `portalctl/emulator` API with its types. The
 * install log has no warning from this package (no lifecycle script), and every package in
 * node_modules is one the CLI loads: no unused runtime dependency.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { REPO_ROOT } from '../support/cli.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work: string;
let installed: string;
let installLog: string;
let packed: { files: { path: string }[] };
let loadedLog: string;

/**
 * Preloaded into every CLI run: records the package of each module loaded from a node_modules
 * directory (what the CLI really needs at run time).
 */
const RECORDER = `
const Module = require('node:module');
const { appendFileSync } = require('node:fs');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  try {
    const file = Module._resolveFilename(request, parent);
    const match = /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(file);
    if (match && !seen.has(match[1])) { seen.add(match[1]); appendFileSync(process.env.LOADED_LOG, match[1].replace(/\\\\/g, '/') + '\\n'); }
  } catch {}
  return load.call(this, request, parent, ...rest);
};
`;

/** Runs the installed CLI (asynchronously: the emulator answers from this process). */
async function portalctl(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--require', join(work, 'recorder.cjs'), join(installed, 'node_modules/portalctl/dist/bin/portalctl.js'), ...args], {
      cwd: installed,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', LOADED_LOG: loadedLog, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'portalctl-pack-'));
  loadedLog = join(work, 'loaded.txt');
  await writeFile(loadedLog, '');
  await writeFile(join(work, 'recorder.cjs'), RECORDER);
  // --ignore-scripts: dist/ was built by the suite's global setup; prepack would rebuild it from under other tests.
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  packed = (JSON.parse(stdout) as (typeof packed & { filename: string })[])[0]!;
  installed = join(work, 'project');
  await mkdir(installed);
  await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'uses-portalctl', private: true, type: 'module' }));
  const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'))!;
  // As a user installs it: scripts allowed, so npm would say if the package had any. Dependencies
  // come from npm's cache when they are there (npm ci filled it), else the registry.
  const install = await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn', join(work, tarball)], {
    cwd: installed,
    maxBuffer: 16 * 1024 * 1024,
  });
  installLog = `${install.stdout}\n${install.stderr}`;
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the bundled CLI, its LICENSE, the schema, the examples, the emulator types and the CI scripts; no sources, tests, tsc output or source map', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/bin/portalctl.js',
        'dist/bin/package.json',
        'dist/bin/cli.cjs',
        'dist/bin/emulator.cjs',
        'dist/bin/positions-worker.cjs',
        'dist/bin/escape.cjs',
        'dist/bin/THIRD-PARTY-LICENSES.txt',
        'dist/types/emulator/index.d.ts',
        'dist/types/emulator/index.d.cts',
        'schemas/portalctl.schema.json',
        'examples/full/portal.yaml',
        'examples/minimal/portalctl.yaml',
        'examples/emulator/portal.yaml',
        'scripts/action/run-portalctl.mjs',
      ]),
    );
    expect(paths.filter((path) => /^(src|test|bench)\//.test(path) || /^dist\/(?!bin\/|types\/emulator\/)/.test(path) || path.endsWith('.map'))).toEqual([]);
  });

  it("its README's user sections name only files the package holds, or say the file is the repository's", async () => {
    const readme = await readFile(join(installed, 'node_modules/portalctl/README.md'), 'utf8');
    // From "Architecture" on, the README is for contributors, who read it in a clone.
    const forUsers = readme.slice(0, readme.indexOf('\n## Architecture'));
    const shipped = packed.files.map((file) => file.path);
    const holds = (path: string) => shipped.some((file) => file === path || file.startsWith(path.endsWith('/') ? path : `${path}/`));
    const unsaid: string[] = [];
    for (const match of forUsers.matchAll(/(?<![\w./-])(?:node_modules\/portalctl\/)?((?:src|test|bench|templates|scripts|dist|examples|schemas)\/[\w./*-]*[\w/*]|action\.yml|CONTRIBUTING\.md|[\w-]+\.(?:ts|mjs|cjs))/g)) {
      const path = match[1]!;
      if (holds(path.replace(/\/?\*.*$/, '/'))) continue;
      // The clause the path stands in (from its opening parenthesis or sentence), or the words just after it.
      const before = forUsers.slice(0, match.index);
      const clause = before.slice(Math.max(before.lastIndexOf('('), before.lastIndexOf('. '), before.lastIndexOf('\n\n')));
      const after = forUsers.slice(match.index, match.index + path.length + 30);
      if (!/repository/.test(clause) && !/repository/.test(after)) unsaid.push(path);
    }
    expect(unsaid).toEqual([]);
  });

  it('names no source map it does not hold: no sourceMappingURL in the installed bundles', async () => {
    const bin = join(installed, 'node_modules/portalctl/dist/bin');
    const files = (await readdir(bin)).filter((name) => /\.(c?js)$/.test(name));
    expect(files).toEqual(expect.arrayContaining(['cli.cjs', 'portalctl.js', 'emulator.cjs', 'undici.cjs', 'pg.cjs', 'yaml.cjs']));
    const linking: string[] = [];
    for (const name of files) if (/sourceMappingURL=/.test(await readFile(join(bin, name), 'latin1'))) linking.push(name);
    expect(linking).toEqual([]);
  });

  it("carries the licence of every package its bundles inline: each one's name, version and licence text", async () => {
    const notices = await readFile(join(installed, 'node_modules/portalctl/dist/bin/THIRD-PARTY-LICENSES.txt'), 'utf8');
    // What the CLI bundle inlines, by its source map (kept in a clone's build), and the packages bundled on their own beside it.
    const map = JSON.parse(await readFile(join(REPO_ROOT, 'dist/bin/cli.cjs.map'), 'utf8')) as { sources: string[] };
    const inCli = map.sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? []);
    const packages = [...new Set([...inCli, 'yaml', 'undici', 'pg', 'pg-protocol', 'selfsigned', '@peculiar/x509', 'asn1js'])];
    expect(inCli).toEqual(expect.arrayContaining(['commander', 'js-yaml', 'fast-json-patch', 'content-disposition', 'p-limit', 'fastest-levenshtein', 'pgpass']));
    for (const name of packages) {
      const directory = join(REPO_ROOT, 'node_modules', name);
      const manifest = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8')) as { version: string; license: string };
      const licenseFile = (await readdir(directory)).find((file) => /^licen[cs]e/i.test(file));
      // pgpass has no licence file: its README's "License" section is the notice.
      const text = licenseFile ? (await readFile(join(directory, licenseFile), 'utf8')).trim() : 'Copyright (c) 2013-2016 Hannes Hörl';
      expect(notices, name).toContain(`${name}@${manifest.version} (${manifest.license})\n\n${text}`);
    }
  });

  it('has no install-time script and installs without a warning from this package', async () => {
    const manifest = JSON.parse(await readFile(join(installed, 'node_modules/portalctl/package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['prepare', 'preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[script], script).toBeUndefined();
    expect(installLog.split('\n').filter((line) => /warn/i.test(line) && /portalctl/.test(line))).toEqual([]);
  });

  it('installed from the tarball: validate and plan the shipped examples against the emulator, emulator --help, a PostgreSQL state with nothing else installed', async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await portalctl(['--version'])).stdout.trim()).toBe(version);
    const bin = await run(join(installed, 'node_modules/.bin/portalctl'), ['--version'], { cwd: installed });
    expect(bin.stdout.trim()).toBe(version);

    const validate = await portalctl(['validate', 'node_modules/portalctl/examples/full']);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);

    const emulator: RunningEmulator = await startEmulator({ port: 0, data: join(installed, 'node_modules/portalctl/examples/emulator/portal.yaml') });
    try {
      const plan = await portalctl(['plan', 'node_modules/portalctl/examples/minimal', '--portal', emulator.url, '--state', join(work, 'state.json'), '--detailed-exitcode'], {
        PORTALCTL_TOKEN: 'admin-token',
      });
      expect(plan.stderr).toBe('');
      expect(plan.stdout).toMatch(/Plan: \d+ to create, \d+ to update, \d+ to delete\./);
      expect(plan.code).toBe(2);
    } finally {
      await emulator.close();
    }

    const help = await portalctl(['emulator', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--data <file>');

    // The driver is in the bundle: it gets as far as the (absent) server.
    const postgres = await portalctl(['state', 'list', '--state', 'postgres://portalctl@127.0.0.1:1/portalctl']);
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain('Cannot read the PostgreSQL state at postgres://portalctl@127.0.0.1:1/portalctl state "default": connect ECONNREFUSED');
  });

  it('exports the emulator with its types through `exports`, to ES modules and CommonJS', async () => {
    const script = "import { startEmulator } from 'portalctl/emulator'; const e = await startEmulator({ port: 0 }); console.log(e.url); await e.close();";
    const started = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: installed });
    expect(started.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest\n$/);
    // And to CommonJS, through the require condition.
    const required = "const { startEmulator } = require('portalctl/emulator'); startEmulator({ port: 0 }).then(async (e) => { console.log(e.url); await e.close(); });";
    expect((await run(process.execPath, ['--input-type=commonjs', '-e', required], { cwd: installed })).stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest\n$/);
  });

  // node10 (`node`, the default of `module: commonjs`) reads no `exports`: `typesVersions` points it at the same types.
  // A .cts file is CommonJS (the project is "type": "module"): its import is a require, which
  // node16 refuses to point at ES module types (TS1479), so the require condition has its own.
  it.each([
    ['nodenext', 'nodenext', 'ts'],
    ['node16', 'node16', 'ts'],
    ['bundler', 'esnext', 'ts'],
    ['node10', 'commonjs', 'ts'], // also called `node`
    ['node16', 'node16', 'cts'],
    ['nodenext', 'nodenext', 'cts'],
  ])('a TypeScript consumer with moduleResolution %s (module %s) in a .%s file finds the types of portalctl/emulator', async (moduleResolution, module, extension) => {
    const file = `check-${moduleResolution}.${extension}`;
    await writeFile(
      join(installed, file),
      "import { startEmulator, type RunningEmulator } from 'portalctl/emulator';\nexport async function start(): Promise<string> {\n  const running: RunningEmulator = await startEmulator({ port: 0 });\n  return running.url;\n}\n",
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', module, '--moduleResolution', moduleResolution, '--target', 'es2022', '--typeRoots', join(REPO_ROOT, 'node_modules/@types'), '--types', 'node', file];
    const checked = await run(process.execPath, [tsc, ...args], { cwd: installed }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(checked.stdout).toBe('');
  });

  it('node_modules holds only packages the CLI loads: no unused runtime dependency', async () => {
    const entries = await readdir(join(installed, 'node_modules'));
    const packages = (
      await Promise.all(entries.filter((name) => !name.startsWith('.')).map(async (name) => (name.startsWith('@') ? (await readdir(join(installed, 'node_modules', name))).map((inner) => `${name}/${inner}`) : [name])))
    ).flat();
    const loaded = new Set((await readFile(loadedLog, 'utf8')).split('\n').filter(Boolean));
    expect(packages.filter((name) => name !== 'portalctl' && !loaded.has(name))).toEqual([]);
    expect(packages).not.toContain('ajv');
    expect(packages).not.toContain('pg');
  });
});
