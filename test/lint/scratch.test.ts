/**
 * The suite's temporary files live below one directory per run, which test/global-setup.ts removes
 * at the end: a test that forgets its own leaves nothing on the machine.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { expect, it } from 'vitest';

it('temporary files of tests and of the processes they start go below the run\'s own directory', () => {
  expect(basename(tmpdir())).toMatch(/^portalctl-test-run-/);
  const child = spawnSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' });
  expect(child.stdout.trim()).toBe(tmpdir());
});
