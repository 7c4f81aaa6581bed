/**
 * The floor of a drift's network work, for the cheap-runs figure: the same requests a drift sent
 * (read from the emulator's log), sent with the undici Agent bundle portalctl loads, compiled
 * through V8 cached data as the launcher compiles it, with the same WebAssembly flags, at most 8
 * at a time after the first (as the reader does), each answer parsed as JSON; nothing else. What
 * it costs beyond `node -e 0` is what no work of portalctl's own could save with this client.
 *
 *   node undici-floor.cjs <undici.cjs> <requests.json> <cache file>
 *
 * requests.json: { "root": REST root URL, "token": ..., "requests": [ "/path?query", ... ] }
 */
'use strict';
const v8 = require('node:v8');
// As src/cli/launcher.ts sets them for the commands that reach a portal.
for (const flag of ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering']) v8.setFlagsFromString(flag);
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { Script } = require('node:vm');

const [undiciFile, requestsFile, cacheFile] = process.argv.slice(2);
const cached = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(undiciFile, 'latin1')}\n})`, {
  filename: undiciFile,
  ...(cached ? { cachedData: cached } : {}),
});
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, undiciFile, dirname(undiciFile));
// Written at exit like the launcher's, so that it holds the functions the run compiled.
process.once('exit', () => {
  if (!cached || script.cachedDataRejected) writeFileSync(cacheFile, script.createCachedData());
});

const { root, token, requests } = JSON.parse(readFileSync(requestsFile, 'utf8'));
const agent = new bundle.exports.Agent();

async function get(pathAndQuery) {
  const url = new URL(root + pathAndQuery);
  url.searchParams.set('f', 'json');
  const { statusCode, body } = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: { 'x-esri-authorization': `Bearer ${token}` } });
  const answer = JSON.parse(await body.text());
  if (statusCode !== 200 || answer.error) throw new Error(`${pathAndQuery}: ${statusCode} ${JSON.stringify(answer).slice(0, 200)}`);
}

async function main() {
  const [first, ...rest] = requests;
  await get(first);
  let next = 0;
  const worker = async () => {
    while (next < rest.length) await get(rest[next++]);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await agent.close();
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
});
