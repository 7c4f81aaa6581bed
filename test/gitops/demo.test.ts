/** `npm run demo` (scripts/demo.mjs) runs validate, plan, apply and plan again, and ends converged. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo', () => {
  it('shows a real plan, applies it, and ends with a plan that says there is nothing to do', () => {
    const result = spawnSync(process.execPath, ['scripts/demo.mjs'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(result.stderr).not.toContain('demo failed');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Plan: 1 to create, \d+ to update, \d+ to delete\./);
    expect(result.stdout).toContain('Apply finished: 14 applied, 0 failed, 0 skipped.');
    expect(result.stdout.trimEnd().endsWith('No changes. The portal matches the configuration.')).toBe(true);
    expect(result.stdout).not.toContain('admin-token');
  });
});
