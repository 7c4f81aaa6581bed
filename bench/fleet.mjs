/**
 * Figures of fleet runs (README "Environments"): one repository, 50 emulated portals with 20 ms
 * latency, the same roles, groups and items under other ids in each, named in the config by
 * what people see; PostgreSQL state, one state name per environment.
 *
 * - the drift sweep of all 50, 8 at a time, against (the slowest single drift) x ceil(50 / 8);
 * - lock waits across environments while the fleet applies 8 at a time (each environment has
 *   its own state and lock: a shared lock would make them wait);
 * - one environment's apply with the database holding 1 state, then 500 (alternated rounds);
 * - the reads of a plan by names against the same plan by ids (names are resolved from the
 *   list reads a plan makes anyway).
 *
 * Run alone: `node bench/run.mjs --only fleet` (or `--no-build --only fleet`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startEmbeddedPostgres } from '../test/support/postgres.mjs';
import { startBenchEmulator } from './lib/emulator.mjs';
import { seededRandom } from './lib/random.mjs';
import { expectExit, median, runNode } from './lib/measure.mjs';

const FLEET = 50;
const AT_ONCE = 8;
const LATENCY_MS = 20;
const ROLES = 20;
const GROUPS = 4;
const ITEMS = 30;
const STATE_ROUNDS = 5;
const FILLER_STATES = 499;
const SWEEPS = 3;

const names = Array.from({ length: FLEET }, (_, index) => `p${String(index).padStart(2, '0')}`);

/** One portal's data: the fleet's objects under ids of its own. */
function portalData(index, random) {
  const hex = (length = 32) => random.hex(length);
  return {
    organization: { id: `FLEET${String(index).padStart(11, '0')}`, name: `Fleet portal ${index}`, edition: 'self-managed', version: '11.3', securityPolicy: { minLength: 8, minDigit: 1 } },
    users: [
      { username: 'admin', fullName: 'Administrator', role: 'org_admin', password: 'admin-password' },
      { username: 'publisher1', fullName: 'Publisher', role: 'org_publisher' },
    ],
    tokens: [{ token: 'admin-token', username: 'admin' }],
    roles: Array.from({ length: ROLES }, (_, r) => ({ id: hex(16), name: `Role ${r}`, description: `Role ${r}` })),
    groups: Array.from({ length: GROUPS }, (_, g) => ({ id: hex(), title: `Group ${g}`, owner: 'admin', categorySchema: [{ title: 'Old' }] })),
    items: Array.from({ length: ITEMS }, (_, i) => ({ id: hex(), title: `Item ${i}`, type: 'Feature Service', owner: 'publisher1', access: 'org' })),
  };
}

/** The base config by names (what the fleet applies) or, for one portal, by its ids. */
function baseConfig(data) {
  const key = (byName, id) => (data ? id : byName);
  return {
    version: 1,
    portal: { edition: 'self-managed', version: '11.3' },
    organization: { securityPolicy: { minLength: '${var:min_length}', minDigit: 1 } },
    roles: Array.from({ length: ROLES }, (_, r) => ({ id: key({ name: `Role ${r}` }, data?.roles[r].id), description: `Role ${r}, kept alike` })),
    groups: Array.from({ length: GROUPS }, (_, g) => ({ id: key({ title: `Group ${g}` }, data?.groups[g].id), categorySchema: [{ title: 'Shared' }] })),
    items: Array.from({ length: ITEMS / 2 }, (_, i) => ({ id: key({ title: `Item ${i}`, type: 'Feature Service', owner: 'publisher1' }, data?.items[i].id), status: 'deprecated' })),
  };
}

async function seconds(run) {
  const started = process.hrtime.bigint();
  const result = await run();
  return { result, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

export async function fleetFigures(work, { root, figure, log }) {
  log(`Fleet (${FLEET} emulated portals, ${LATENCY_MS} ms latency, ${AT_ONCE} at a time, PostgreSQL state)`);
  const cli = join(root, 'dist', 'bin', 'portalctl.js');
  const { PostgresStateStore } = await import(pathToFileURL(join(root, 'dist', 'state', 'index.js')).href);
  const external = process.env.PORTALCTL_TEST_PG;
  const server = external ? undefined : await startEmbeddedPostgres({ fsync: true });
  const emulators = [];
  try {
    const random = seededRandom(20250602);
    const dir = join(work, 'fleet');
    const config = join(dir, 'config');
    mkdirSync(config, { recursive: true });
    const env = { PORTALCTL_TOKEN: 'admin-token' };
    const environments = {};
    const portals = [];
    for (const [index, name] of names.entries()) {
      const data = portalData(index, random);
      const emulator = await startBenchEmulator(root, { data, latencyMs: LATENCY_MS });
      emulators.push(emulator);
      portals.push({ name, data, emulator });
      env[`URL_${name.toUpperCase()}`] = emulator.url;
      environments[name] = { portal: { url: `\${env:URL_${name.toUpperCase()}}` }, values: { min_length: 10 + (index % 5) } };
    }
    // A directory contributes its YAML files: JSON text is YAML too.
    writeFileSync(join(config, 'environments.yaml'), JSON.stringify({ version: 1, environments }));
    writeFileSync(join(config, 'base.yaml'), JSON.stringify(baseConfig()));
    const url = new URL(external ?? server.url);
    url.searchParams.set('schema', 'fleet_bench');
    const state = url.toString();
    const portalctl = (args, options = {}) => runNode([cli, ...args, '--state', options.state ?? state, '--no-color'], { cwd: dir, env });

    // The fleet applied 8 at a time: every environment takes its own lock; none may wait for another's.
    const applied = expectExit(await portalctl(['apply', 'config', '--all-envs', '--auto-approve', '--force', '--env-parallelism', String(AT_ONCE), '--lock-timeout', '5m', '--verbose']), 'fleet apply');
    const waits = (applied.stderr.match(/is locked by .*; waiting up to/g) ?? []).length;
    const applyFailures = (applied.stdout.match(/^p\d\d +\S+ +\S+ +failed/gm) ?? []).length;
    if (applyFailures) throw new Error(`fleet apply: ${applyFailures} environments failed:\n${applied.stdout.slice(-3000)}`);
    figure('fleet: lock waits across environments, apply of 50 at 8 at a time', waits, '==', 0, 'waits', `${FLEET} environments applied in ${Math.round(applied.ms)} ms, each with its own state name and lock in one database`);

    // Drift: each environment alone (a whole command, start to exit), then the sweep.
    const single = [];
    for (const name of names) single.push(expectExit(await portalctl(['drift', 'config', '--env', name]), `drift --env ${name}`).ms);
    const sweeps = [];
    for (let round = 0; round < SWEEPS; round++) {
      const { result, ms } = await seconds(() => portalctl(['drift', 'config', '--all-envs', '--env-parallelism', String(AT_ONCE)]));
      expectExit(result, 'drift --all-envs');
      if (!/portalctl drift over 50 environments \(50 in sync\)\./.test(result.stdout)) throw new Error(`the sweep did not find all 50 in sync:\n${result.stdout.slice(-3000)}`);
      sweeps.push(ms);
    }
    const slowest = Math.max(...single);
    const waves = Math.ceil(FLEET / AT_ONCE);
    const sweep = median(sweeps);
    figure(
      'fleet: drift sweep of 50, 8 at a time / (slowest single drift x ceil(50/8))',
      sweep / (slowest * waves),
      '<=',
      1.2,
      'x',
      `sweep ${Math.round(sweep)} ms (median of ${SWEEPS}); single drifts ${Math.round(Math.min(...single))}-${Math.round(slowest)} ms (median ${Math.round(median(single))}), x ${waves} waves = ${Math.round(slowest * waves)} ms`,
    );

    // One environment's apply, the database holding 1 state, then 500: the same writes each round.
    const one = new URL(state);
    one.searchParams.set('schema', 'fleet_one');
    const many = new URL(state);
    many.searchParams.set('schema', 'fleet_many');
    const reader = new PostgresStateStore({ url: state, name: 'p00' });
    const template = await reader.read();
    await reader.close();
    log(`  filling a database with ${FILLER_STATES} more states`);
    for (let start = 0; start < FILLER_STATES; start += AT_ONCE) {
      await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, FILLER_STATES - start) }, async (_, offset) => {
          const store = new PostgresStateStore({ url: many.toString(), name: `filler-${start + offset}`, command: 'bench' });
          try {
            await store.importState({ ...template, lineage: `${template.lineage.slice(0, -4)}${String(start + offset).padStart(4, '0')}` });
          } finally {
            await store.close();
          }
        }),
      );
    }
    const target = portals[0];
    const applyMs = { one: [], many: [] };
    for (let round = 0; round <= STATE_ROUNDS; round++) {
      for (const [label, where] of round % 2 === 0 ? [['one', one], ['many', many]] : [['many', many], ['one', one]]) {
        await target.emulator.reset();
        await target.emulator.setLatency(LATENCY_MS);
        const result = expectExit(await portalctl(['apply', 'config', '--env', 'p00', '--auto-approve', '--force'], { state: where.toString() }), `apply --env p00 (${label})`);
        if (!/Apply finished: \d+ applied, 0 failed/.test(result.stdout)) throw new Error(`apply --env p00 (${label}) applied nothing:\n${result.stdout.slice(-2000)}`);
        if (round > 0) applyMs[label].push(result.ms);
      }
    }
    figure(
      'fleet: one environment\'s apply, database of 500 states / of 1',
      median(applyMs.many) / median(applyMs.one),
      '<=',
      1.2,
      'x',
      `median of ${STATE_ROUNDS} alternated rounds: ${Math.round(median(applyMs.many))} ms with 500 states, ${Math.round(median(applyMs.one))} ms with 1`,
    );

    // Names: the same plan of one portal, by ids then by names; reads counted by the emulator.
    const byId = join(dir, 'by-id.json');
    const byName = join(dir, 'by-name.json');
    writeFileSync(byId, JSON.stringify({ ...baseConfig(target.data), organization: { securityPolicy: { minLength: 10, minDigit: 1 } }, portal: { url: target.emulator.url, edition: 'self-managed', version: '11.3' } }));
    writeFileSync(byName, JSON.stringify({ ...baseConfig(), organization: { securityPolicy: { minLength: 10, minDigit: 1 } }, portal: { url: target.emulator.url, edition: 'self-managed', version: '11.3' } }));
    const reads = {};
    for (const [label, file] of [['ids', byId], ['names', byName]]) {
      // The portal as loaded (every object differs from the config), its request log empty.
      await target.emulator.reset();
      const result = expectExit(await runNode([cli, 'plan', file, '--state', join(dir, `${label}.state.json`), '--format', 'json', '--no-color'], { cwd: dir, env }), `plan by ${label}`);
      const operations = JSON.parse(result.stdout).operations.length;
      reads[label] = { count: (await target.emulator.requests()).filter((entry) => entry.access === 'read').length, operations };
    }
    if (reads.ids.operations !== reads.names.operations) throw new Error(`plans by ids and by names differ: ${reads.ids.operations} and ${reads.names.operations} operations`);
    figure(
      'names: reads of a plan by names beyond the same plan by ids',
      reads.names.count - reads.ids.count,
      '<=',
      0,
      'reads',
      `${reads.names.count} reads by names, ${reads.ids.count} by ids, for ${ROLES} roles, ${GROUPS} groups and ${ITEMS / 2} items (${reads.ids.operations} operations either way)`,
    );
  } finally {
    await Promise.all(emulators.map((emulator) => emulator.close()));
    await server?.dispose();
  }
}
