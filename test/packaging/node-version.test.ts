/**
 * On a Node older than package.json's `engines` (which npm only warns about at install), the bin
 * says so in one line and exits 1, instead of failing somewhere in its start with a stack trace
 * (Node 18: "Cannot read properties of undefined (reading 'USE_MAIN_CONTEXT_DEFAULT_LOADER')").
 * The Node running the suite is made to report an older version by a preload.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'portalctl-node-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const preload = join(dir, 'older-node.cjs');
writeFileSync(
  preload,
  [
    'const version = process.env.REPORTED_NODE_VERSION;',
    "Object.defineProperty(process, 'version', { value: `v${version}` });",
    "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: version } });",
  ].join('\n'),
);

/** The bin run as a user runs it, on a Node that reports `version`. */
function portalctlOn(version: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--require', preload, CLI, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, REPORTED_NODE_VERSION: version } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the bin on an older Node', () => {
  it('refuses a Node older than engines in one line, exit 1, whatever the command', () => {
    const { engines } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toBe('>=20.19');
    for (const [version, args] of [
      ['18.20.8', ['--version']],
      ['20.18.3', ['validate', join(REPO_ROOT, 'examples/minimal')]],
    ] as const) {
      expect(portalctlOn(version, [...args])).toEqual({
        status: 1,
        stdout: '',
        stderr: `Error: portalctl needs Node.js 20.19 or later (22 or 24 recommended); this is Node.js v${version} (${process.execPath}).\n`,
      });
    }
  });

  it('runs on the oldest Node engines allows', () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(portalctlOn('20.19.0', ['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });
});
