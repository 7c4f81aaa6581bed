/**
 * The CLI bundle carries the precompiled schema validator (scripts/bundle.mjs), so `validate`
 * checks the schema without loading ajv: with ajv made unloadable, schema errors are still found.
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
