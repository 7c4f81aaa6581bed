/**
 * Cheap runs: the CPU time of `portalctl drift examples/full` against the emulator (its sample
 * organization, after one apply), against the CPU time of `node -e 0`. A sweep of many small
 * portals is made of such runs, so what a run costs beyond Node's own start is what matters.
 * CPU (user + system, from the child's own resourceUsage) rather than wall time: the emulator's
 * answers and the network are not the CLI's cost. Target <= 2.5x, on Node 20, 22 and 24 (each
 * V8 compiles undici's WebAssembly differently: see the launcher). Each figure's note also gives
 * the floor of the same requests sent by undici's Agent alone, and by Node's own http module
 * (lib/http-floor.cjs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchEmulator } from './lib/emulator.mjs';
import { loadWindow } from './lib/load.mjs';
import { expectExit, median, runNode } from './lib/measure.mjs';

const ROUNDS = 15;
const TARGET = 2.5;
const TOKEN = 'admin-token';
const TOKEN_ENV = { PORTALCTL_TOKEN: TOKEN };
const FLOOR_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'http-floor.cjs');

/** The requests of one drift, from the emulator's log, for the floor script. */
async function driftRequests(emulator, drift) {
  await emulator.clearRequests();
  expectExit(await drift(), 'drift (its requests, for the floor)');
  const requests = (await emulator.requests()).map((entry) => {
    if (entry.method !== 'GET') throw new Error(`drift sent ${entry.method} ${entry.path}`);
    const query = new URLSearchParams(entry.params).toString();
    return `${entry.path}${query ? `?${query}` : ''}`;
  });
  return { root: emulator.url, token: TOKEN, requests };
}

export async function cheapRuns({ root, work, figure, log, portalctl, nodes }) {
  log('Cheap runs (drift examples/full against the emulator, CPU time)');
  const dir = join(work, 'cheap');
  mkdirSync(dir);
  const usage = join(dir, 'usage');
  const example = join(root, 'examples', 'full');
  const emulator = await startBenchEmulator(root, { data: join(root, 'examples', 'emulator', 'portal.yaml') });
  try {
    const shared = ['--portal', emulator.url, '--state', join(dir, 'portalctl.state.json'), '--no-color'];
    expectExit(await portalctl(['apply', example, ...shared, '--auto-approve', '--invites-dir', join(dir, 'invites')], { cwd: dir, env: TOKEN_ENV }), 'apply examples/full');
    const requestsFile = join(dir, 'drift-requests.json');
    const { requests } = await driftRequests(emulator, () => portalctl(['drift', example, ...shared], { cwd: dir, env: TOKEN_ENV }));
    writeFileSync(requestsFile, JSON.stringify({ root: emulator.url, token: TOKEN, requests }));
    for (const node of nodes()) {
      const floorCache = join(dir, `undici-floor-${node.version}.cache`);
      const commands = {
        node: () => runNode(['-e', '0'], { cwd: dir, maxRssFile: usage, node: node.binary }),
        drift: () => portalctl(['drift', example, ...shared], { cwd: dir, env: TOKEN_ENV, maxRssFile: usage, node: node.binary }),
        undiciFloor: () => runNode([FLOOR_SCRIPT, 'undici', join(root, 'dist', 'bin', 'undici.cjs'), requestsFile, floorCache], { cwd: dir, maxRssFile: usage, node: node.binary }),
        nodeHttpFloor: () => runNode([FLOOR_SCRIPT, 'node:http', requestsFile], { cwd: dir, maxRssFile: usage, node: node.binary }),
      };
      const order = Object.keys(commands);
      const ratios = { drift: [], undiciFloor: [], nodeHttpFloor: [] };
      const cpu = { node: [], drift: [], undiciFloor: [], nodeHttpFloor: [] };
      const window = loadWindow();
      for (let round = 0; round <= ROUNDS; round++) {
        const used = {};
        // Rotate who goes first, so no command always runs on a cold or warm moment.
        for (let i = 0; i < order.length; i++) {
          const name = order[(round + i) % order.length];
          const result = expectExit(await commands[name](), `${name} (round ${round}, Node ${node.version})`);
          if (name === 'drift' && !result.stdout.includes('In sync')) throw new Error(`drift right after apply should find none:\n${result.stdout}`);
          used[name] = result.cpuMs;
        }
        if (round === 0) continue; // warm-up: the code caches of drift's bundles and of the floor's undici
        for (const name of order) cpu[name].push(used[name]);
        for (const name of Object.keys(ratios)) ratios[name].push(used[name] / used.node);
      }
      const floorText = (name) => `${Math.round(median(cpu[name]))} ms (${median(ratios[name]).toFixed(2)}x)`;
      figure(
        `cheap runs (Node ${node.version}): drift examples/full CPU / node -e 0 CPU`,
        median(ratios.drift),
        '<=',
        TARGET,
        'x',
        `median of ${ROUNDS} paired runs; drift ${Math.round(median(cpu.drift))} ms, node -e 0 ${Math.round(median(cpu.node))} ms of CPU; ` +
          `undici's Agent alone sending drift's ${requests.length} requests ${floorText('undiciFloor')}; Node's own http module sending them ${floorText('nodeHttpFloor')}`,
        window.end(),
      );
    }
  } finally {
    await emulator.close();
  }
}
