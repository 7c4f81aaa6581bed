/**
 * `portalctl drift` through the real CLI against the emulator: exit 0 in sync, 2 pending,
 * 3 drift (naming exactly the changed addresses), and never a write.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POLICY_AND_ROLE, startCliPortal, type CliPortal } from '../support/cli.js';

const CONFIG = `${POLICY_AND_ROLE}items:
  - { id: 668187ae19cd4cae9460087d0ef47e60, status: deprecated }
`;

let portal: CliPortal;
let config: string;

beforeEach(async () => {
  portal = await startCliPortal();
  config = await portal.writeConfig(CONFIG);
  expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
  await portal.clearRequests();
});

afterEach(async () => portal.dispose());

describe('portalctl drift', () => {
  it('exits 0 in sync and sends no write', async () => {
    const result = await portal.run(['drift', config]);
    expect(result.stdout).toContain('In sync');
    expect(result.code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('exits 2 when only the configuration changed (pending), naming the operation', async () => {
    await writeFile(join(config, 'portalctl.yaml'), CONFIG.replace('minLength: 12', 'minLength: 14'));
    const result = await portal.run(['drift', config, '--format', 'json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { status: string; drift: unknown[]; pending: { address: string }[] };
    expect(report.status).toBe('pending');
    expect(report.drift).toEqual([]);
    expect(report.pending.map((op) => op.address)).toEqual(['organization.securityPolicy']);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('exits 3 after an out-of-band change and names exactly the changed addresses', async () => {
    const state = await portal.state();
    state.organization.securityPolicy.historySize = 10;
    const role = state.roles.find((r) => r.id === 'r7HkQ2');
    if (role) role.description = 'Changed in the portal by hand';
    await portal.replaceState(state);
    await portal.clearRequests();

    const result = await portal.run(['drift', config, '--format', 'json']);
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as { status: string; drift: { address: string; before: unknown; after: unknown }[] };
    expect(report.status).toBe('drift');
    expect(report.drift.map((d) => d.address)).toEqual(['organization.securityPolicy', 'role[r7HkQ2]']);
    expect(report.drift[0]).toMatchObject({ before: { minLength: 12, historySize: 5 }, after: { minLength: 12, historySize: 10 } });

    const text = await portal.run(['drift', config]);
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('  ! role[r7HkQ2] — Field Analyst\n      description: recorded "Edits field data", now "Changed in the portal by hand"');
    const markdown = await portal.run(['drift', config, '--format', 'markdown']);
    expect(markdown.stdout).toContain('#### Drift');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('works with a token that may only read', async () => {
    await writeFile(join(config, 'portalctl.yaml'), CONFIG.replace(/items:[\s\S]*$/, ''));
    const result = await portal.run(['drift', config], { credentials: { token: 'viewer-token' } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });
});
