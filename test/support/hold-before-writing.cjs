// Preloaded into the CLI by a signal test (NODE_OPTIONS=--require). apply checks the invites
// directory (lstat) after its reads and before its first write, when the plan sends an
// invitation: the first such check of PORTALCTL_TEST_HOLD_PATH writes the file named by
// PORTALCTL_TEST_HOLD_READY and waits until the file named by PORTALCTL_TEST_HOLD_RELEASE
// exists, so that the test's signal arrives between the reads and the first write.
const fs = require('node:fs');
const promises = require('node:fs/promises');
const { resolve } = require('node:path');

const held = process.env.PORTALCTL_TEST_HOLD_PATH;
const ready = process.env.PORTALCTL_TEST_HOLD_READY;
const release = process.env.PORTALCTL_TEST_HOLD_RELEASE;
if (held && ready && release) {
  const lstat = promises.lstat;
  let holding = true;
  promises.lstat = async (path, ...rest) => {
    if (holding && resolve(String(path)) === resolve(held)) {
      holding = false;
      fs.writeFileSync(ready, String(process.pid));
      // The child's own wait for the test's release file; the test itself waits for events.
      await new Promise((done) => {
        const timer = setInterval(() => {
          if (!fs.existsSync(release)) return;
          clearInterval(timer);
          done();
        }, 10);
      });
    }
    return lstat(path, ...rest);
  };
}
