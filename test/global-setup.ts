/**
 * Builds dist/ once before the suite: tests that run the real CLI (`node dist/bin/portalctl.js`)
 * must never test a stale build. Also starts the PostgreSQL server the state tests share
 * (PORTALCTL_TEST_PG when set), given to them as `inject('postgresUrl')`.
 *
 * Every temporary file of the run (the tests' directories, the CLIs and servers they start, the
 * PostgreSQL data) goes below one directory, removed at the end: TMPDIR is set before the test
 * processes start, and they and their children inherit it. A test that forgets to remove what it
 * made leaves nothing behind on the machine.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { sharedPostgres } from './support/postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const scratch = mkdtempSync(join(tmpdir(), 'portalctl-test-run-'));
  // Others may pass through (not list): a PostgreSQL server run as root's stand-in account reaches its data dir below.
  chmodSync(scratch, 0o711);
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = scratch;
  const postgres = await sharedPostgres();
  project.provide('postgresUrl', postgres.url);
  return async () => {
    await postgres.dispose();
    rmSync(scratch, { recursive: true, force: true });
  };
}
