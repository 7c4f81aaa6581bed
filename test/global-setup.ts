/**
 * Builds dist/ once before the suite: tests that run the real CLI (`node dist/bin/portalctl.js`)
 * must never test a stale build.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}
