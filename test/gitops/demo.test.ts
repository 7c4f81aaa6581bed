/** `npm run demo` (scripts/demo.mjs) runs validate, plan, apply and plan again, and ends converged. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ESCAPE = '\x1b[';

/** The environment without anything that forces or forbids colour. */
function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !['NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS'].includes(key) && !key.startsWith('VITEST')) env[key] = value;
  return { ...env, ...extra };
}

/** Runs the demo under a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function demoOnTerminal(env: Record<string, string>): string {
  const result = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} scripts/demo.mjs`, '/dev/null'], { cwd: root, encoding: 'utf8', env });
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('npm run demo', () => {
  it('shows a real plan, applies it, and ends with a plan that says there is nothing to do', () => {
    const result = spawnSync(process.execPath, ['scripts/demo.mjs'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(result.stderr).not.toContain('demo failed');
    expect(result.status).toBe(0);
    const planned = /Plan: (\d+) to create, (\d+) to update, (\d+) to delete\./.exec(result.stdout);
    expect(planned?.[1]).toBe('1');
    // Every operation the plan showed is applied, however many kinds examples/full declares.
    const operations = (planned?.slice(1) ?? []).reduce((sum, count) => sum + Number(count), 0);
    expect(result.stdout).toContain(`Apply finished: ${operations} applied, 0 failed, 0 skipped.`);
    expect(result.stdout.trimEnd().endsWith('No changes. The portal matches the configuration.')).toBe(true);
    expect(result.stdout).not.toContain('admin-token');
  });

  it('piped (no terminal), it prints no escape codes, even without NO_COLOR', () => {
    const result = spawnSync(process.execPath, ['scripts/demo.mjs'], { cwd: root, encoding: 'utf8', env: plainEnv() });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('$ portalctl validate examples/full');
    expect(result.stdout).not.toContain(ESCAPE);
    expect(result.stderr).not.toContain(ESCAPE);
  });

  it('on a terminal it prints colour, and none with NO_COLOR', () => {
    const coloured = demoOnTerminal(plainEnv({ TERM: 'xterm' }));
    expect(coloured).toContain(`${ESCAPE}1m$ portalctl validate examples/full${ESCAPE}0m`);
    const plain = demoOnTerminal(plainEnv({ TERM: 'xterm', NO_COLOR: '1' }));
    expect(plain).toContain('$ portalctl validate examples/full');
    // No colour (SGR sequences); the progress line's carriage return and erase-line are not colour.
    // eslint-disable-next-line no-control-regex -- escape sequences are what is checked here
    expect(plain).not.toMatch(/\x1b\[[0-9;]*m/);
  });
});
