/**
 * Milliseconds since the stopwatch started, on the monotonic clock. process.hrtime rather than
 * the global `performance`, whose first use loads perf_hooks: about a millisecond of every run
 * that makes a request (bench "cheap runs").
 */
export function stopwatch(): () => number {
  const started = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - started) / 1e6;
}
