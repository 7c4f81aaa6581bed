/**
 * What a short command costs beyond Node's own start is partly which of Node's modules it loads
 * (README "Start-up"): Node's streams (loaded by node:zlib, node:crypto, node:v8 and by creating
 * process.stdout for a pipe), node:net and node:os each cost milliseconds. `validate` and an
 * offline `plan` need none of them; this pins that.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'portalctl-start-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const preload = join(dir, 'modules.cjs');
writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_FILE, process.moduleLoadList.join('\\n')));\n");

/**
 * Node's modules a run of `args` loaded (its output to pipes, as in CI), beyond those of a Node
 * that loaded the promise-based fs, which reading the files uses (on Node 24 it loads node:os
 * itself, through readline's history).
 */
function modulesLoaded(args: string[], env: Record<string, string> = {}): string[] {
  const list = (nodeArgs: string[], name: string): { status: number | null; modules: Set<string> } => {
    const file = join(dir, name);
    const run = spawnSync(process.execPath, ['--require', preload, ...nodeArgs], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env, MODULES_FILE: file } });
    return { status: run.status, modules: new Set(readFileSync(file, 'utf8').split('\n')) };
  };
  const node = list(['-e', 'require("node:fs/promises")'], 'node.txt');
  const command = list([CLI, ...args], 'command.txt');
  expect(command.status).toBe(0);
  return [...command.modules].filter((name) => !node.modules.has(name));
}

const unwanted = /^NativeModule (stream|zlib|crypto|v8|os|net|internal\/streams\/)/;

describe('a short command loads only the Node modules it uses', () => {
  const example = join(REPO_ROOT, 'examples/minimal');

  it('validate', () => {
    const extra = modulesLoaded(['validate', example, '--no-color']);
    expect(extra.filter((name) => unwanted.test(name))).toEqual([]);
  });

  it('validate of a config with a ${env:} reference (its fingerprint is computed only when a plan shows it)', () => {
    const config = join(dir, 'referenced.yaml');
    writeFileSync(config, `${readFileSync(join(example, 'portalctl.yaml'), 'utf8')}roles:\n  - id: r1\n    name: Editors\n    description: "\${env:ROLE_NOTE}"\n`);
    const extra = modulesLoaded(['validate', config, '--no-color'], { ROLE_NOTE: 'Edits things' });
    expect(extra.filter((name) => unwanted.test(name))).toEqual([]);
  });

  it('plan --refresh=false against a recorded state', () => {
    const state = join(dir, 'portalctl.state.json');
    writeFileSync(state, JSON.stringify({ formatVersion: 1, lineage: 'c0ffee00-0000-4000-8000-000000000000', serial: 1, portal: { url: 'http://127.0.0.1:9/portal/sharing/rest' }, resources: {} }));
    const extra = modulesLoaded(['plan', example, '--refresh=false', '--portal', 'http://127.0.0.1:9/portal/sharing/rest', '--state', state, '--no-color']);
    expect(extra.filter((name) => unwanted.test(name))).toEqual([]);
  });
});
