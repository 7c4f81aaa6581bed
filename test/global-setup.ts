/**
 * Builds dist/ once before the suite: tests that run the real CLI (`node dist/bin/portalctl.js`)
 * must never test a stale build. Also starts the PostgreSQL server the state tests share
 * (PORTALCTL_TEST_PG when set), given to them as `inject('postgresUrl')`.
 */
import { execFileSync } from 'node:child_process';
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
  const postgres = await sharedPostgres();
  project.provide('postgresUrl', postgres.url);
  return () => postgres.dispose();
}
