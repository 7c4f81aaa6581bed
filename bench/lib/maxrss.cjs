// Preloaded (`node --require`) into a measured child: on exit, writes the process's peak
// resident set size in kilobytes and its CPU time (user + system) in microseconds
// (process.resourceUsage()) to $BENCH_MAXRSS_FILE, as "<maxRSS> <cpu>".
'use strict';
const { writeFileSync } = require('node:fs');

const target = process.env.BENCH_MAXRSS_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, `${usage.maxRSS} ${usage.userCPUTime + usage.systemCPUTime}`);
  });
}
