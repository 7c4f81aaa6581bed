// Preloaded (`node --require`) into a measured child: on exit, writes the process's peak
// resident set size in kilobytes (process.resourceUsage().maxRSS) to $BENCH_MAXRSS_FILE.
'use strict';
const { writeFileSync } = require('node:fs');

const target = process.env.BENCH_MAXRSS_FILE;
if (target) {
  process.on('exit', () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
