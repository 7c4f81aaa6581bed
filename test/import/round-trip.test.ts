/**
 * `import` against the emulator, in-process: the output loads and validates with the project's
 * own loader, and planning it against the same portal is empty.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { createApiClient, ApiNetworkError } from '../../src/api/index.js';
import { loadConfig, validateConfig, type LoadedConfig } from '../../src/engine/config/index.js';
import { importPortal, type ImportResult } from '../../src/engine/import/import-portal.js';
import { startTestPortal, type TestPortal } from '../support/portal.js';
import { registry } from '../../src/registry.js';

const LEGACY_ORG = 'examples/emulator/legacy-portal.yaml';

let portal: TestPortal | undefined;
afterEach(async () => {
  await portal?.close();
  portal = undefined;
});

async function importWith(target: TestPortal, token = 'admin-token'): Promise<ImportResult> {
  const client = createApiClient({ url: target.url, credentials: { type: 'token', token }, baseDelayMs: 1, maxRetries: 1 });
  try {
    return await importPortal({ client, url: target.url, kinds: registry.kinds, containers: registry.containers });
  } finally {
    await client.close();
  }
}

/** Loads the imported text with the project's loader and checks it against the live portal's facts. */
async function loadImported(target: TestPortal, result: ImportResult): Promise<LoadedConfig> {
  const config = await target.config(result.text);
  const problems = validateConfig(config, result.portal).filter((diagnostic) => diagnostic.severity === 'error');
  expect(problems).toEqual([]);
  expect(config.diagnostics).toEqual([]);
  return config;
}

function lines(text: string): string[] {
  return text.split('\n').map((line) => line.trim());
}

describe('import of the sample organization', () => {
  it('validates, and planning it against the same portal is empty', async () => {
    portal = await startTestPortal();
    const result = await importWith(portal);
    expect(result.skipped).toEqual([]);
    // Import only reads, and each resource once (portals/self serves the kinds that need it too).
    const log = await portal.requests();
    expect(log.filter((entry) => entry.access === 'write')).toEqual([]);
    expect(log.filter((entry) => entry.path.endsWith('/portals/self'))).toHaveLength(1);
    const config = await loadImported(portal, result);

    // What the sample organization holds of today's kinds, exactly (a kind added later may import more).
    const expected = [
      'collaboration[c0ffee].workspace[w1]',
      'collaboration[c0ffee].workspace[w2]',
      'federation[J55ajJJ7MsY1QoQs]',
      'group[b4850fb244bf4fbc8b918c96f267b2cf].categorySchema',
      'item[668187ae19cd4cae9460087d0ef47e60].status',
      'item[9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e].status',
      'organization.categorySchema',
      'organization.securityPolicy',
      'role[cAt5Ad]',
      'role[r7HkQ2]',
      'user[admin].task[t0adm1]',
      'user[jsmith].task[d4e5f6]',
    ];
    const todaysKinds = new Set(config.objects.filter((obj) => expected.includes(obj.address)).map((obj) => obj.kind));
    expect(config.objects.filter((obj) => todaysKinds.has(obj.kind)).map((obj) => obj.address).sort()).toEqual([...expected].sort());
    // 11.3: user levels cannot be set, and userType is ignored by the self-managed edition.
    expect(result.text).not.toMatch(/^\s*level:/m);
    expect(result.text).not.toContain('userType');

    const prepared = await portal.plan(config);
    expect(prepared.plan.operations).toEqual([]);
    expect(prepared.warnings).toEqual([]);
  });

  it('writes the portal block, stable section order and entries sorted by key', async () => {
    portal = await startTestPortal();
    const { text } = await importWith(portal);
    const data = parseDocument(text).toJS() as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['version', 'portal', 'organization', 'groups', 'items', 'users', 'roles', 'federations', 'collaborations']);
    expect(data['version']).toBe(1);
    expect(data['portal']).toEqual({ url: portal.url, edition: 'self-managed', version: '11.3', access: 'public', verified: false });
    const roleIds = (data['roles'] as { id: string }[]).map((entry) => entry.id);
    expect(roleIds).toEqual([...roleIds].sort());
    const usernames = (data['users'] as { username: string }[]).map((entry) => entry.username);
    expect(usernames).toEqual(['admin', 'jsmith']);
    // The certificate is inline, as the portal reports it.
    const federation = (data['federations'] as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(federation['certificate']).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n?$/);
    // Importing twice gives the same text.
    expect((await importWith(portal)).text).toBe(text);
  });

  it('names objects in comments, and lists what cannot be declared', async () => {
    portal = await startTestPortal();
    const { text } = await importWith(portal);
    const all = lines(text);
    const above = (comment: string, entry: string): void => {
      const index = all.indexOf(comment);
      expect(index, comment).toBeGreaterThanOrEqual(0);
      expect(all.slice(index + 1).find((line) => !line.startsWith('#'))).toBe(entry);
    };
    above('# Road Centerlines (owner publisher1)', '- id: 9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e');
    above('# Flood Zones (owner jsmith)', '- id: 668187ae19cd4cae9460087d0ef47e60');
    above('# Planning Department (owner admin)', '- id: b4850fb244bf4fbc8b918c96f267b2cf');
    above('# Field Analyst', '- id: r7HkQ2');
    above('# Category Steward', '- id: cAt5Ad');
    // The pre-built Viewer is no entry (any change to it is refused): a comment says why it is left out.
    above('# role[vW3rLv] Viewer: not imported; a pre-built role, which the portal lets no one update, so portalctl has nothing to manage in it.', 'roles:');
    expect(text).not.toContain('id: vW3rLv');
    above('# Jane Smith', '- username: jsmith');
    above('# Update road centerlines', '- id: d4e5f6');
    above('# Regional basemap exchange', '- id: c0ffee');
    above('# Basemaps', '- id: w1');
    above('# Campus federation', '- id: J55ajJJ7MsY1QoQs');
    // Removal-only kinds and values that cannot be declared are comments, nothing managed.
    expect(all).toContain('# participants: 02c2cef9-1b2c-4d3e-9f40-5a6b7c8d9e0f Neighbor County (https://maps.neighbor.example.org/portal)');
    expect(all).toContain('# participants: 7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b Former partner (https://old-partner.example.net/portal)');
    // The host (this portal) is never a participant one could remove.
    expect(all.filter((line) => line.startsWith('# participants:') && line.includes('Riverside County GIS'))).toEqual([]);
    expect(all).toContain('# resources: old-banner.png (48213 bytes)');
    expect(all.some((line) => line.startsWith('# memberCategorySchema: exists (Departments)'))).toBe(true);
    expect(all.some((line) => line.startsWith('# portalGroupLink: group b4850fb244bf4fbc8b918c96f267b2cf (Planning Department)'))).toBe(true);
    expect(all.some((line) => line.startsWith('# group 3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c Public Works Field Data (owner jsmith): its category schema is empty'))).toBe(true);
    expect(all.some((line) => line.startsWith('# jsmith: task a1b2c3 Survey culverts is disabled'))).toBe(true);
    expect(all.some((line) => line.startsWith('# mlopez: task 9f8e7d Read onboarding guide is disabled'))).toBe(true);
    expect(text).not.toContain('3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c\n    categorySchema');
  });

  it('round-trips after examples/full was applied (more values exist)', async () => {
    portal = await startTestPortal();
    const root = process.cwd();
    const full = await loadConfig([join(root, 'examples/full')], { cwd: root, env: process.env, kinds: registry });
    const applied = await portal.apply(full, { allowDestructive: true });
    expect(applied.after.plan.operations).toEqual([]);

    const result = await importWith(portal);
    const config = await loadImported(portal, result);
    // What examples/full declares is now live and imported, for every kind that discovers (an
    // invitation is a wish to send: import names pending ones in comments).
    const imports = (kind: string): boolean => kind !== 'collaboration.invitation' && registry.byName.get(kind)?.discover !== undefined;
    const declared = full.objects.filter((obj) => !obj.absent && imports(obj.kind)).map((obj) => obj.address);
    const imported = new Set(config.objects.map((obj) => obj.address));
    for (const address of declared) expect(imported, address).toContain(address);
    expect((await portal.plan(config)).plan.operations).toEqual([]);
  });

  it('imports user levels, and no tasks, from a 10.6.1 portal', async () => {
    portal = await startTestPortal({ data: LEGACY_ORG });
    const result = await importWith(portal);
    const config = await loadImported(portal, result);
    expect(config.objects.map((obj) => obj.address).sort()).toEqual(
      ['organization.securityPolicy', 'role[fLdTc1]', 'user[admin].level', 'user[fieldtech].level'].sort(),
    );
    expect(lines(result.text)).toContain('# Fran Technician');
    expect(result.text).not.toContain('tasks:');
    expect((await portal.plan(config)).plan.operations).toEqual([]);
  });
});

describe('import with reads the token may not make', () => {
  it('skips user tasks for a token that cannot list the members (documented for administrators only), with a comment', async () => {
    portal = await startTestPortal();
    const result = await importWith(portal, 'viewer-token');
    expect(result.skipped.map((entry) => entry.kind)).toEqual(['user.task']);
    expect(result.text).toMatch(/^# user\.task \(E7 Enable task\) not imported: the token may not read it\. GET \/portals\/self\/users: .*\(403 GWM_0003\)$/m);
    const config = await loadImported(portal, result);
    expect(config.objects.some((obj) => obj.kind === 'user.task')).toBe(false);
    expect(config.objects.some((obj) => obj.kind === 'role')).toBe(true);
    expect((await portal.plan(config)).plan.operations).toEqual([]);
  });

  it('skips a kind whose read path answers 403 GWM_0003, and keeps the rest', async () => {
    portal = await startTestPortal();
    await portal.fault({
      path: '/portals/self/roles',
      count: 0,
      error: { code: 403, messageCode: 'GWM_0003', message: 'You do not have permissions to access this resource or perform this operation.' },
    });
    const result = await importWith(portal);
    expect(result.skipped.map((entry) => entry.kind)).toEqual(['role']);
    expect(lines(result.text).some((line) => line.startsWith('# role (E10 Update role) not imported: the token may not read it.'))).toBe(true);
    const config = await loadImported(portal, result);
    expect(config.objects.some((obj) => obj.kind === 'role')).toBe(false);
    expect(config.objects.some((obj) => obj.kind === 'federation')).toBe(true);
  });

  it('fails on a network error instead of writing a partial config', async () => {
    portal = await startTestPortal();
    await portal.fault({ path: '/portals/self/securityPolicy', count: 0, drop: true });
    await expect(importWith(portal)).rejects.toBeInstanceOf(ApiNetworkError);
  });
});
