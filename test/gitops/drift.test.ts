/**
 * `portalctl drift` through the real CLI against the emulator: exit 0 in sync, 2 pending,
 * 3 drift (naming exactly the changed addresses), and never a write.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator, type EmulatorState, type LoggedRequest } from '../../src/emulator/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'dist/bin/portalctl.js');

const CONFIG = `version: 1
portal:
  url: http://127.0.0.1:1/unused
organization:
  securityPolicy:
    minLength: 12
    historySize: 5
roles:
  - id: r7HkQ2
    name: Field Analyst
    description: Edits field data
items:
  - { id: 668187ae19cd4cae9460087d0ef47e60, status: deprecated }
`;

let emulator: RunningEmulator;
let dir: string;

function portalctl(args: string[], token = 'admin-token'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args, '--portal', emulator.url, '--state', join(dir, 'state.json')], {
      cwd: dir,
      env: { ...process.env, PORTALCTL_TOKEN: token, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function control<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${emulator.controlUrl}${path}`, init);
  return (await response.json()) as T;
}

const writes = async (): Promise<LoggedRequest[]> =>
  (await control<{ requests: LoggedRequest[] }>('/requests')).requests.filter((request) => request.access === 'write');

beforeEach(async () => {
  emulator = await startEmulator({ port: 0, data: join(root, 'examples/emulator/portal.yaml') });
  dir = await mkdtemp(join(tmpdir(), 'portalctl-drift-'));
  await writeFile(join(dir, 'portalctl.yaml'), CONFIG);
  expect((await portalctl(['apply', '--auto-approve'])).code).toBe(0);
  await fetch(`${emulator.controlUrl}/requests`, { method: 'DELETE' });
});

afterEach(async () => {
  await emulator.close();
});

describe('portalctl drift', () => {
  it('exits 0 in sync and sends no write', async () => {
    const result = await portalctl(['drift']);
    expect(result.stdout).toContain('In sync');
    expect(result.code).toBe(0);
    expect(await writes()).toEqual([]);
  });

  it('exits 2 when only the configuration changed (pending), naming the operation', async () => {
    await writeFile(join(dir, 'portalctl.yaml'), CONFIG.replace('minLength: 12', 'minLength: 14'));
    const result = await portalctl(['drift', '--format', 'json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { status: string; drift: unknown[]; pending: { address: string }[] };
    expect(report.status).toBe('pending');
    expect(report.drift).toEqual([]);
    expect(report.pending.map((op) => op.address)).toEqual(['organization.securityPolicy']);
    expect(await writes()).toEqual([]);
  });

  it('exits 3 after an out-of-band change and names exactly the changed addresses', async () => {
    const state = await control<EmulatorState>('/state');
    state.organization.securityPolicy.historySize = 10;
    const role = state.roles.find((r) => r.id === 'r7HkQ2');
    if (role) role.description = 'Changed in the portal by hand';
    await control('/state', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) });
    await fetch(`${emulator.controlUrl}/requests`, { method: 'DELETE' });

    const result = await portalctl(['drift', '--format', 'json']);
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as { status: string; drift: { address: string; before: unknown; after: unknown }[] };
    expect(report.status).toBe('drift');
    expect(report.drift.map((d) => d.address)).toEqual(['organization.securityPolicy', 'role[r7HkQ2]']);
    expect(report.drift[0]).toMatchObject({ before: { minLength: 12, historySize: 5 }, after: { minLength: 12, historySize: 10 } });

    const text = await portalctl(['drift']);
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('  ! role[r7HkQ2]\n      description: recorded "Edits field data", now "Changed in the portal by hand"');
    const markdown = await portalctl(['drift', '--format', 'markdown']);
    expect(markdown.stdout).toContain('#### Drift');
    expect(await writes()).toEqual([]);
  });

  it('works with a token that may only read', async () => {
    await writeFile(join(dir, 'portalctl.yaml'), CONFIG.replace(/items:[\s\S]*$/, ''));
    const result = await portalctl(['drift'], 'viewer-token');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await writes()).toEqual([]);
  });
});
