#!/usr/bin/env node
// `npm run demo`: the main job end to end against the bundled emulator. Starts the emulator with
// the sample organization, then runs validate, plan, apply and plan again on examples/full/ with
// the real CLI, and stops the emulator. Nothing outside a temporary directory is written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { portalctlRunner } from './demo-cli.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'index.js'));

const emulator = await startEmulator({ port: 0, data: join(root, 'examples', 'emulator', 'portal.yaml') });
const work = await mkdtemp(join(tmpdir(), 'portalctl-demo-'));
const env = { ...process.env, PORTALCTL_TOKEN: 'admin-token' };
const shared = ['--portal', emulator.url, '--state', join(work, 'portalctl.state.json')];
const portalctl = portalctlRunner(root, env);

let failed = false;
try {
  process.stdout.write(`Emulator running at ${emulator.url} with examples/emulator/portal.yaml\n`);
  await portalctl('schema and rule checks, no network', ['validate', 'examples/full']);
  await portalctl('what the configuration asks of the portal', ['plan', 'examples/full', ...shared, '--detailed-exitcode'], [2]);
  await portalctl('apply it', ['apply', 'examples/full', ...shared, '--auto-approve', '--allow-destructive', '--invites-dir', join(work, 'invites')]);
  await portalctl('plan again: nothing left to do', ['plan', 'examples/full', ...shared, '--detailed-exitcode'], [0]);
} catch (error) {
  failed = true;
  process.stderr.write(`\ndemo failed: ${error.message}\n`);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
