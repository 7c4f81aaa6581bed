/** Every example config validates, applies to a fresh emulator and then plans empty, through the CLI. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SAMPLE_ORG, startCliPortal } from '../support/cli.js';

const examples = [
  { name: 'full', data: SAMPLE_ORG },
  { name: 'minimal', data: SAMPLE_ORG },
  { name: 'legacy', data: join(REPO_ROOT, 'examples/emulator/legacy-portal.yaml') },
].filter((example) => existsSync(join(REPO_ROOT, 'examples', example.name)) && existsSync(example.data));

describe('example configs', () => {
  it('covers full and minimal at least', () => {
    expect(examples.map((example) => example.name)).toEqual(expect.arrayContaining(['full', 'minimal']));
  });

  it.each(examples)('examples/$name validates, applies and then plans empty', async ({ name, data }) => {
    const portal = await startCliPortal({ data });
    try {
      const dir = join(REPO_ROOT, 'examples', name);
      const validate = await portal.run(['validate', dir], { portal: null });
      expect(validate.stderr).toBe('');
      expect(validate.code).toBe(0);

      const plan = await portal.run(['plan', dir, '--detailed-exitcode']);
      expect(plan.code).toBe(2);

      const apply = await portal.run(['apply', dir, '--auto-approve']);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      expect(apply.stdout).toContain('The portal now matches the configuration.');

      const after = await portal.run(['plan', dir, '--detailed-exitcode']);
      expect(after.stdout).toContain('No changes');
      expect(after.code).toBe(0);
      const drift = await portal.run(['drift', dir]);
      expect(drift.code).toBe(0);
    } finally {
      await portal.dispose();
    }
  });
});
