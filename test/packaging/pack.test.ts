/**
 * `npm pack`, then the tarball installed into an empty directory, gives a working `portalctl`:
 * --version, validate on an example, and plan against the emulator. Only what the bundle does
 * not inline is a runtime dependency; the bundled libraries are devDependencies.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { REPO_ROOT, SAMPLE_ORG } from '../support/cli.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work: string;
let installed: string;
let packed: { files: { path: string }[] };

/** Runs the installed CLI (asynchronously: the emulator answers from this process). */
async function portalctl(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(installed, 'node_modules/portalctl/dist/bin/portalctl.js'), ...args], {
      cwd: installed,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'portalctl-pack-'));
  // --ignore-scripts: dist/ was built by the suite's global setup; rebuilding it here would pull it from under other tests.
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  packed = (JSON.parse(stdout) as (typeof packed & { filename: string })[])[0]!;
  installed = join(work, 'project');
  await mkdir(installed);
  await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'uses-portalctl', private: true }));
  const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'))!;
  // Dependencies come from npm's cache when they are there (npm ci filled it), else the registry.
  await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, tarball)], { cwd: installed, maxBuffer: 16 * 1024 * 1024 });
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the bundled CLI, the schema and the CI scripts, and no sources, tests or tsc output', () => {
    const paths = packed.files.map((file) => file.path);
    // The bin and the bundle are CommonJS (dist/bin/package.json); the precompiled validator is inside the bundle.
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/bin/portalctl.js', 'dist/bin/package.json', 'dist/bin/cli.cjs', 'schemas/portalctl.schema.json', 'scripts/action/gitlab.mjs', 'scripts/action/comment.mjs', 'scripts/action/run-portalctl.mjs']));
    expect(paths.filter((path) => /^(src|test|bench|examples)\//.test(path) || /^dist\/(?!bin\/)/.test(path))).toEqual([]);
  });

  it('depends at run time only on what the bundle leaves out; the bundled libraries are devDependencies', async () => {
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const bundle = await readFile(join(REPO_ROOT, 'scripts/bundle.mjs'), 'utf8');
    const external = JSON.parse((bundle.match(/external: (\[[^\]]*\])/)?.[1] ?? '[]').replace(/'/g, '"')) as string[];
    expect(Object.keys(manifest['dependencies'] ?? {}).sort()).toEqual([...external].sort());
    for (const bundled of ['yaml', 'commander', 'fast-json-patch']) expect(Object.keys(manifest['devDependencies'] ?? {})).toContain(bundled);
    expect(manifest['repository']).toBeTruthy();
    expect(manifest['homepage']).toBeTruthy();
    expect(manifest['bugs']).toBeTruthy();
    expect(manifest['keywords']).toEqual(expect.arrayContaining(['gitops']));
  });

  it('installed from the tarball: --version, validate an example, and plan against the emulator', async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const shown = await portalctl(['--version']);
    expect(shown.stdout.trim()).toBe(version);
    const bin = await run(join(installed, 'node_modules/.bin/portalctl'), ['--version'], { cwd: installed });
    expect(bin.stdout.trim()).toBe(version);

    const validate = await portalctl(['validate', join(REPO_ROOT, 'examples/full')]);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);

    const emulator: RunningEmulator = await startEmulator({ port: 0, data: SAMPLE_ORG });
    try {
      const plan = await portalctl(['plan', join(REPO_ROOT, 'examples/minimal'), '--portal', emulator.url, '--state', join(work, 'state.json'), '--detailed-exitcode'], { PORTALCTL_TOKEN: 'admin-token' });
      expect(plan.stderr).toBe('');
      expect(plan.stdout).toMatch(/Plan: \d+ to create, \d+ to update, \d+ to delete\./);
      expect(plan.code).toBe(2);
    } finally {
      await emulator.close();
    }
  });
});
