#!/usr/bin/env node
/**
 * `npm run bench`: speed, memory and request economy of portalctl, as ratios measured in one
 * run (see bench/README.md). Prints a table and writes bench/results.json.
 *
 *   node bench/run.mjs [--no-build] [--only startup,large,scaling,economy,state,fleet] [--keep]
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
import { stringify } from 'yaml';
import { economyOrganization, largeOrganization, recordedStateText, yamlDirectory } from './lib/generate.mjs';
import { cliPath, expectExit, median, runNode } from './lib/measure.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = cliPath(root);
const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set((args[args.indexOf('--only') + 1] ?? '').split(',')) : undefined;
const wanted = (group) => !only || only.has(group);

const SEED = 20250601;
const STARTUP_ROUNDS = 15;
const LARGE_ROUNDS = 3;
/** Fractions of the large organization for the scaling table. */
const SCALES = [1 / 8, 1 / 4, 1 / 2, 1];
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
  figure('startup: validate / node -e 0', median(ratios.validate), '<=', 1.5, 'x', `median of ${STARTUP_ROUNDS} paired runs`);
  figure('startup: plan --refresh=false / node -e 0', median(ratios.plan), '<=', 1.5, 'x', `median of ${STARTUP_ROUNDS} paired runs`);
}

const LARGE_URL = 'http://127.0.0.1:9/portal/sharing/rest';

/**
 * Writes the large organization (scaled by `scale`) as people write it: a directory of five
 * block-style YAML files with comments, the same config as one JSON file, and a recorded state
 * (outside the YAML directory, as portalctl writes it).
 */
async function writeLargeOrganization(dir, scale = 1) {
  mkdirSync(dir, { recursive: true });
  const size = (count) => Math.max(1, Math.round(count * scale));
  const generated = largeOrganization({ seed: SEED, url: LARGE_URL, groups: size(1000), items: size(50_000), users: size(5_000), tasksPerUser: 2, roles: size(500) });
  const yamlDir = join(dir, 'config');
  mkdirSync(yamlDir);
  for (const [name, text] of Object.entries(yamlDirectory(generated.config, stringify))) writeFileSync(join(yamlDir, name), text);
  const jsonFile = join(dir, 'portalctl.json');
  writeFileSync(jsonFile, JSON.stringify(generated.config));
  const stateFile = join(dir, 'portalctl.state.json');
  writeFileSync(stateFile, await recordedStateText(generated.state));
  return { ...generated, yamlDir, jsonFile, stateFile };
}

/** The honest floor: `node -e` reading and JSON.parse-ing the config data alone (no state). */
function bareParse(jsonFile, cwd) {
  return runNode(['-e', 'JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));', jsonFile], { cwd });
}

function planOperations(result) {
  const summary = /Plan: (\d+) to create, (\d+) to update, (\d+) to delete/.exec(result.stdout);
  return summary ? Number(summary[1]) + Number(summary[2]) + Number(summary[3]) : 0;
}

/** Figure 2: validate and plan --refresh=false over a large organization, YAML directory and JSON, versus a bare JSON.parse. */
async function large(work) {
  log('Large organization (validate, plan --refresh=false)');
  const dir = join(work, 'large');
  const generated = await writeLargeOrganization(dir);
  log(`  ${generated.declared} declared objects, ${generated.changes.total} recorded differently (expected plan operations)`);
  const maxRssFile = join(dir, 'maxrss');
  const commands = {
    'validate, YAML directory': () => portalctl(['validate', generated.yamlDir, '--no-color'], { cwd: dir, maxRssFile }),
    'validate, JSON': () => portalctl(['validate', generated.jsonFile, '--no-color'], { cwd: dir, maxRssFile }),
    'plan --refresh=false, YAML directory': () => portalctl(['plan', generated.yamlDir, '--refresh=false', '--state', generated.stateFile, '--no-color'], { cwd: dir, maxRssFile }),
    'plan --refresh=false, JSON': () => portalctl(['plan', generated.jsonFile, '--refresh=false', '--state', generated.stateFile, '--no-color'], { cwd: dir, maxRssFile }),
  };
  const targets = {
    'validate, YAML directory': 10,
    'validate, JSON': 10,
    'plan --refresh=false, YAML directory': 10,
    'plan --refresh=false, JSON': 5,
  };
  for (const [name, command] of Object.entries(commands)) {
    const ratios = [];
    const times = [];
    let peakKb = 0;
    for (let round = 0; round <= LARGE_ROUNDS; round++) {
      // Alternate who goes first, so neither always runs on a cold or warm moment.
      const parseFirst = round % 2 === 0;
      const parsed = parseFirst ? await bareParse(generated.jsonFile, dir) : undefined;
      const measured = await command();
      const parsedAfter = parsed ?? (await bareParse(generated.jsonFile, dir));
      expectExit(parsedAfter, 'JSON.parse baseline');
      expectExit(measured, name);
      if (name.startsWith('plan')) {
        const operations = planOperations(measured);
        if (operations !== generated.changes.total) throw new Error(`${name} shows ${operations} operations, expected ${generated.changes.total}:\n${measured.stdout.slice(0, 2000)}`);
      } else if (!measured.stdout.includes(`Valid: ${generated.declared} managed objects`)) {
        throw new Error(`${name} did not report ${generated.declared} valid objects:\n${measured.stdout.slice(0, 2000)}`);
      }
      peakKb = Math.max(peakKb, measured.maxRssKb);
      if (round === 0) continue;
      ratios.push(measured.ms / parsedAfter.ms);
      times.push({ command: measured.ms, parse: parsedAfter.ms });
    }
    const commandMs = Math.round(median(times.map((t) => t.command)));
    const parseMs = Math.round(median(times.map((t) => t.parse)));
    figure(`large org: ${name} / JSON.parse`, median(ratios), '<=', targets[name], 'x', `median of ${LARGE_ROUNDS} paired runs; command ${commandMs} ms, bare JSON.parse ${parseMs} ms`);
    figure(`large org: ${name}, peak RSS`, peakKb / 1024, '<=', 512, 'MB', `max over ${LARGE_ROUNDS + 1} runs`);
  }
}

/** Figure 3: time and peak memory of validate and plan (YAML directory) at 1/8, 1/4, 1/2 and 1x of the large organization. */
async function scaling(work) {
  log('Scaling (YAML directory at 1/8, 1/4, 1/2, 1x)');
  const rows = [];
  for (const scale of SCALES) {
    const dir = join(work, `scale-${scale}`);
    const generated = await writeLargeOrganization(dir, scale);
    const maxRssFile = join(dir, 'maxrss');
    const row = { scale, declared: generated.declared };
    for (const [name, args] of [
      ['validate', ['validate', generated.yamlDir, '--no-color']],
      ['plan', ['plan', generated.yamlDir, '--refresh=false', '--state', generated.stateFile, '--no-color']],
    ]) {
      const runs = [];
      for (let round = 0; round < 2; round++) runs.push(expectExit(await portalctl(args, { cwd: dir, maxRssFile }), `${name} at ${scale}`));
      row[`${name}Ms`] = Math.round(Math.min(...runs.map((r) => r.ms)));
      row[`${name}RssMb`] = Math.round(Math.max(...runs.map((r) => r.maxRssKb)) / 1024);
    }
    rows.push(row);
    log(`  ${String(scale).padEnd(6)} ${String(row.declared).padStart(6)} objects: validate ${row.validateMs} ms ${row.validateRssMb} MB; plan ${row.planMs} ms ${row.planRssMb} MB`);
    rmSync(dir, { recursive: true, force: true });
  }
  scalingRows.push(...rows);
  // Linear growth doubles from 1/2 to 1x (less, with fixed start-up costs); quadratic would quadruple.
  const half = rows.find((row) => row.scale === 1 / 2);
  const full = rows.find((row) => row.scale === 1);
  for (const name of ['validate', 'plan']) {
    figure(`scaling: ${name} time 1x / 1/2`, full[`${name}Ms`] / half[`${name}Ms`], '<=', 2.2, 'x', `${half[`${name}Ms`]} ms -> ${full[`${name}Ms`]} ms (best of 2); linear is at most 2`);
    figure(`scaling: ${name} peak RSS 1x / 1/2`, full[`${name}RssMb`] / half[`${name}RssMb`], '<=', 2.2, 'x', `${half[`${name}RssMb`]} MB -> ${full[`${name}RssMb`]} MB; linear is at most 2`);
  }
}

/** Rows of the scaling table, written to results.json. */
const scalingRows = [];

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

    await emulator.clearRequests();
    const applied = expectExit(await portalctl(['apply', configFile, '--auto-approve', '--force', '--parallelism', String(PARALLELISM), ...shared], { cwd: dir, env: TOKEN_ENV }), `apply (${name})`);
    const applyRequests = await emulator.requests();
    if (args.includes('--keep')) writeFileSync(join(dir, 'apply-requests.json'), JSON.stringify(applyRequests));
    const applyLog = summariseLog(applyRequests, LATENCY_MS);
    if (applyLog.failedWrites) throw new Error(`${applyLog.failedWrites} writes of the apply (${name}) failed`);

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
    return { planReads: readsOf(planRequests), applyReads: readsOf(applyRequests), applyLog, applyMs: applied.ms, secondLog, idealLog };
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
    `${Math.round(m.applyMs)} ms, start to exit; floor ceil(${requests} requests / ${PARALLELISM}) x ${LATENCY_MS} ms = ${floorMs} ms; ${(m.applyMs / limitMs).toFixed(2)} x the writes-only limit of ${limitMs} ms`,
  );
  figure(
    'economy: apply write phase / limit',
    m.applyLog.writePhaseMs / limitMs,
    '<=',
    1.2,
    'x',
    `${Math.round(m.applyLog.writePhaseMs)} ms from first write received to last answered; an ideal client (${PARALLELISM} bare request loops) takes ${Math.round(m.idealLog.writePhaseMs)} ms = ${(m.idealLog.writePhaseMs / limitMs).toFixed(2)} x the limit against the same emulator`,
  );

  const listed = economyOrganization({ seed: SEED, url, groups: 0, users: 0, items: 2000, roles: 150, writes: WRITES, changed: { group: 0, task: 0, role: 78 } });
  const l = await economyRun(work, 'listed', listed);
  figure(
    'economy: whole apply / limit, kinds the API lists',
    l.applyMs / limitMs,
    '<=',
    1.5,
    'x',
    `${Math.round(l.applyMs)} ms, start to exit, with ${l.applyReads.total} reads for ${listed.declared} objects; limit ceil(${WRITES}/${PARALLELISM}) x ${LATENCY_MS} ms = ${limitMs} ms; an ideal client's write phase alone is ${(l.idealLog.writePhaseMs / limitMs).toFixed(2)} x`,
  );
}

function table(rows) {
  const header = ['figure', 'measured', 'target', 'met'];
  const body = rows.map((f) => [f.name, `${f.measured} ${f.unit}`, `${f.comparison} ${f.target} ${f.unit}`, f.met ? 'yes' : 'no']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

function scalingText(rows) {
  const header = '| scale | declared objects | validate ms | validate peak RSS MB | plan ms | plan peak RSS MB |';
  const lines = rows.map((row) => `| ${row.scale === 1 ? '1' : `1/${Math.round(1 / row.scale)}`} | ${row.declared} | ${row.validateMs} | ${row.validateRssMb} | ${row.planMs} | ${row.planRssMb} |`);
  return [header, '|---|---|---|---|---|---|', ...lines].join('\n');
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
    if (wanted('scaling')) await scaling(work);
    if (wanted('economy')) await economy(work);
    if (wanted('state')) await (await import('./state-recording.mjs')).stateRecording(work, { root, figure, log });
    if (wanted('fleet')) await (await import('./fleet.mjs')).fleetFigures(work, { root, figure, log });
  } finally {
    if (args.includes('--keep')) log(`Generated files kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, memory: `${Math.round(totalmem() / 1024 ** 3)} GB`, cpu: cpus()[0]?.model ?? 'unknown' },
    figures,
    ...(scalingRows.length > 0 ? { scaling: scalingRows } : {}),
  };
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const scalingTable = scalingRows.length === 0 ? '' : `${scalingText(scalingRows)}\n\n`;
  process.stdout.write(`${table(figures)}\n\n${scalingTable}${figures.filter((f) => f.met).length} of ${figures.length} targets met in ${Math.round((Date.now() - started) / 1000)} s; written to bench/results.json\n`);
  if (figures.some((f) => !f.met)) process.exitCode = 1;
}

main().catch((error) => {
  log(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exitCode = 1;
});
