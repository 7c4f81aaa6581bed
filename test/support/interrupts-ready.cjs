// Preloaded into the CLI by signal tests (NODE_OPTIONS=--require). It writes the file named by
// PORTALCTL_TEST_READY_FILE once the CLI has read the file named by PORTALCTL_TEST_READY_AFTER_READING
// (the config: the descriptor it opened for it is closed), so the test's signal arrives while the
// CLI parses it, not before. The CLI then already listens for signals (it does before it reads
// its config).
const fs = require('node:fs');
const { resolve } = require('node:path');

const readyFile = process.env.PORTALCTL_TEST_READY_FILE;
const watched = process.env.PORTALCTL_TEST_READY_AFTER_READING;
if (readyFile && watched) {
  const watchedDescriptors = new Set();
  const openSync = fs.openSync;
  fs.openSync = (path, ...rest) => {
    const fd = openSync(path, ...rest);
    if (typeof path === 'string' && resolve(path) === resolve(watched)) watchedDescriptors.add(fd);
    return fd;
  };
  const closeSync = fs.closeSync;
  fs.closeSync = (fd) => {
    closeSync(fd);
    if (watchedDescriptors.delete(fd)) fs.writeFileSync(readyFile, String(process.pid));
  };
}
