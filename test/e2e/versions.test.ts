/**
 * The version model through the real CLI against emulators playing real releases: `portal.version`
 * is the product release, learnt from `enterpriseVersion` (11.3+), the Portal Administration root
 * (administrators) or the hosted edition's dated release; the REST API version (`currentVersion`)
 * is never taken for it, and a release that cannot be known is said in the plan, never refused on.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { CONFIG_HEADER, startCliPortal } from '../support/cli.js';
import { sampleOrg } from '../kinds/settings-support.js';

interface JsonPlan {
  warnings: { address: string; kind: string; message: string }[];
  operations: { address: string; operation: { id: string } }[];
}

const header = (version?: string, edition = 'self-managed'): string =>
  `version: 1\nportal:\n  url: \${env:PORTAL_URL}\n  edition: ${edition}\n${version === undefined ? '' : `  version: "${version}"\n`}`;

/** Self-managed 11.1: its root has no enterpriseVersion; "2.2" is the Root resource page's older API version example. */
const playing11_1 = (): EmulatorState => sampleOrg((state) => Object.assign(state.organization, { version: '11.1', apiVersion: '2.2', build: '42854' }));

/** Self-managed 10.2.1 reporting API version "2.3", as the vendor's PortalPy client says it does (github.com/Esri/portalpy, portalpy.py). */
const playing10_2_1 = (): EmulatorState => sampleOrg((state) => Object.assign(state.organization, { version: '10.2.1', apiVersion: '2.3' }));

describe('the product release, through the CLI', () => {
  it('an 11.3 reporting currentVersion "2024.1": plans show no version warning, and import writes 11.3', async () => {
    const portal = await startCliPortal();
    try {
      const root = (await (await fetch(`${portal.url}?f=json`)).json()) as Record<string, unknown>;
      expect(root).toEqual({ currentVersion: '2024.1', enterpriseVersion: '11.3.0', enterpriseBuild: '51526' });
      const dir = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy:\n    minLength: 12\n`);
      const plan = await portal.run(['plan', dir, '--format', 'json']);
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(0);
      expect((JSON.parse(plan.stdout) as JsonPlan).warnings).toEqual([]);

      const imported = await portal.run(['import', '--out', 'imported.yaml']);
      expect(imported.code).toBe(0);
      const text = await readFile(join(portal.dir, 'imported.yaml'), 'utf8');
      expect(text).toContain('version: "11.3" # product release, from enterpriseVersion 11.3.0 (build 51526) at the REST root');
      expect(text).not.toContain('2024.1');
      // The imported config plans empty against the same portal: its version raises no warning either.
      const again = await portal.run(['plan', 'imported.yaml', '--detailed-exitcode']);
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
    } finally {
      await portal.dispose();
    }
  });

  it('a pre-11.3 portal with a small API version: the release comes from the Portal Administration root, so E8 (10.4) is planned and E4 (10.6.1 or earlier) refused', async () => {
    const portal = await startCliPortal({ data: playing11_1() });
    try {
      const policy = await portal.writeConfig(`${header('11.1')}organization:\n  securityPolicy:\n    minLength: 12\n`, 'policy');
      const planned = await portal.run(['plan', policy, '--format', 'json']);
      expect(planned.stderr).toBe('');
      expect((JSON.parse(planned.stdout) as JsonPlan).operations.map((op) => op.operation.id)).toEqual(['E8']);
      expect((await portal.requests()).map((request) => request.path)).toContain('/portal/portaladmin');

      const levels = await portal.writeConfig(`${header()}users:\n  - username: jsmith\n    level: 1\n`, 'levels');
      const refused = await portal.run(['plan', levels]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('User levels (E4) can be set only on self-managed 10.6.1 or earlier; the portal is 11.1.');
    } finally {
      await portal.dispose();
    }
  });

  it('without administrator rights the release of a pre-11.3 portal is unknown: the plan says so and refuses nothing', async () => {
    const portal = await startCliPortal({ data: playing11_1() });
    try {
      // E7 exists from 10.8.1; no version is declared, so only the live release could refuse it.
      const dir = await portal.writeConfig(`${header()}users:\n  - username: jsmith\n    tasks:\n      - { id: a1b2c3, enabled: true }\n`);
      const plan = await portal.run(['plan', dir, '--format', 'json'], { credentials: { token: 'jsmith-token' } });
      expect(plan.code).toBe(0);
      const value = JSON.parse(plan.stdout) as JsonPlan;
      expect(value.operations.map((op) => op.operation.id)).toEqual(['E7']);
      expect(value.warnings).toHaveLength(1);
      expect(value.warnings[0]).toMatchObject({ address: 'portal', kind: 'portal' });
      expect(value.warnings[0]?.message).toContain('cannot be known: the REST root has no enterpriseVersion (it has from 11.3 on); the Portal Administration root could not be read');
      expect(value.warnings[0]?.message).toContain('REST API version 2.2 names no release in a public source portalctl knows. Version rules were not checked');

      const text = await portal.run(['plan', dir], { credentials: { token: 'jsmith-token' } });
      expect(text.stdout).toContain('portal: The product release of the portal at');
    } finally {
      await portal.dispose();
    }
  });

  it('without administrator rights, a pre-11.3 portal whose API version a public source names plans with that release (2.3: 10.2.1)', async () => {
    const portal = await startCliPortal({ data: playing10_2_1() });
    try {
      const empty = await portal.writeConfig(header(), 'empty');
      const plan = await portal.run(['plan', empty, '--format', 'json'], { credentials: { token: 'jsmith-token' } });
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(0);
      // The release is known: no "cannot be known" warning, although portaladmin was asked and refused.
      expect((JSON.parse(plan.stdout) as JsonPlan).warnings).toEqual([]);
      expect((await portal.requests()).map((request) => request.path)).toContain('/portal/portaladmin');

      // E7 exists from 10.8.1; nothing declared a version, so the learnt 10.2.1 refuses it.
      const tasks = await portal.writeConfig(`${header()}users:\n  - username: jsmith\n    tasks:\n      - { id: a1b2c3, enabled: true }\n`, 'tasks');
      const refused = await portal.run(['plan', tasks], { credentials: { token: 'jsmith-token' } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Enabling tasks (E7) exists from 10.8.1; the portal is 10.2.1.');
    } finally {
      await portal.dispose();
    }
  });

  it('a declared release the portal contradicts is a warning naming both, and "11.3" equals "11.3.0"', async () => {
    const portal = await startCliPortal({ data: playing11_1() });
    try {
      const dir = await portal.writeConfig(`${header('11.3')}organization:\n  securityPolicy:\n    minLength: 12\n`);
      const plan = await portal.run(['plan', dir]);
      expect(plan.code).toBe(0);
      // Located at the declared value, not at the portal block.
      expect(plan.stderr).toMatch(/portalctl\.yaml:5:12: warning: portal\.version is declared as "11\.3", but the portal at/);
      expect(plan.stderr).toContain('reports "11.1"');
    } finally {
      await portal.dispose();
    }
    const current = await startCliPortal();
    try {
      const dir = await current.writeConfig(`${header('11.3.0')}organization:\n  securityPolicy:\n    minLength: 12\n`);
      const plan = await current.run(['plan', dir]);
      expect(plan.stderr).toBe('');
    } finally {
      await current.dispose();
    }
  });

  it('hosted: the dated release is the API version; declared "2024.1" raises no warning, import writes it, and portaladmin is never asked', async () => {
    const hosted = sampleOrg((state) => Object.assign(state.organization, { edition: 'hosted', version: '2024.1', apiVersion: '2024.1' }));
    const portal = await startCliPortal({ data: hosted });
    try {
      const dir = await portal.writeConfig(`${header('2024.1', 'hosted')}organization:\n  securityPolicy:\n    minLength: 12\n`, 'policy');
      const plan = await portal.run(['plan', dir, '--format', 'json']);
      expect(plan.stderr).toBe('');
      expect((JSON.parse(plan.stdout) as JsonPlan).warnings).toEqual([]);
      // The hosted edition has no Portal Administration API: it is never asked.
      expect((await portal.requests()).map((request) => request.path)).not.toContain('/portal/portaladmin');

      const imported = await portal.run(['import']);
      expect(imported.stdout).toContain("version: \"2024.1\" # product release, from the hosted edition's dated release 2024.1");
    } finally {
      await portal.dispose();
    }
  });
});
