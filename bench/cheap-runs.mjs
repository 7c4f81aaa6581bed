/**
 * Cheap runs: the CPU time of `portalctl drift examples/full` against the emulator (its sample
 * organization, after one apply), against the CPU time of `node -e 0`. A sweep of many small
 * portals is made of such runs, so what a run costs beyond Node's own start is what matters.
 * CPU (user + system, from the child's own resourceUsage) rather than wall time: the emulator's
 * answers and the network are not the CLI's cost. Target <= 2.5x.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchEmulator } from './lib/emulator.mjs';
import { expectExit, median, runNode } from './lib/measure.mjs';

const ROUNDS = 15;
const TARGET = 2.5;
const TOKEN_ENV = { PORTALCTL_TOKEN: 'admin-token' };

export async function cheapRuns({ root, work, figure, log, portalctl }) {
  log('Cheap runs (drift examples/full against the emulator, CPU time)');
  const dir = join(work, 'cheap');
  mkdirSync(dir);
  const usage = join(dir, 'usage');
  const example = join(root, 'examples', 'full');
  const emulator = await startBenchEmulator(root, { data: join(root, 'examples', 'emulator', 'portal.yaml') });
  try {
    const shared = ['--portal', emulator.url, '--state', join(dir, 'portalctl.state.json'), '--no-color'];
    expectExit(await portalctl(['apply', example, ...shared, '--auto-approve', '--invites-dir', join(dir, 'invites')], { cwd: dir, env: TOKEN_ENV }), 'apply examples/full');
    const commands = {
      node: () => runNode(['-e', '0'], { cwd: dir, maxRssFile: usage }),
      drift: () => portalctl(['drift', example, ...shared], { cwd: dir, env: TOKEN_ENV, maxRssFile: usage }),
    };
    const ratios = [];
    const cpu = { node: [], drift: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      const order = round % 2 === 0 ? ['node', 'drift'] : ['drift', 'node'];
      const used = {};
      for (const name of order) {
        const result = expectExit(await commands[name](), `${name} (round ${round})`);
        if (name === 'drift' && !result.stdout.includes('In sync')) throw new Error(`drift right after apply should find none:\n${result.stdout}`);
        used[name] = result.cpuMs;
      }
      if (round === 0) continue; // warm-up: the code cache of drift's bundles
      ratios.push(used.drift / used.node);
      cpu.node.push(used.node);
      cpu.drift.push(used.drift);
    }
    figure(
      'cheap runs: drift examples/full CPU / node -e 0 CPU',
      median(ratios),
      '<=',
      TARGET,
      'x',
      `median of ${ROUNDS} paired runs; drift ${Math.round(median(cpu.drift))} ms, node -e 0 ${Math.round(median(cpu.node))} ms of CPU`,
    );
  } finally {
    await emulator.close();
  }
}
