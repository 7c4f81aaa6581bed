/**
 * The change-threshold safety stop through the real CLI against the emulator: an apply that
 * would update or remove too large a share of a kind's managed objects exits 1 naming the
 * counts and sends nothing; --force or the config's `safety:` block lets it through.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

const ROLES = 20;
const roleId = (index: number): string => `role${String(index).padStart(2, '0')}`;

/** The config of the 20 custom roles, the first `renamed` with a new name. */
function rolesConfig(renamed: number, safety = ''): string {
  const entries = Array.from({ length: ROLES }, (_, index) => `  - { id: ${roleId(index)}, name: ${index < renamed ? 'Renamed' : 'Role'} ${index} }`);
  return `${CONFIG_HEADER}${safety}roles:\n${entries.join('\n')}\n`;
}

describe('change thresholds through the CLI', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
    const live = await portal.state();
    live.roles = [
      ...live.roles,
      ...Array.from({ length: ROLES }, (_, index) => ({ id: roleId(index), name: `Role ${index}`, description: '', privileges: ['portal:user:joinGroup'] })),
    ];
    live.organization.resources = Array.from({ length: 12 }, (_, index) => ({ key: `file-${index}.png`, size: 100, created: 1700000000000 }));
    await portal.replaceState(live);
    await portal.clearRequests();
  });
  afterEach(async () => portal.dispose());

  const roleNames = async (): Promise<string[]> => (await portal.state()).roles.filter((role) => role.id.startsWith('role')).map((role) => role.name);

  it('refuses 12 of 20 role updates with exit 1, naming the counts, and sends nothing; --force applies them', async () => {
    const config = await portal.writeConfig(rolesConfig(12));
    const refused = await portal.run(['apply', config, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('12 of 20 roles (60%) would be updated; the limit is 30%');
    expect(refused.stderr).toContain('--force');
    // Refused before the plan is shown for confirmation, and before any write or record.
    expect(refused.stdout).not.toContain('role[role00]');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    expect(await portal.recorded()).toBeUndefined();
    expect((await roleNames()).filter((name) => name.startsWith('Renamed'))).toEqual([]);

    const forced = await portal.run(['apply', config, '--auto-approve', '--force']);
    expect(forced.code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(12);
    expect((await roleNames()).filter((name) => name.startsWith('Renamed'))).toHaveLength(12);
    expect((await portal.run(['plan', config, '--detailed-exitcode'])).code).toBe(0);
  });

  it('applies a share within the default limit without --force', async () => {
    const config = await portal.writeConfig(rolesConfig(6));
    const applied = await portal.run(['apply', config, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(6);
  });

  it("a per-kind setting in the config raises the kind's limit; other kinds keep the defaults", async () => {
    const raised = await portal.writeConfig(rolesConfig(12, 'safety:\n  role: { maxUpdates: 0.6 }\n'), 'raised');
    const applied = await portal.run(['apply', raised, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(12);

    // The roles' setting does not cover removals of resources (10 of 10 declared, over 10%).
    await portal.clearRequests();
    const removals = await portal.writeConfig(
      `${CONFIG_HEADER}safety:\n  role: { maxUpdates: 0.6 }\norganization:\n  resources:\n    absent: [${Array.from({ length: 10 }, (_, index) => `file-${index}.png`).join(', ')}]\n`,
      'removals',
    );
    const refused = await portal.run(['apply', removals, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('10 of 10 organization.resources (100%) would be removed; the limit is 10%');
    expect(await portal.requests({ writesOnly: true })).toHaveLength(0);
    expect((await portal.state()).organization.resources).toHaveLength(12);

    const allowed = await portal.writeConfig(
      `${CONFIG_HEADER}safety:\n  organization.resource: { maxRemovals: 1 }\norganization:\n  resources:\n    absent: [${Array.from({ length: 10 }, (_, index) => `file-${index}.png`).join(', ')}]\n`,
      'allowed',
    );
    const removed = await portal.run(['apply', allowed, '--auto-approve']);
    expect(removed.code).toBe(0);
    expect((await portal.state()).organization.resources.map((resource) => resource.key).sort()).toEqual(['file-10.png', 'file-11.png']);
  });

  it('a minManaged above the kind\'s count turns the check off for that kind', async () => {
    const config = await portal.writeConfig(rolesConfig(20, 'safety:\n  role: { minManaged: 21 }\n'));
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    expect(await portal.requests({ writesOnly: true })).toHaveLength(20);
  });

  it('an invalid safety setting is a config error before any request', async () => {
    const config = await portal.writeConfig(rolesConfig(12, 'safety:\n  role: { maxUpdates: 60 }\n'));
    const result = await portal.run(['apply', config, '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/portalctl\.yaml:7:\d+: error: safety\.role\.maxUpdates must be at most 1\./);
    expect(await portal.requests()).toHaveLength(0);
  });
});
