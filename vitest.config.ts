import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Tests wait for events, never for time, so a loaded machine only makes them slower. The one
 * time limit is a hang guard (a test that never ends fails after ten minutes), not a speed budget:
 * no test sets its own.
 */
const HANG_GUARD_MS = 10 * 60_000;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    pool: 'forks',
    // One file per core (vitest leaves one core free by default): most of a test is spent in
    // the CLI processes it starts, and with no time limits running files side by side is safe.
    maxWorkers: availableParallelism(),
  },
});
