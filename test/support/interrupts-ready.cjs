// Preloaded into the CLI by signal tests (NODE_OPTIONS=--require). It writes the file named by
// PORTALCTL_TEST_READY_FILE once the CLI has read the file named by PORTALCTL_TEST_READY_AFTER_READING
// (the config), so the test's signal arrives while the CLI parses it, not before. The CLI then
// already listens for signals (it does before it reads its config).
const fs = require('node:fs');
const promises = require('node:fs/promises');
const { resolve } = require('node:path');

const readyFile = process.env.PORTALCTL_TEST_READY_FILE;
const watched = process.env.PORTALCTL_TEST_READY_AFTER_READING;
if (readyFile && watched) {
  const open = promises.open;
  promises.open = async (path, ...rest) => {
    const handle = await open(path, ...rest);
    if (resolve(String(path)) !== resolve(watched)) return handle;
    const close = handle.close.bind(handle);
    handle.close = async () => {
      await close();
      fs.writeFileSync(readyFile, String(process.pid));
    };
    return handle;
  };
}
