#!/usr/bin/env node
// Writes the golden files under test/golden/ again from the current rendering (review the diff
// before committing): builds, then runs the golden tests with PORTALCTL_UPDATE_GOLDEN=1.
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['vitest', 'run', 'test/golden'], {
  stdio: 'inherit',
  env: { ...process.env, PORTALCTL_UPDATE_GOLDEN: '1' },
});
if (result.status === 0) console.log('\nGolden files written. Review them with: git diff test/golden');
process.exit(result.status ?? 1);
