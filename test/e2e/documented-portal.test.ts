/**
 * The real CLI against a server that replays only the documented wire samples: import succeeds,
 * the imported config validates and plans empty, and the documented pending invitation, declared
 * with its documented access, plans no operation (with other access it plans one).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { IDS, startReplayServer, type ReplayServer } from '../support/wire-samples.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: ReplayServer;
let dir: string;

beforeEach(async () => {
  server = await startReplayServer();
  dir = await mkdtemp(join(tmpdir(), 'portalctl-documented-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function run(args: readonly string[], credentials: Record<string, string> = { PORTALCTL_TOKEN: IDS.userToken }): Promise<Result> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('PORTALCTL_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR') continue;
    env[key] = value;
  }
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...env, ...credentials }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const state = (): string[] => ['--state', join(dir, 'state.json')];
const writes = (): string[] => server.requests.filter((request) => request.method === 'POST' && !request.path.endsWith('/generateToken') && !request.path.endsWith('/oauth2/token')).map((r) => r.path);

describe('a portal that answers only with the documented samples', () => {
  it('imports; the imported config validates and plans empty; nothing is written', async () => {
    const imported = await run(['import', '--portal', server.url]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    // What the documented answers hold, in config form.
    expect(imported.stdout).toContain(`  - id: ${IDS.item}\n    status: org_authoritative\n`);
    expect(imported.stdout).toContain(`  - id: ${IDS.group}\n`);
    expect(imported.stdout).toContain(`  - id: ${IDS.collaboration}\n`);
    expect(imported.stdout).toContain(`      - id: ${IDS.workspace}\n`);
    expect(imported.stdout).toContain('maxItemSizeInMB: 512');
    expect(imported.stdout).toContain('c0ffeeRole000002');
    // The pending invitation and this portal's group link are named, with the documented access.
    expect(imported.stdout).toContain(`invitations: ${IDS.guestUrl} host_created (${IDS.workspace}: send)`);
    expect(imported.stdout).toContain(`portalGroupLink: group ${IDS.group}`);
    // The collaboration's host GUID is never compared with the short organization id: it is imported as hosted.
    expect(imported.stdout).not.toContain('only its host manages it');
    // Group and item listings sent q=orgid:<portals/self id>; the token only ever in the documented header.
    const listings = server.requests.filter((request) => request.path === '/search' || request.path === '/community/groups');
    expect(listings.length).toBeGreaterThan(0);
    for (const request of listings) expect(request.query.get('q')).toBe(`orgid:${IDS.org}`);
    for (const request of server.requests) {
      expect(request.headers['x-esri-authorization']).toBe(`Bearer ${IDS.userToken}`);
      expect(request.query.get('token')).toBeNull();
    }

    const config = join(dir, 'imported.yaml');
    await writeFile(config, imported.stdout);
    const validated = await run(['validate', config]);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    const planned = await run(['plan', config, '--portal', server.url, ...state(), '--detailed-exitcode']);
    expect(planned.stderr).toBe('');
    expect(planned.stdout).toContain('No changes.');
    expect(planned.code).toBe(0);
    expect(writes()).toEqual([]);
  });

  it('plans nothing for the documented pending invitation with its documented access, and one invitation for other access', async () => {
    const config = (mode: string): string =>
      [
        'version: 1',
        'collaborations:',
        `  - id: ${IDS.collaboration}`,
        '    participants:',
        `      - guestPortalUrl: ${IDS.guestUrl}`,
        '        workspaces:',
        `          ${IDS.workspace}: ${mode}`,
        '',
      ].join('\n');
    await writeFile(join(dir, 'same.yaml'), config('send'));
    const same = await run(['plan', 'same.yaml', '--portal', server.url, ...state(), '--detailed-exitcode']);
    expect(same.stderr).toBe('');
    expect(same.stdout).toContain('No changes.');
    expect(same.code).toBe(0);

    await writeFile(join(dir, 'other.yaml'), config('sendAndReceive'));
    const other = await run(['plan', 'other.yaml', '--portal', server.url, ...state(), '--detailed-exitcode', '--format', 'json']);
    expect(other.stderr).toBe('');
    expect(other.code).toBe(2);
    const plan = JSON.parse(other.stdout) as { operations: { address: string; operation: { id: string }; request: { form: Record<string, string> } }[] };
    expect(plan.operations.map((op) => [op.operation.id, op.address])).toEqual([['E13', `collaboration[${IDS.collaboration}].invitation[${IDS.guestUrl}]`]]);
    expect(plan.operations[0]?.request.form['collaborationWorkspacesParticipantConfigJSON']).toBe(JSON.stringify([{ [IDS.workspace]: 'sendAndReceive' }]));
    expect(writes()).toEqual([]);
  });

  it('with an app token, names before any write each planned operation the app may not call', async () => {
    await writeFile(join(dir, 'policy.yaml'), 'version: 1\norganization:\n  securityPolicy:\n    minLength: 12\n  categorySchema:\n    - title: Only\n');
    const planned = await run(['plan', 'policy.yaml', '--portal', server.url, ...state(), '--format', 'json'], {
      PORTALCTL_CLIENT_ID: 'exampleappid0001',
      PORTALCTL_CLIENT_SECRET: 'example-secret-0001',
    });
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as { operations: { operation: { id: string } }[]; warnings: { address: string; message: string }[] };
    expect(plan.operations.map((op) => op.operation.id).sort()).toEqual(['E2', 'E8']);
    // E2 needs default administrators or portal:admin:updateItemCategorySchema; the app holds only portal:user:viewOrgItems.
    // E8's callers are not stated by the spec: no warning.
    expect(plan.warnings).toEqual([
      {
        address: 'organization.categorySchema',
        kind: 'organization.categorySchema',
        message: expect.stringContaining('portal:admin:updateItemCategorySchema') as unknown as string,
      },
    ]);
    expect(plan.warnings[0]?.message).toContain('app Example app (app token)');
    expect(server.requests.find((request) => request.path === '/oauth2/token')?.form.get('grant_type')).toBe('client_credentials');
    expect(writes()).toEqual([]);

    // The same plan for the documented administrator has no warning.
    const admin = await run(['plan', 'policy.yaml', '--portal', server.url, ...state(), '--format', 'json']);
    expect((JSON.parse(admin.stdout) as { warnings: unknown[] }).warnings).toEqual([]);
  });
});
