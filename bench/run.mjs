#!/usr/bin/env node
/**
 * `npm run bench`: speed, memory, request economy and state recording of portalctl, as ratios
 * measured in one run (see bench/README.md). Prints a table and writes bench/results.json.
 *
 *   node bench/run.mjs [--no-build] [--only startup,cheap,scale,economy,state,fleet] [--keep] [--help]
 *
 * --no-build  use dist/ as it is (default: `npm run build` first, so the figures match the source)
 * --only      run some figure groups only, written to bench/results.only.json (results.json keeps the last full run)
 * --keep      keep the generated files (printed path) instead of removing them
 * --profile DIR  run every portalctl child with --cpu-prof, profiles in DIR (timings then include the profiler)
 * --node-versions 22,24  the other Node majors start-up is measured on (npm's `node` package; "" for none)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startBenchEmulator, summariseLog } from './lib/emulator.mjs';
import { economyOrganization } from './lib/generate.mjs';
import { loadWindow, startLoadSampling, stopLoadSampling } from './lib/load.mjs';
import { cliPath, expectExit, median, NODE_START_VARIABLES, runNode, setChildEnv } from './lib/measure.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = cliPath(root);
const GROUPS = ['startup', 'cheap', 'scale', 'economy', 'state', 'fleet'];
const USAGE = `Usage: node bench/run.mjs [--no-build] [--only ${GROUPS.join(',')}] [--keep] [--profile DIR] [--node-versions 22,24]
(a full run takes about 8 minutes and 4 GB of memory; see bench/README.md)`;
// Strict: a mistyped flag must not start minutes of measuring.
const { values: flags } = (() => {
  try {
    return parseArgs({
      options: {
        'no-build': { type: 'boolean' },
        only: { type: 'string' },
        keep: { type: 'boolean' },
        profile: { type: 'string' },
        'node-versions': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${error.message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const only = flags.only === undefined ? undefined : new Set(flags.only.split(','));
const unknownGroups = [...(only ?? [])].filter((group) => !GROUPS.includes(group));
if (unknownGroups.length > 0) {
  process.stderr.write(`--only: no group ${unknownGroups.join(', ')}\n${USAGE}\n`);
  process.exit(2);
}
const wanted = (group) => !only || only.has(group);

const SEED = 20250601;
const STARTUP_ROUNDS = 15;
const LATENCY_MS = 20;
const PARALLELISM = 8;
const WRITES = 1000;
/** Applies measured per organization of the economy figures (their median is reported). */
const APPLY_ROUNDS = 3;
const TOKEN_ENV = { PORTALCTL_TOKEN: 'admin-token' };

/** The load since the current group began: the default window of its figures. */
let groupWindow = loadWindow();

/** @type {{name: string, measured: number, target: number, comparison: '<=' | '>=' | '==', unit: string, met: boolean, result: string, load: number, note?: string}[]} */
const figures = [];

/**
 * Records a figure against its target. `load` is the machine's load while it was measured
 * (lib/load.mjs; sampled now when not given): a target missed on a loaded machine is reported
 * as "missed, loaded" (measure again on a quiet machine), not as a plain miss.
 */
function figure(name, measured, comparison, target, unit, note, load = groupWindow.end()) {
  const rounded = Math.round(measured * 1000) / 1000;
  const met = comparison === '<=' ? measured <= target : comparison === '>=' ? measured >= target : measured === target;
  const result = met ? 'met' : load.loaded ? 'missed, loaded' : 'MISSED';
  figures.push({ name, measured: rounded, target, comparison, unit, met, result, load: load.load, ...(note ? { note } : {}) });
  log(`  ${met ? 'met ' : 'MISS'} ${name}: ${rounded} ${unit} (target ${comparison} ${target}; load ${load.load})${note ? ` - ${note}` : ''}`);
}

function log(line) {
  process.stderr.write(`${line}\n`);
}

const profileDir = flags.profile === undefined ? undefined : resolve(flags.profile);
const portalctl = (cliArgs, options) => runNode([...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), cli, ...cliArgs], options);

/** Node binaries of the other majors start-up and cheap runs are measured on: npm's `node` package, as .ci/run gets them; looked up once. */
let otherNodesFound;
function otherNodes() {
  if (otherNodesFound) return otherNodesFound;
  const asked = flags['node-versions'] ?? '22,24';
  otherNodesFound = [];
  for (const major of asked.split(',').filter(Boolean)) {
    try {
      const binary = execFileSync('npx', ['--yes', '--package', `node@${major}`, '--', 'node', '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      otherNodesFound.push({ binary, version: execFileSync(binary, ['-p', 'process.version'], { encoding: 'utf8' }).trim() });
    } catch {
      log(`  Node ${major}: could not get the binary from npm (npx -p node@${major}); not measured`);
      skipped.push(`start-up and cheap runs on Node ${major}: no binary from npm`);
    }
  }
  return otherNodesFound;
}

/** This Node and the other majors. */
const allNodes = () => [{ binary: process.execPath, version: process.version }, ...otherNodes()];

/** What could not be measured in this run, and why. */
const skipped = [];

/** Start-up of validate and plan --refresh=false on examples/minimal versus `node -e 0`, on this Node and the other majors. */
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

  for (const node of allNodes()) {
    const run = (nodeArgs) => runNode(nodeArgs, { cwd: dir, node: node.binary });
    const commands = {
      node: () => run(['-e', '0']),
      validate: () => run([cli, 'validate', example, '--no-color']),
      // The emulator is gone: a plan that touched the network would fail.
      plan: () => run([cli, 'plan', example, '--refresh=false', '--portal', portal, '--state', state, '--no-color', '--detailed-exitcode']),
    };
    const order = Object.keys(commands);
    const ratios = { validate: [], plan: [] };
    const window = loadWindow();
    for (let round = 0; round <= STARTUP_ROUNDS; round++) {
      const times = {};
      // Rotate who goes first, so no command always runs on a cold or warm moment.
      for (let i = 0; i < order.length; i++) {
        const name = order[(round + i) % order.length];
        const result = await commands[name]();
        expectExit(result, `${name} (start-up round ${round}, Node ${node.version})`);
        if (name === 'plan' && !result.stdout.includes('No changes')) throw new Error(`plan --refresh=false on examples/minimal should show no changes:\n${result.stdout}`);
        times[name] = result.ms;
      }
      if (round === 0) continue; // warm-up: disk cache, code cache
      ratios.validate.push(times.validate / times.node);
      ratios.plan.push(times.plan / times.node);
    }
    const load = window.end();
    figure(`startup (Node ${node.version}): validate / node -e 0`, median(ratios.validate), '<=', 1.5, 'x', `median of ${STARTUP_ROUNDS} paired runs`, load);
    figure(`startup (Node ${node.version}): plan --refresh=false / node -e 0`, median(ratios.plan), '<=', 1.5, 'x', `median of ${STARTUP_ROUNDS} paired runs`, load);
  }
}

/**
 * Sends the planned requests with `concurrency` plain request loops: with `PARALLELISM`, an
 * ideal client with no work of its own, which shows what the emulator itself allows.
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

/** Reads the API has no list for: a group's category schema, a user's tasks (one per owner). */
const OWNER_READ = /^\/community\/(groups\/[^/]+\/categorySchema|users\/[^/]+\/tasks)$/;
/** The owner a write goes to, for the writes whose object is read per owner. */
const OWNER_WRITE = /^\/community\/(groups\/[^/]+)\/assignCategorySchema$|^\/community\/(users\/[^/]+)\/tasks\/[^/]+\/enable$/;

/** A request log's reads, split into reads per owner (no list in the API) and the rest. */
function readsOf(entries) {
  const reads = entries.filter((entry) => entry.access === 'read');
  const owner = reads.filter((entry) => OWNER_READ.test(entry.path)).length;
  const writtenOwners = new Set(entries.filter((entry) => entry.access === 'write').map((entry) => OWNER_WRITE.exec(entry.path)).filter(Boolean).map((match) => match[1] ?? match[2]));
  return { total: reads.length, owner, listed: reads.length - owner, writtenOwners: writtenOwners.size };
}

/**
 * Plans and applies `generated` against an emulator with latency: the reads of the plan and the
 * apply, the apply's log and time, the second apply's log, and an ideal client's log.
 */
async function economyRun(work, name, generated) {
  const dir = join(work, `economy-${name}`);
  mkdirSync(dir);
  const emulator = await startBenchEmulator(root, { data: generated.data, latencyMs: LATENCY_MS });
  try {
    const configFile = join(dir, 'portalctl.json');
    writeFileSync(configFile, JSON.stringify({ ...generated.config, portal: { ...generated.config.portal, url: emulator.url } }));
    const stateFile = join(dir, 'portalctl.state.json');
    const shared = ['--state', stateFile, '--no-color'];
    log(`  ${name}: ${generated.declared} declared objects (${generated.owners} groups and users read one by one), ${generated.writes} differ from the portal`);

    await emulator.clearRequests();
    const planned = expectExit(await portalctl(['plan', configFile, '--format', 'json', ...shared], { cwd: dir, env: TOKEN_ENV }), `plan (${name})`);
    const plan = JSON.parse(planned.stdout);
    const planRequests = await emulator.requests();
    if (summariseLog(planRequests, LATENCY_MS).writes !== 0) throw new Error(`plan (${name}) sent writes`);
    if (plan.operations.length !== generated.writes) throw new Error(`The plan (${name}) has ${plan.operations.length} operations; the generated data needs ${generated.writes}.`);

    // The apply's time is one run start to exit, which a moment of other work on the machine
    // moves: the median of APPLY_ROUNDS applies, each to a fresh copy of the data with no state.
    const applies = [];
    for (let round = 0; round < APPLY_ROUNDS; round++) {
      if (round > 0) {
        await emulator.reset();
        await emulator.setLatency(LATENCY_MS);
        for (const file of readdirSync(dir)) if (file.startsWith('portalctl.state.json')) rmSync(join(dir, file), { recursive: true });
      }
      await emulator.clearRequests();
      const applied = expectExit(await portalctl(['apply', configFile, '--auto-approve', '--force', '--parallelism', String(PARALLELISM), ...shared], { cwd: dir, env: TOKEN_ENV }), `apply (${name}, round ${round + 1})`);
      const requests = await emulator.requests();
      const summary = summariseLog(requests, LATENCY_MS);
      if (summary.failedWrites) throw new Error(`${summary.failedWrites} writes of the apply (${name}, round ${round + 1}) failed`);
      applies.push({ ms: applied.ms, requests, summary });
    }
    const applyRequests = applies[0].requests;
    if (flags.keep) writeFileSync(join(dir, 'apply-requests.json'), JSON.stringify(applyRequests));
    // Every round sends the same requests; only their timing differs.
    for (const { requests, summary } of applies.slice(1)) {
      if (requests.length !== applyRequests.length || summary.writes !== applies[0].summary.writes) throw new Error(`The applies (${name}) sent different requests: ${applies.map((a) => a.requests.length).join(', ')}`);
    }
    const applyLog = { ...applies[0].summary, writePhaseMs: median(applies.map((a) => a.summary.writePhaseMs)) };
    const applyMs = median(applies.map((a) => a.ms));

    await emulator.clearRequests();
    expectExit(await portalctl(['apply', configFile, '--auto-approve', '--force', '--parallelism', String(PARALLELISM), ...shared], { cwd: dir, env: TOKEN_ENV }), `second apply (${name})`);
    const secondLog = summariseLog(await emulator.requests(), LATENCY_MS);

    // Reference, not a target: an ideal client (PARALLELISM bare request loops in this process)
    // against a fresh copy of the data: how close the emulator itself lets anyone get to the limit.
    await emulator.reset();
    await emulator.setLatency(LATENCY_MS);
    const ideal = await rawWrites(emulator.url, plan.operations, PARALLELISM);
    const idealLog = summariseLog(await emulator.requests(), LATENCY_MS);
    if (ideal.failures || idealLog.writes !== plan.operations.length) throw new Error(`The ideal client sent ${idealLog.writes} writes with ${ideal.failures} failures`);
    return { planReads: readsOf(planRequests), applyReads: readsOf(applyRequests), applyLog, applyMs, secondLog, idealLog };
  } finally {
    await emulator.close();
  }
}

/**
 * Figure 4: reads and writes of plan and apply against the emulator with latency, on two
 * organizations of 1,000 writes each. The mixed one has group schemas and user tasks, which the
 * API cannot list: one read per group or user is the floor there, so its whole apply is set
 * against the floor of the requests it must send. The listed one holds only kinds the API lists;
 * its whole apply is set against the bare limit of its writes.
 */
async function economy(work) {
  log(`Request economy (emulator latency ${LATENCY_MS} ms, --parallelism ${PARALLELISM})`);
  const url = 'http://127.0.0.1:9/portal/sharing/rest';
  const limitMs = Math.ceil(WRITES / PARALLELISM) * LATENCY_MS;

  const mixed = economyOrganization({ seed: SEED, url, writes: WRITES });
  const m = await economyRun(work, 'mixed', mixed);
  const reads = (r) => `${r.total} reads: ${r.listed} through lists, ${r.owner} per group or user`;
  figure('economy: reads per declared object the API lists (plan)', m.planReads.listed / mixed.listed, '<=', 0.1, 'reads', `${reads(m.planReads)}; ${mixed.listed} objects the API lists`);
  figure(
    'economy: reads per declared object the API lists (apply)',
    m.applyReads.listed / mixed.listed,
    '<=',
    0.1,
    'reads',
    `${reads(m.applyReads)}, before and after the writes; ${mixed.listed} objects the API lists`,
  );
  figure('economy: reads per group or user the API cannot list (plan)', m.planReads.owner / mixed.owners, '<=', 1, 'reads', `${m.planReads.owner} reads for ${mixed.owners} groups and users`);
  figure(
    'economy: reads per group or user the API cannot list (apply)',
    m.applyReads.owner / (mixed.owners + m.applyReads.writtenOwners),
    '<=',
    1,
    'reads',
    `${m.applyReads.owner} reads for ${mixed.owners} groups and users before the writes and the ${m.applyReads.writtenOwners} written to, after`,
  );
  figure('economy: writes sent by apply', m.applyLog.writes, '==', mixed.writes, 'writes', `needed: the plan's ${mixed.writes} operations`);
  figure('economy: writes sent by a second apply', m.secondLog.writes, '==', 0, 'writes');
  const requests = m.applyReads.total + m.applyLog.writes;
  const floorMs = Math.ceil(requests / PARALLELISM) * LATENCY_MS;
  figure(
    'economy: whole apply / request floor, mixed kinds',
    m.applyMs / floorMs,
    '<=',
    1.5,
    'x',
    `${Math.round(m.applyMs)} ms, start to exit (median of ${APPLY_ROUNDS}); floor ceil(${requests} requests / ${PARALLELISM}) x ${LATENCY_MS} ms = ${floorMs} ms; ${(m.applyMs / limitMs).toFixed(2)} x the writes-only limit of ${limitMs} ms`,
  );
  figure(
    'economy: apply write phase / limit',
    m.applyLog.writePhaseMs / limitMs,
    '<=',
    1.2,
    'x',
    `${Math.round(m.applyLog.writePhaseMs)} ms from first write received to last answered (median of ${APPLY_ROUNDS}); an ideal client (${PARALLELISM} bare request loops) takes ${Math.round(m.idealLog.writePhaseMs)} ms = ${(m.idealLog.writePhaseMs / limitMs).toFixed(2)} x the limit against the same emulator`,
  );

  const listed = economyOrganization({ seed: SEED, url, groups: 0, users: 0, items: 2000, roles: 150, writes: WRITES, changed: { group: 0, task: 0, role: 78 } });
  const l = await economyRun(work, 'listed', listed);
  figure(
    'economy: whole apply / limit, kinds the API lists',
    l.applyMs / limitMs,
    '<=',
    1.5,
    'x',
    `${Math.round(l.applyMs)} ms, start to exit (median of ${APPLY_ROUNDS}), with ${l.applyReads.total} reads for ${listed.declared} objects; limit ceil(${WRITES}/${PARALLELISM}) x ${LATENCY_MS} ms = ${limitMs} ms; an ideal client's write phase alone is ${(l.idealLog.writePhaseMs / limitMs).toFixed(2)} x`,
  );
}

function table(rows) {
  const header = ['figure', 'measured', 'target', 'load', 'result'];
  const body = rows.map((f) => [f.name, `${f.measured} ${f.unit}`, `${f.comparison} ${f.target} ${f.unit}`, String(f.load), f.result]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main() {
  const started = Date.now();
  if (!flags['no-build']) {
    log('Building (npm run build)...');
    try {
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      throw new Error('`npm run build` failed (output above): fix the build, or pass --no-build to measure dist/ as it is.');
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'portalctl-bench-'));
  // The run's own code cache (filled by each group's first run), so that caches of other builds
  // or users on the machine neither help nor evict it.
  setChildEnv({ XDG_CACHE_HOME: join(work, 'cache') });
  const removed = NODE_START_VARIABLES.filter((name) => process.env[name] !== undefined);
  if (removed.length > 0) log(`Measured without ${removed.join(' and ')} (set here): they change Node's own start (lib/measure.mjs)`);
  startLoadSampling();
  const context = { root, work, figure, log, portalctl, nodes: allNodes, keep: flags.keep === true };
  let scalingTable = '';
  let scalingRows;
  const group = async (name, run) => {
    if (!wanted(name)) return;
    groupWindow = loadWindow();
    await run();
  };
  try {
    await group('startup', () => startup(work));
    await group('cheap', async () => (await import('./cheap-runs.mjs')).cheapRuns(context));
    await group('scale', async () => ({ rows: scalingRows, table: scalingTable } = await (await import('./scale.mjs')).organizationScale(context)));
    await group('economy', () => economy(work));
    await group('state', async () => (await import('./state-recording.mjs')).stateRecording(work, context));
    await group('fleet', async () => (await import('./fleet.mjs')).fleetFigures(work, context));
  } finally {
    stopLoadSampling();
    if (context.keep) log(`Generated files kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, memory: `${Math.round(totalmem() / 1024 ** 3)} GB`, cpu: cpus()[0]?.model ?? 'unknown' },
    figures,
    ...(scalingRows ? { scaling: scalingRows } : {}),
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  // A partial run goes beside the full run's figures, which the README's table comes from.
  const resultsFile = only ? 'results.only.json' : 'results.json';
  writeFileSync(join(root, 'bench', resultsFile), `${JSON.stringify(results, null, 2)}\n`);
  const met = figures.filter((f) => f.met).length;
  const loadedMisses = figures.filter((f) => !f.met && f.result !== 'MISSED').length;
  process.stdout.write(
    `${table(figures)}\n\n${scalingTable ? `${scalingTable}\n\n` : ''}${skipped.length ? `Not measured: ${skipped.join('; ')}\n` : ''}` +
      `${met} of ${figures.length} targets met${loadedMisses ? ` (${loadedMisses} missed while the machine was loaded: measure again on a quiet machine)` : ''} in ${Math.round((Date.now() - started) / 1000)} s; written to bench/${resultsFile}\n`,
  );
  if (figures.some((f) => !f.met)) process.exitCode = 1;
}

main().catch((error) => {
  log(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exitCode = 1;
});
