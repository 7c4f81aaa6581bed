/**
 * `npm run demo:environments` (scripts/demo-environments.mjs): one repository, three emulated
 * portals whose ids differ for the same objects. It validates every environment, prints the
 * effective config of one, plans all three (changes), applies all three and plans them empty.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo:environments', () => {
  it('plans, applies and re-plans development, test and production, ending with nothing to do anywhere', () => {
    const env: Record<string, string> = { NO_COLOR: '1' };
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('PORTALCTL_') && !key.startsWith('VITEST') && key !== 'NODE_OPTIONS') env[key] = value;
    const result = spawnSync(process.execPath, ['scripts/demo-environments.mjs'], { cwd: root, encoding: 'utf8', env });
    expect(result.stderr).not.toContain('demo failed');
    expect(result.status).toBe(0);
    const out = result.stdout;
    // validate: every environment's effective config.
    for (const name of ['development', 'test', 'production']) expect(out).toContain(`Environment ${name}:\nValid:`);
    // config: values typed and substituted, each with where it was written.
    expect(out).toMatch(/minLength: 14 # examples\/environments\/organization\.yaml:5/);
    expect(out).toMatch(/historySize: 5 # examples\/environments\/overlays\/production\.yaml:5/);
    // The same role, named once, resolved to three different ids.
    expect(out).toContain('role[dEvA11] — Field Analyst  (by name: role "Field Analyst" → dEvA11)');
    expect(out).toContain('role[tStA11] — Field Analyst  (by name: role "Field Analyst" → tStA11)');
    expect(out).toContain('role[r7HkQ2] — Field Analyst  (by name: role "Field Analyst" → r7HkQ2)');
    expect(out).toMatch(/portalctl plan over 3 environments \(3 with changes\)\./);
    expect(out).toMatch(/portalctl apply over 3 environments \(3 applied\)\./);
    expect(out.trimEnd()).toMatch(/portalctl plan over 3 environments \(3 no changes\)\.\nenvironment +changes +drift +outcome +time\ndevelopment +0 +0 +no changes +[\d.]+ s\ntest +0 +0 +no changes +[\d.]+ s\nproduction +0 +0 +no changes +[\d.]+ s$/);
    for (const token of ['dev-token', 'test-token', 'prod-token']) expect(out + result.stderr).not.toContain(token);
  });
});
