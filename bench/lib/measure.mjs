/**
 * Running children and summarising timings. Every figure is a ratio of two wall times taken
 * on the same machine in the same run, so machine speed and noise largely cancel out.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const MAXRSS_PRELOAD = new URL('./maxrss.cjs', import.meta.url).pathname;

/**
 * Runs `node ...args` (or `node` = another Node binary) and resolves with its wall time (spawn
 * to exit, in ms), exit code and output. With `maxRssFile`, the child reports its peak RSS (kB)
 * and its CPU time (ms, user + system) through the preload.
 */
export function runNode(args, { cwd, env = {}, maxRssFile, node = process.execPath } = {}) {
  const nodeArgs = maxRssFile ? ['--require', MAXRSS_PRELOAD, ...args] : args;
  const childEnv = { ...withoutNodeStartVariables(process.env), ...sharedEnv, ...env, ...(maxRssFile ? { BENCH_MAXRSS_FILE: maxRssFile } : {}) };
  if (maxRssFile) rmSync(maxRssFile, { force: true });
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, nodeArgs, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const result = { ms, code, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (maxRssFile) {
        const [maxRss, cpu] = readFileSync(maxRssFile, 'utf8').split(' ').map(Number);
        result.maxRssKb = maxRss;
        result.cpuMs = cpu / 1000;
      }
      resolve(result);
    });
  });
}

/**
 * Variables that change what Node itself does at start, kept from every child: a fixed cost added
 * to both sides of a ratio hides what portalctl adds to Node's start. NODE_EXTRA_CA_CERTS makes
 * Node 20 read and parse a certificate bundle at every start (Node 22 and 24 read it when TLS is
 * first used): on a machine that set it, `node -e 0` took 60 ms and 60 ms of CPU instead of 30
 * and 23, and the start-up and cheap-run ratios on Node 20 read about half of what they are.
 */
export const NODE_START_VARIABLES = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];

function withoutNodeStartVariables(env) {
  const kept = { ...env };
  for (const name of NODE_START_VARIABLES) delete kept[name];
  return kept;
}

/** Environment every child gets (the run's own code cache directory, set by the runner). */
const sharedEnv = {};
export function setChildEnv(env) {
  Object.assign(sharedEnv, env);
}

/** Throws with the child's output when it did not exit with one of `codes`. */
export function expectExit(result, what, codes = [0]) {
  if (!codes.includes(result.code)) {
    const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${what} exited with ${result.code ?? result.signal} (expected ${codes.join(' or ')}):\n${output}`);
  }
  return result;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function cliPath(root) {
  return join(root, 'dist', 'bin', 'portalctl.js');
}
