/**
 * The CLI bundle carries the precompiled schema validator (scripts/bundle.mjs), so `validate`
 * checks the schema without loading ajv: with ajv made unloadable, schema errors are still found.
 * undici's bundle has stand-ins for `node:http2` and `node:assert` that load the real modules
 * only when used: used, they must act as the real ones.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../support/cli.js';

let work: string;
let withoutAjv: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'portalctl-bundle-'));
  withoutAjv = join(work, 'without-ajv.cjs');
  writeFileSync(
    withoutAjv,
    [
      "const Module = require('node:module');",
      'const load = Module._load;',
      "Module._load = function (request, ...rest) { if (/^ajv(\\/|$)/.test(request)) throw new Error('ajv was loaded'); return load.call(this, request, ...rest); };",
    ].join('\n'),
  );
  const minimal = readFileSync(join(REPO_ROOT, 'examples/minimal/portalctl.yaml'), 'utf8');
  writeFileSync(join(work, 'portalctl.yaml'), minimal.replace('minLength: 12', 'minLength: "twelve"'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const portalctl = (...args: string[]) => spawnSync(process.execPath, ['--require', withoutAjv, CLI, ...args], { encoding: 'utf8', cwd: work });

describe('the CLI bundle', () => {
  it('validates against the schema with the validator inside it, never loading ajv', () => {
    const valid = portalctl('validate', join(REPO_ROOT, 'examples/full'));
    expect(valid.stderr).toBe('');
    expect(valid.status).toBe(0);

    const invalid = portalctl('validate', work, '--no-color');
    expect(invalid.stdout).toContain('portalctl.yaml:11:16: error: organization.securityPolicy.minLength must be an integer.');
    expect(invalid.stdout).not.toContain('ajv was loaded');
    expect(invalid.status).toBe(1);
  });
});

describe("undici's bundle", () => {
  /** Runs `script` in a Node that has loaded dist/bin/undici.cjs, and returns what it prints as JSON. */
  const afterUndici = (script: string): unknown => {
    const child = spawnSync(process.execPath, ['-e', `const undici = require(${JSON.stringify(join(REPO_ROOT, 'dist/bin/undici.cjs'))});\n${script}`], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout);
  };

  it('loads neither node:http2 nor node:assert with the Agent', () => {
    const loaded = "(name) => process.moduleLoadList.includes(`NativeModule ${name}`)";
    expect(afterUndici(`new undici.Agent().close(); const loaded = ${loaded}; console.log(JSON.stringify({ agent: typeof undici.Agent, http2: loaded('http2'), assert: loaded('assert') }));`)).toEqual({
      agent: 'function',
      http2: false,
      assert: false,
    });
  });

  /** A script bundled with the stand-ins' plugins, run; what it prints. */
  const withStandIns = async (contents: string): Promise<unknown> => {
    const { build } = await import('esbuild');
    const { assertOnFailure, http2OnFirstUse } = await import(join(REPO_ROOT, 'scripts/bundle-plugins.mjs'));
    const outfile = join(work, 'stand-ins.cjs');
    await build({ stdin: { contents, resolveDir: work, loader: 'js' }, bundle: true, format: 'cjs', platform: 'node', outfile, logLevel: 'error', plugins: [http2OnFirstUse(), assertOnFailure()] });
    const child = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout);
  };

  it("the assert stand-in passes what holds without loading node:assert, and fails with node:assert's own error", async () => {
    const printed = await withStandIns(
      [
        "const assert = require('node:assert');",
        'assert(1); assert(true, "holds");',
        "const before = process.moduleLoadList.includes('NativeModule assert');",
        'let error;',
        "try { assert(0, 'the socket is gone'); } catch (caught) { error = caught; }",
        "const real = require('module').createRequire(__filename)('node:assert');",
        'console.log(JSON.stringify({ before, real: error instanceof real.AssertionError, message: error.message, code: error.code, strictEqual: assert.strictEqual === real.strictEqual }));',
      ].join('\n'),
    );
    expect(printed).toEqual({ before: false, real: true, message: 'the socket is gone', code: 'ERR_ASSERTION', strictEqual: true });
  });

  it("the http2 stand-in holds the protocol's constants and gives node:http2's own functions on first use", async () => {
    const printed = await withStandIns(
      [
        "const http2 = require('node:http2');",
        'const method = http2.constants.HTTP2_HEADER_METHOD;',
        "const before = process.moduleLoadList.includes('NativeModule http2');",
        "const real = require('module').createRequire(__filename)('node:http2');",
        'console.log(JSON.stringify({ method, before, connect: http2.connect === real.connect, constants: JSON.stringify(http2.constants) === JSON.stringify(real.constants) }));',
      ].join('\n'),
    );
    expect(printed).toEqual({ method: ':method', before: false, connect: true, constants: true });
  });
});
