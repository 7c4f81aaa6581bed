/**
 * The floor of a drift's network work, for the cheap-runs figure: the same requests a drift sent
 * (read from the emulator's log), at most 8 at a time after the first (as the reader does), each
 * answer parsed as JSON; nothing else. What it costs beyond `node -e 0` is what no work of
 * portalctl's own could save with that client. Two clients:
 *
 *   node http-floor.cjs undici <undici.cjs> <requests.json> <cache file>
 *     the undici Agent bundle portalctl loads, compiled through V8 cached data as the launcher
 *     compiles it, with the same WebAssembly flags;
 *   node http-floor.cjs node:http <requests.json>
 *     Node's own http module (its parser is native, not WebAssembly), with a keep-alive agent:
 *     what another HTTP client than the chosen one could at best save.
 *
 * requests.json: { "root": REST root URL, "token": ..., "requests": [ "/path?query", ... ] }
 */
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');

/** get(url, headers) -> the answer's status and text, for each client. */
const clients = {
  undici(undiciFile, cacheFile) {
    const v8 = require('node:v8');
    // As src/cli/launcher.ts sets them for the commands that reach a portal.
    for (const flag of ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering']) v8.setFlagsFromString(flag);
    const { Script } = require('node:vm');
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
    const agent = new bundle.exports.Agent();
    return {
      async get(url, headers) {
        const { statusCode, body } = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers });
        return { status: statusCode, text: await body.text() };
      },
      close: () => agent.close(),
    };
  },
  'node:http'() {
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true });
    return {
      get: (url, headers) =>
        new Promise((resolve, reject) => {
          http
            .get(url, { agent, headers }, (response) => {
              const chunks = [];
              response.on('data', (chunk) => chunks.push(chunk));
              response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
              response.on('error', reject);
            })
            .on('error', reject);
        }),
      close: () => agent.destroy(),
    };
  },
};

const [clientName, ...args] = process.argv.slice(2);
if (!Object.hasOwn(clients, clientName)) throw new Error(`client: ${Object.keys(clients).join(' or ')}, not ${clientName}`);
const requestsFile = clientName === 'undici' ? args[1] : args[0];
const client = clientName === 'undici' ? clients.undici(args[0], args[2]) : clients[clientName]();
const { root, token, requests } = JSON.parse(readFileSync(requestsFile, 'utf8'));

async function get(pathAndQuery) {
  const url = new URL(root + pathAndQuery);
  url.searchParams.set('f', 'json');
  const { status, text } = await client.get(url, { 'x-esri-authorization': `Bearer ${token}` });
  const answer = JSON.parse(text);
  if (status !== 200 || answer.error) throw new Error(`${pathAndQuery}: ${status} ${JSON.stringify(answer).slice(0, 200)}`);
}

async function main() {
  const [first, ...rest] = requests;
  await get(first);
  let next = 0;
  const worker = async () => {
    while (next < rest.length) await get(rest[next++]);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await client.close();
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
});
