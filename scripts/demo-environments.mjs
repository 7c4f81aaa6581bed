#!/usr/bin/env node
// `npm run demo:environments`: one repository, three portals. Starts three emulators
// (examples/environments/portals/: the same roles, groups and items under other ids), then runs
// validate, config, plan, apply and plan again over all three environments of
// examples/environments/ with the real CLI, and stops the emulators. Each environment keeps its
// own state in a temporary directory; nothing else is written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { portalctlRunner } from './demo-cli.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const example = join('examples', 'environments');
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'index.js'));

const portals = { development: ['DEV', 'dev-token'], test: ['TEST', 'test-token'], production: ['PROD', 'prod-token'] };
const emulators = [];
const env = { ...process.env };
for (const key of Object.keys(env)) if (key.startsWith('PORTALCTL_')) delete env[key];
const work = await mkdtemp(join(tmpdir(), 'portalctl-demo-environments-'));
const shared = ['--state', join(work, 'portalctl.state.json')];
const portalctl = portalctlRunner(root, env);

let failed = false;
try {
  for (const [name, [prefix, token]] of Object.entries(portals)) {
    const emulator = await startEmulator({ port: 0, data: join(root, example, 'portals', `${name}.yaml`) });
    emulators.push(emulator);
    env[`${prefix}_PORTAL_URL`] = emulator.url;
    env[`${prefix}_PORTAL_TOKEN`] = token;
    process.stdout.write(`${name}: emulator at ${emulator.url} with ${example}/portals/${name}.yaml\n`);
  }
  await portalctl('every environment\'s effective config, no network', ['validate', example]);
  await portalctl('what production gets: the base, its overlay and its values, with where each value comes from', ['config', example, '--env', 'production']);
  await portalctl('what the configuration asks of each portal', ['plan', example, '--all-envs', '--detailed-exitcode', ...shared], [2]);
  await portalctl('apply it to all three, three at a time', ['apply', example, '--all-envs', '--auto-approve', '--env-parallelism', '3', ...shared]);
  await portalctl('plan again: nothing left to do anywhere', ['plan', example, '--all-envs', '--detailed-exitcode', ...shared], [0]);
} catch (error) {
  failed = true;
  process.stderr.write(`\ndemo failed: ${error.message}\n`);
} finally {
  await Promise.all(emulators.map((emulator) => emulator.close()));
  await rm(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
