#!/usr/bin/env node
/**
 * `npm run bench`: speed, memory and request economy of portalctl, as ratios measured in one
 * run (see bench/README.md). Prints a table and writes bench/results.json.
 *
 *   node bench/run.mjs [--no-build] [--only startup,large,economy] [--keep]
 *
 * --no-build  use dist/ as it is (default: `npm run build` first, so the figures match the source)
 * --only      run some figure groups only (results.json then holds only those)
 * --keep      keep the generated files (printed path) instead of removing them
 * --profile DIR  run every portalctl child with --cpu-prof, profiles in DIR (timings then include the profiler)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startBenchEmulator, summariseLog } from './lib/emulator.mjs';
import { economyOrganization, largeOrganization } from './lib/generate.mjs';
import { cliPath, expectExit, median, runNode } from './lib/measure.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = cliPath(root);
const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set((args[args.indexOf('--only') + 1] ?? '').split(',')) : undefined;
const wanted = (group) => !only || only.has(group);

const SEED = 20250601;
const STARTUP_ROUNDS = 15;
const LARGE_ROUNDS = 5;
const LATENCY_MS = 20;
const PARALLELISM = 8;
const WRITES = 1000;
const TOKEN_ENV = { PORTALCTL_TOKEN: 'admin-token' };

/** @type {{name: string, measured: number, target: number, comparison: '<=' | '>=' | '==', unit: string, met: boolean, note?: string}[]} */
const figures = [];

function figure(name, measured, comparison, target, unit, note) {
  const rounded = Math.round(measured * 1000) / 1000;
  const met = comparison === '<=' ? measured <= target : comparison === '>=' ? measured >= target : measured === target;
  figures.push({ name, measured: rounded, target, comparison, unit, met, ...(note ? { note } : {}) });
  log(`  ${met ? 'met ' : 'MISS'} ${name}: ${rounded} ${unit} (target ${comparison} ${target})${note ? ` - ${note}` : ''}`);
}

function log(line) {
  process.stderr.write(`${line}\n`);
}

const profileDir = args.includes('--profile') ? resolve(args[args.indexOf('--profile') + 1] ?? 'bench-profiles') : undefined;
const portalctl = (cliArgs, options) => runNode([...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), cli, ...cliArgs], options);

/** Figure 1: start-up of validate and plan --refresh=false on examples/minimal versus `node -e 0`. */
async function startup(work) {
  log('Start-up (examples/minimal)');
  const dir = join(work, 'minimal');
  mkdirSync(dir);
  const state = join(dir, 'portalctl.state.json');
  const example = join(root, 'examples', 'minimal');

  // A real recorded state: apply the example once to an emulator of the sample organization.
  const emulator = await startBenchEmulator(root, { data: join(root, 'examples', 'emulator', 'portal.yaml') });
  const portal = emulator.url;
  try {
    expectExit(await portalctl(['apply', example, '--portal', portal, '--state', state, '--auto-approve', '--no-color'], { cwd: dir, env: TOKEN_ENV }), 'apply examples/minimal');
  } finally {
    await emulator.close();
  }

  const commands = {
    node: () => runNode(['-e', '0'], { cwd: dir }),
    validate: () => portalctl(['validate', example, '--no-color'], { cwd: dir }),
    // The emulator is gone: a plan that touched the network would fail.
    plan: () => portalctl(['plan', example, '--refresh=false', '--portal', portal, '--state', state, '--no-color', '--detailed-exitcode'], { cwd: dir }),
  };
  const order = Object.keys(commands);
  const ratios = { validate: [], plan: [] };
  for (let round = 0; round <= STARTUP_ROUNDS; round++) {
    const times = {};
    // Rotate who goes first, so no command always runs on a cold or warm moment.
    for (let i = 0; i < order.length; i++) {
      const name = order[(round + i) % order.length];
      const result = await commands[name]();
      expectExit(result, `${name} (start-up round ${round})`);
      if (name === 'plan' && !result.stdout.includes('No changes')) throw new Error(`plan --refresh=false on examples/minimal should show no changes:\n${result.stdout}`);
      times[name] = result.ms;
    }
    if (round === 0) continue; // warm-up: disk cache, compile cache
    ratios.validate.push(times.validate / times.node);
    ratios.plan.push(times.plan / times.node);
  }
  figure('startup: validate / node -e 0', median(ratios.validate), '<=', 2, 'x', `median of ${STARTUP_ROUNDS} paired runs`);
  figure('startup: plan --refresh=false / node -e 0', median(ratios.plan), '<=', 2, 'x', `median of ${STARTUP_ROUNDS} paired runs`);
}

/** Figure 2: plan --refresh=false over a large organization versus JSON.parse of the same files. */
async function large(work) {
  log('Large organization (plan --refresh=false)');
  const dir = join(work, 'large');
  mkdirSync(dir);
  const url = 'http://127.0.0.1:9/portal/sharing/rest';
  const generated = largeOrganization({ seed: SEED, url });
  const configFile = join(dir, 'portalctl.json');
  const stateFile = join(dir, 'portalctl.state.json');
  writeFileSync(configFile, JSON.stringify(generated.config));
  writeFileSync(stateFile, `${JSON.stringify(generated.state, null, 2)}\n`);
  log(`  ${generated.declared} declared objects, ${generated.changes.total} recorded differently (expected plan operations)`);

  const parse = () =>
    runNode(['-e', 'const fs = require("node:fs"); for (const file of process.argv.slice(1)) JSON.parse(fs.readFileSync(file, "utf8"));', configFile, stateFile], { cwd: dir });
  const maxRssFile = join(dir, 'maxrss');
  const plan = () => portalctl(['plan', configFile, '--refresh=false', '--state', stateFile, '--no-color'], { cwd: dir, maxRssFile });

  const ratios = [];
  let peakKb = 0;
  let planMs = [];
  for (let round = 0; round <= LARGE_ROUNDS; round++) {
    const first = round % 2 === 0 ? parse : plan;
    const second = first === parse ? plan : parse;
    const a = await first();
    const b = await second();
    const [parsed, planned] = first === parse ? [a, b] : [b, a];
    expectExit(parsed, 'JSON.parse baseline');
    expectExit(planned, 'plan --refresh=false (large organization)');
    const summary = /Plan: (\d+) to create, (\d+) to update, (\d+) to delete/.exec(planned.stdout);
    const operations = summary ? Number(summary[1]) + Number(summary[2]) + Number(summary[3]) : 0;
    if (operations !== generated.changes.total) throw new Error(`The large plan has ${operations} operations, expected ${generated.changes.total}:\n${planned.stdout.slice(0, 2000)}`);
    peakKb = Math.max(peakKb, planned.maxRssKb);
    if (round === 0) continue;
    ratios.push(planned.ms / parsed.ms);
    planMs.push(planned.ms);
  }
  figure('large org: plan --refresh=false / JSON.parse', median(ratios), '<=', 10, 'x', `median of ${LARGE_ROUNDS} paired runs; plan median ${Math.round(median(planMs))} ms; ${generated.changes.total} changes`);
  figure('large org: plan peak RSS', peakKb / 1024, '<=', 1024, 'MB', `max over ${LARGE_ROUNDS + 1} runs`);
}

/**
 * Sends the planned requests with `concurrency` plain request loops: 1 is the naive baseline
 * (one after another); `PARALLELISM` is an ideal client with no work of its own, which shows
 * what the emulator itself allows.
 */
async function rawWrites(url, operations, concurrency) {
  let failures = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  const loop = async () => {
    while (next < operations.length) {
      const op = operations[next++];
      const form = new URLSearchParams(op.request.form);
      form.set('f', 'json');
      const answer = await request(`${url}${op.request.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${TOKEN_ENV.PORTALCTL_TOKEN}` },
        body: form.toString(),
      });
      const body = await answer.body.json();
      if (answer.statusCode !== 200 || body.error) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, failures };
}

/** Figures 3 and 4: reads and writes against the emulator with latency, and the naive loop. */
async function economy(work) {
  log(`Request economy (emulator latency ${LATENCY_MS} ms)`);
  const dir = join(work, 'economy');
  mkdirSync(dir);
  const placeholder = 'http://127.0.0.1:9/portal/sharing/rest';
  const generated = economyOrganization({ seed: SEED, url: placeholder, writes: WRITES });
  const emulator = await startBenchEmulator(root, { data: generated.data, latencyMs: LATENCY_MS });
  try {
    const configFile = join(dir, 'portalctl.json');
    writeFileSync(configFile, JSON.stringify({ ...generated.config, portal: { ...generated.config.portal, url: emulator.url } }));
    const stateFile = join(dir, 'portalctl.state.json');
    const shared = ['--state', stateFile, '--no-color'];
    log(`  ${generated.declared} declared objects, ${generated.writes} differ from the portal`);

    await emulator.clearRequests();
    const planned = expectExit(await portalctl(['plan', configFile, '--format', 'json', ...shared], { cwd: dir, env: TOKEN_ENV }), 'plan (economy)');
    const plan = JSON.parse(planned.stdout);
    const planLog = summariseLog(await emulator.requests(), LATENCY_MS);
    if (planLog.writes !== 0) throw new Error(`plan sent ${planLog.writes} writes`);
    const needed = plan.operations.length;
    if (needed !== generated.writes) throw new Error(`The plan has ${needed} operations; the generated data needs ${generated.writes}.`);
    figure('economy: reads per declared object (plan)', planLog.reads / generated.declared, '<=', 1, 'reads', `${planLog.reads} reads for ${generated.declared} objects`);

    await emulator.clearRequests();
    const applied = expectExit(await portalctl(['apply', configFile, '--auto-approve', '--parallelism', String(PARALLELISM), ...shared], { cwd: dir, env: TOKEN_ENV }), 'apply (economy)');
    const applyRequests = await emulator.requests();
    if (args.includes('--keep')) writeFileSync(join(dir, 'apply-requests.json'), JSON.stringify(applyRequests));
    const applyLog = summariseLog(applyRequests, LATENCY_MS);
    if (applyLog.failedWrites) throw new Error(`${applyLog.failedWrites} writes of the apply failed`);
    figure('economy: writes sent by apply', applyLog.writes, '==', needed, 'writes', `needed: the plan's ${needed} operations`);
    const limitMs = Math.ceil(needed / PARALLELISM) * LATENCY_MS;
    const writePhaseFigure = figures.length;
    figure(
      'economy: apply write phase / limit',
      applyLog.writePhaseMs / limitMs,
      '<=',
      1.2,
      'x',
      `${Math.round(applyLog.writePhaseMs)} ms from first write received to last answered; limit ceil(${needed}/${PARALLELISM}) x ${LATENCY_MS} ms = ${limitMs} ms; ` +
        `whole apply ${Math.round(applied.ms)} ms with ${applyLog.reads} reads (refresh before, re-plan after)`,
    );

    await emulator.clearRequests();
    expectExit(await portalctl(['apply', configFile, '--auto-approve', '--parallelism', String(PARALLELISM), ...shared], { cwd: dir, env: TOKEN_ENV }), 'second apply (economy)');
    const secondLog = summariseLog(await emulator.requests(), LATENCY_MS);
    figure('economy: writes sent by a second apply', secondLog.writes, '==', 0, 'writes');

    // Reference, not a target: an ideal client (PARALLELISM bare request loops in this process)
    // against a fresh copy of the data: how close the emulator itself lets anyone get to the limit.
    await emulator.reset();
    await emulator.setLatency(LATENCY_MS);
    const ideal = await rawWrites(emulator.url, plan.operations, PARALLELISM);
    const idealLog = summariseLog(await emulator.requests(), LATENCY_MS);
    if (ideal.failures || idealLog.writes !== needed) throw new Error(`The ideal client sent ${idealLog.writes} writes with ${ideal.failures} failures`);
    figures[writePhaseFigure].note += `; an ideal client (${PARALLELISM} bare request loops) takes ${Math.round(idealLog.writePhaseMs)} ms = ${(idealLog.writePhaseMs / limitMs).toFixed(2)} x the limit against the same emulator`;
    log(`  reference: ideal client write phase ${Math.round(idealLog.writePhaseMs)} ms (${(idealLog.writePhaseMs / limitMs).toFixed(2)} x the limit)`);

    // Figure 4: the same writes from a plain sequential loop, against a fresh copy of the data.
    await emulator.reset();
    await emulator.setLatency(LATENCY_MS);
    const naive = await rawWrites(emulator.url, plan.operations, 1);
    const naiveLog = summariseLog(await emulator.requests(), LATENCY_MS);
    if (naive.failures || naiveLog.writes !== needed) throw new Error(`The naive loop sent ${naiveLog.writes} writes with ${naive.failures} failures`);
    figure(
      'baseline: speed-up of apply writes over a sequential loop',
      naive.ms / applyLog.writePhaseMs,
      '>=',
      Math.round((PARALLELISM / 1.2) * 100) / 100,
      'x',
      `loop ${Math.round(naive.ms)} ms for ${needed} writes; target = parallelism / 1.2, implied by the write-phase target`,
    );
  } finally {
    await emulator.close();
  }
}

function table(rows) {
  const header = ['figure', 'measured', 'target', 'met'];
  const body = rows.map((f) => [f.name, `${f.measured} ${f.unit}`, `${f.comparison} ${f.target} ${f.unit}`, f.met ? 'yes' : 'no']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main() {
  const started = Date.now();
  if (!args.includes('--no-build')) {
    log('Building (npm run build)...');
    try {
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      throw new Error('`npm run build` failed (output above): fix the build, or pass --no-build to measure dist/ as it is.');
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'portalctl-bench-'));
  try {
    if (wanted('startup')) await startup(work);
    if (wanted('large')) await large(work);
    if (wanted('economy')) await economy(work);
    if (wanted('state')) await (await import('./state-recording.mjs')).stateRecording(work, { root, figure, log });
  } finally {
    if (args.includes('--keep')) log(`Generated files kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, memory: `${Math.round(totalmem() / 1024 ** 3)} GB`, cpu: cpus()[0]?.model ?? 'unknown' },
    figures,
  };
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${table(figures)}\n\n${figures.filter((f) => f.met).length} of ${figures.length} targets met in ${Math.round((Date.now() - started) / 1000)} s; written to bench/results.json\n`);
  if (figures.some((f) => !f.met)) process.exitCode = 1;
}

main().catch((error) => {
  log(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exitCode = 1;
});
