#!/usr/bin/env node
// `npm run demo`: the main job end to end against the bundled emulator. Starts the emulator with
// the sample organization, then runs validate, plan, apply and plan again on examples/full/ with
// the real CLI, and stops the emulator. Nothing outside a temporary directory is written.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'bin', 'portalctl.js');
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'index.js'));

const emulator = await startEmulator({ port: 0, data: join(root, 'examples', 'emulator', 'portal.yaml') });
const work = await mkdtemp(join(tmpdir(), 'portalctl-demo-'));
const env = { ...process.env, PORTALCTL_TOKEN: 'admin-token' };
const shared = ['--portal', emulator.url, '--state', join(work, 'portalctl.state.json')];
// Colour only on a terminal, and never with NO_COLOR (https://no-color.org); the CLI decides the same for itself.
const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const bold = (text) => (colour ? `\x1b[1m${text}\x1b[0m` : text);

function portalctl(title, args, expected = [0]) {
  process.stdout.write(`\n${bold(`$ portalctl ${args.join(' ')}`)}   # ${title}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (expected.includes(code ?? -1) ? resolve(code) : reject(new Error(`portalctl ${args[0]} exited with ${code}`))));
  });
}

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
