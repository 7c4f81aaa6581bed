/**
 * The organization at scale: `validate` and `plan --refresh=false`, on the YAML directory and on
 * the JSON file, at 1, 2, 4 and 10 times the large organization (61,500 declared objects: 1,000
 * groups with full category trees, 50,000 items, 5,000 users with two tasks, 500 roles), each
 * against a bare JSON.parse of the same data in the same run.
 *
 * Targets at ten times (615,000 objects): each command <= 5x JSON.parse, peak RSS <= 1.5 GB,
 * and time and memory within 1.15x of ten times their figure at 1x (cost grows linearly; time
 * as its ratio to JSON.parse of the same data, so that the machine's load minutes apart does
 * not count). The scaling table shows all four scales. At ten times, one broken rule in the
 * largest file is reported at its line and column within the same memory.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { largeOrganization, recordedStateText, yamlDirectory } from './lib/generate.mjs';
import { loadWindow } from './lib/load.mjs';
import { expectExit, median, runNode } from './lib/measure.mjs';

const SEED = 20250601;
const SCALES = [1, 2, 4, 10];
/** Paired runs per command and scale (the first of them also warms the disk and the code cache). */
const ROUNDS = 3;
const LARGE_URL = 'http://127.0.0.1:9/portal/sharing/rest';
const TARGET_RATIO = 5;
const TARGET_RSS_MB = 1536;
const TARGET_LINEAR = 1.15;
/** The scale at which a config with one broken rule is validated too. */
const BROKEN_RULE_SCALE = 10;

/**
 * Writes the organization at `scale` as people write it: a directory of five block-style YAML
 * files with comments, the same config as one JSON file, and a recorded state (outside the YAML
 * directory, as portalctl writes it). Keeps no reference to the generated data.
 */
export async function writeLargeOrganization(dir, scale) {
  mkdirSync(dir, { recursive: true });
  const size = (count) => Math.max(1, Math.round(count * scale));
  const generated = largeOrganization({ seed: SEED, url: LARGE_URL, groups: size(1000), items: size(50_000), users: size(5_000), tasksPerUser: 2, roles: size(500) });
  const yamlDir = join(dir, 'config');
  mkdirSync(yamlDir);
  for (const [name, text] of Object.entries(yamlDirectory(generated.config))) writeFileSync(join(yamlDir, name), text);
  const jsonFile = join(dir, 'portalctl.json');
  writeFileSync(jsonFile, JSON.stringify(generated.config));
  const stateFile = join(dir, 'portalctl.state.json');
  writeFileSync(stateFile, await recordedStateText(generated.state));
  return { declared: generated.declared, changes: generated.changes.total, yamlDir, jsonFile, stateFile };
}

/** The honest floor: `node -e` reading and JSON.parse-ing the config data alone (no state). */
function bareParse(jsonFile, cwd) {
  return runNode(['-e', 'JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));', jsonFile], { cwd });
}

function planOperations(result) {
  const summary = /Plan: (\d+) to create, (\d+) to update, (\d+) to delete/.exec(result.stdout);
  return summary ? Number(summary[1]) + Number(summary[2]) + Number(summary[3]) : 0;
}

const COMMANDS = {
  'validate, YAML directory': (org) => ['validate', org.yamlDir, '--no-color'],
  'validate, JSON': (org) => ['validate', org.jsonFile, '--no-color'],
  'plan --refresh=false, YAML directory': (org) => ['plan', org.yamlDir, '--refresh=false', '--state', org.stateFile, '--no-color'],
  'plan --refresh=false, JSON': (org) => ['plan', org.jsonFile, '--refresh=false', '--state', org.stateFile, '--no-color'],
};

/** Each command at one scale: median time and ratio to JSON.parse over paired runs, and the highest peak RSS. */
async function measureScale(context, scale) {
  const { work, log, portalctl } = context;
  const dir = join(work, `scale-${scale}`);
  const generatedAt = Date.now();
  const org = await writeLargeOrganization(dir, scale);
  log(`  ${scale}x: ${org.declared} declared objects, ${org.changes} recorded differently (generated in ${Math.round((Date.now() - generatedAt) / 1000)} s)`);
  const maxRssFile = join(dir, 'maxrss');
  const row = { scale, declared: org.declared, commands: {} };
  const window = loadWindow();
  for (const [name, argsOf] of Object.entries(COMMANDS)) {
    const ratios = [];
    const times = [];
    const parses = [];
    let peakKb = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so neither always runs on a cold or warm moment.
      const parseFirst = round % 2 === 0;
      const parsed = parseFirst ? await bareParse(org.jsonFile, dir) : undefined;
      const measured = await portalctl(argsOf(org), { cwd: dir, maxRssFile });
      const parsedAfter = parsed ?? (await bareParse(org.jsonFile, dir));
      expectExit(parsedAfter, 'JSON.parse baseline');
      expectExit(measured, `${name} at ${scale}x`);
      if (name.startsWith('plan')) {
        const operations = planOperations(measured);
        if (operations !== org.changes) throw new Error(`${name} at ${scale}x shows ${operations} operations, expected ${org.changes}:\n${measured.stdout.slice(0, 2000)}`);
      } else if (!measured.stdout.includes(`Valid: ${org.declared} managed objects`)) {
        throw new Error(`${name} at ${scale}x did not report ${org.declared} valid objects:\n${measured.stdout.slice(0, 2000)}\n${measured.stderr.slice(0, 2000)}`);
      }
      peakKb = Math.max(peakKb, measured.maxRssKb);
      ratios.push(measured.ms / parsedAfter.ms);
      times.push(measured.ms);
      parses.push(parsedAfter.ms);
    }
    row.commands[name] = { ms: Math.round(median(times)), parseMs: Math.round(median(parses)), ratio: Math.round(median(ratios) * 100) / 100, rssMb: Math.round(peakKb / 1024) };
    log(`    ${name}: ${row.commands[name].ms} ms (${row.commands[name].ratio} x JSON.parse), ${row.commands[name].rssMb} MB`);
  }
  if (scale === BROKEN_RULE_SCALE) row.brokenRule = await brokenRule(context, org, dir, maxRssFile);
  row.load = window.end();
  if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  return row;
}

/**
 * `validate` of the YAML directory with one rule broken at the end of its largest file (a
 * category title with a comma, in the 100 MB `groups.yaml` at ten times): the problem must be
 * reported at its own line and column, within the memory the valid directory is held to.
 */
async function brokenRule({ portalctl }, org, dir, maxRssFile) {
  const broken = join(dir, 'broken-rule');
  mkdirSync(broken);
  for (const name of readdirSync(org.yamlDir)) if (name !== 'groups.yaml') linkSync(join(org.yamlDir, name), join(broken, name));
  const text = readFileSync(join(org.yamlDir, 'groups.yaml'), 'utf8');
  const at = text.lastIndexOf('- title: ') + '- title: '.length;
  writeFileSync(join(broken, 'groups.yaml'), `${text.slice(0, at)}Broken, ${text.slice(at)}`);
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < at; index = text.indexOf('\n', index + 1)) line += 1;
  const where = `groups.yaml:${line}:${at - text.lastIndexOf('\n', at - 1)}`;
  const result = expectExit(await portalctl(['validate', broken, '--no-color'], { cwd: dir, maxRssFile }), 'validate with one broken rule', [1]);
  if (!result.stdout.includes(`${where}: error: The characters / and , are reserved in category titles.`)) throw new Error(`validate with one broken rule did not report it at ${where}:\n${result.stdout.slice(0, 2000)}`);
  return { ms: Math.round(result.ms), rssMb: Math.round(result.maxRssKb / 1024), where };
}

function scalingText(rows) {
  const names = Object.keys(COMMANDS);
  const header = `| scale | declared objects | ${names.map((name) => `${name}: ms (x JSON.parse), peak MB`).join(' | ')} |`;
  const lines = rows.map((row) => `| ${row.scale}x | ${row.declared} | ${names.map((name) => `${row.commands[name].ms} (${row.commands[name].ratio}x), ${row.commands[name].rssMb}`).join(' | ')} |`);
  return [header, `|---|---|${names.map(() => '---').join('|')}|`, ...lines].join('\n');
}

export async function organizationScale(context) {
  const { figure, log } = context;
  log(`Organization scale (validate, plan --refresh=false at ${SCALES.join(', ')} times 61,500 objects)`);
  const rows = [];
  for (const scale of SCALES) rows.push(await measureScale(context, scale));
  const one = rows.find((row) => row.scale === 1);
  const ten = rows.find((row) => row.scale === 10);
  for (const name of Object.keys(COMMANDS)) {
    const at10 = ten.commands[name];
    const at1 = one.commands[name];
    figure(`10x org: ${name} / JSON.parse`, at10.ratio, '<=', TARGET_RATIO, 'x', `median of ${ROUNDS} paired runs; ${at10.ms} ms, bare JSON.parse ${at10.parseMs} ms`, ten.load);
    figure(`10x org: ${name}, peak RSS`, at10.rssMb, '<=', TARGET_RSS_MB, 'MB', `max over ${ROUNDS} runs`, ten.load);
    const load = { load: Math.max(one.load.load, ten.load.load), loaded: one.load.loaded || ten.load.loaded };
    // Time per object against JSON.parse's (itself linear), each measured beside its own baseline:
    // the 1x and 10x runs are minutes apart, and raw times would compare the machine's load then.
    figure(
      `scaling: ${name} time, 10x / (10 x 1x)`,
      at10.ratio / at1.ratio,
      '<=',
      TARGET_LINEAR,
      'x',
      `${at1.ratio}x JSON.parse at 1x, ${at10.ratio}x at 10x; ${at1.ms} ms at 1x, ${at10.ms} ms at 10x (JSON.parse ${at1.parseMs} ms, ${at10.parseMs} ms)`,
      load,
    );
    figure(`scaling: ${name} peak RSS, 10x / (10 x 1x)`, at10.rssMb / (10 * at1.rssMb), '<=', TARGET_LINEAR, 'x', `${at1.rssMb} MB at 1x, ${at10.rssMb} MB at 10x`, load);
  }
  const broken = ten.brokenRule;
  figure(
    '10x org: validate, YAML directory with one broken rule, peak RSS',
    broken.rssMb,
    '<=',
    TARGET_RSS_MB,
    'MB',
    `reported at ${broken.where}, in ${broken.ms} ms (the valid directory: ${ten.commands['validate, YAML directory'].ms} ms)`,
    ten.load,
  );
  return { rows: rows.map(({ load, ...row }) => ({ ...row, load: load.load })), table: scalingText(rows) };
}
