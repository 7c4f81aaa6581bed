/**
 * Drift that can be accepted, through the real CLI against the emulator: `apply` records the live
 * value of what the configuration already matches (adopt-on-match), `apply --refresh-only`
 * records live values without a write, `drift` says which of the two fits each entry and that
 * drift cannot be judged before anything is recorded; `state history` and `state show` show what
 * was recorded.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POLICY_AND_ROLE, startCliPortal, type CliPortal } from '../support/cli.js';

let portal: CliPortal;
let config: string;

beforeEach(async () => {
  portal = await startCliPortal();
  config = await portal.writeConfig(POLICY_AND_ROLE);
});

afterEach(async () => portal.dispose());

/** Someone edits the role's description on the portal by hand. */
async function editRoleByHand(description: string): Promise<void> {
  const state = await portal.state();
  const role = state.roles.find((entry) => entry.id === 'r7HkQ2');
  if (!role) throw new Error('the sample organization has role r7HkQ2');
  role.description = description;
  await portal.replaceState(state);
  await portal.clearRequests();
}

interface HistoryRow {
  serial: number;
  changed: number;
  command: string;
}

async function history(): Promise<HistoryRow[]> {
  const result = await portal.run(['state', 'history']);
  expect(result.code).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => /^\d+\t/.test(line))
    .map((line) => {
      const [serial, , , changed, command] = line.split('\t');
      return { serial: Number(serial), changed: Number(changed), command: command ?? '' };
    });
}

async function recordedDescription(): Promise<unknown> {
  const shown = await portal.run(['state', 'show']);
  const state = JSON.parse(shown.stdout) as { resources: Record<string, { value: { description?: string } }> };
  return state.resources['role[r7HkQ2]']?.value.description;
}

interface DriftReport {
  status: string;
  driftJudged: boolean;
  drift: { address: string; resolution: string }[];
  pending: { address: string }[];
}

async function driftReport(): Promise<{ code: number | null; report: DriftReport }> {
  const result = await portal.run(['drift', config, '--format', 'json']);
  return { code: result.code, report: JSON.parse(result.stdout) as DriftReport };
}

describe('adopt-on-match: apply records the live value the configuration matches', () => {
  it('a hand edit, then the YAML edited to the same value: apply sends nothing, records it, and drift is clean', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Changed in the portal by hand');

    // The configuration still says otherwise: accepting it takes --refresh-only (or a YAML edit).
    const before = await driftReport();
    expect(before.code).toBe(3);
    expect(before.report.drift.map((entry) => [entry.address, entry.resolution])).toEqual([['role[r7HkQ2]', 'refresh-only']]);

    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('description: Edits field data', 'description: Changed in the portal by hand'));
    const matching = await driftReport();
    expect(matching.code).toBe(3);
    expect(matching.report.drift.map((entry) => [entry.address, entry.resolution])).toEqual([['role[r7HkQ2]', 'adopt']]);
    expect(matching.report.pending).toEqual([]);
    const text = await portal.run(['drift', config]);
    expect(text.stdout).toContain('      → keep it with `portalctl apply` (the configuration already asks for this value; nothing is sent)');

    const serialBefore = (await history())[0]?.serial ?? 0;
    const apply = await portal.run(['apply', config, '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('No changes. The portal matches the configuration.');
    expect(apply.stdout).toContain("Drift resolved by adopting the portal's value, which the configuration now asks for (recorded, nothing sent): 1\nadopted  role[r7HkQ2] — Field Analyst");
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    const [newest] = await history();
    expect(newest).toMatchObject({ serial: serialBefore + 1, changed: 1 });
    expect(newest?.command).toMatch(/^portalctl apply .* --auto-approve/);
    expect(await recordedDescription()).toBe('Changed in the portal by hand');

    const after = await driftReport();
    expect(after.code).toBe(0);
    expect(after.report).toMatchObject({ status: 'inSync', driftJudged: true, drift: [], pending: [] });
    // Nothing left to adopt: a second apply writes no new serial.
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    expect((await history())[0]?.serial).toBe(serialBefore + 1);
  });

  it('--format json lists what was adopted', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Adopted');
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('description: Edits field data', 'description: Adopted'));
    const apply = await portal.run(['apply', config, '--auto-approve', '--format', 'json']);
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout)).toMatchObject({ applied: [], adopted: [{ address: 'role[r7HkQ2]', reason: 'drift' }], converged: true });
  });

  it('an apply with --target leaves drift on other objects as it is (recording it would accept it silently)', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Not targeted');
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 14'));
    const targeted = await portal.run(['apply', config, '--auto-approve', '--target', 'organization.securityPolicy']);
    expect(targeted.code).toBe(0);
    expect(await recordedDescription()).toBe('Edits field data');
    const { code, report } = await driftReport();
    expect(code).toBe(3);
    expect(report.drift.map((entry) => entry.address)).toEqual(['role[r7HkQ2]']);
  });
});

describe('drift compares what the record and the configuration both manage', () => {
  it('a field no longer declared, or declared since the record, is no drift; a declared field changed outside still is', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    // The role's description is left to the portal, and the policy's minLength joins it later.
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('    description: Edits field data\n', '').replace('    historySize: 5\n', '    historySize: 5\n    minUpper: 2\n'));
    await editRoleByHand('Left to the portal');
    const unmanaged = await driftReport();
    expect(unmanaged.report.drift).toEqual([]);
    expect(unmanaged.report.pending.map((entry) => entry.address)).toEqual(['organization.securityPolicy']);
    expect(unmanaged.code).toBe(2);

    // Declared again: the record still holds the description applied, so the hand edit is drift.
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE);
    const declared = await driftReport();
    expect(declared.code).toBe(3);
    expect(declared.report.drift.map((entry) => entry.address)).toEqual(['role[r7HkQ2]']);
  });
});

describe('what an apply records', () => {
  it('what it changed, once: the records its closing read only confirms are not written again', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const before = (await history())[0]?.serial ?? 0;
    await writeFile(join(config, 'portalctl.yaml'), POLICY_AND_ROLE.replace('minLength: 12', 'minLength: 14'));
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    // One serial, the policy's operation; the role, read again and unchanged, is not rewritten.
    expect((await history()).filter((row) => row.serial > before).map((row) => row.changed)).toEqual([1]);
  });
});

describe('an apply whose write fails', () => {
  it('keeps the record of the object it could not change: the change made outside portalctl is still drift', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Changed outside');
    // The portal refuses the write that would set the configured description back.
    await portal.fault({ path: '/portals/self/roles/r7HkQ2/update', error: { code: 400, message: 'Refused' }, count: 0 });
    const failed = await portal.run(['apply', config, '--auto-approve']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/FAILED +role\[r7HkQ2\]/);
    expect(await recordedDescription()).toBe('Edits field data');
    const { code, report } = await driftReport();
    expect(code).toBe(3);
    expect(report.drift).toMatchObject([{ address: 'role[r7HkQ2]', resolution: 'refresh-only' }]);
    expect(report.pending.map((entry) => entry.address)).toEqual(['role[r7HkQ2]']);
  });
});

describe('apply --refresh-only', () => {
  it('shows what it will record, records it with --auto-approve and sends nothing; drift is then clean and the configuration ahead', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Kept from the portal');
    const serialBefore = (await history())[0]?.serial ?? 0;

    // Not on a terminal and not approved: shown, refused, nothing recorded.
    const unapproved = await portal.run(['apply', config, '--refresh-only']);
    expect(unapproved.code).toBe(1);
    expect(unapproved.stdout).toContain('Refresh-only: 1 object to record from the portal (1 changed outside portalctl, 0 not recorded yet). Nothing is sent to the portal.');
    expect(unapproved.stdout).toContain('  ! role[r7HkQ2] — Field Analyst\n      description: recorded "Edits field data", now "Kept from the portal"');
    expect(unapproved.stderr).toContain('Not running on a terminal: review what will be recorded and pass --auto-approve.');
    expect((await history())[0]?.serial).toBe(serialBefore);
    expect(await recordedDescription()).toBe('Edits field data');

    const approved = await portal.run(['apply', config, '--refresh-only', '--auto-approve']);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`Recorded 1 object in the state at file ${portal.statePath} (serial ${serialBefore + 1}). Nothing was sent to the portal.`);
    expect(approved.stdout).toContain('The configuration still differs from the portal in 1 operation: `portalctl plan` shows them.');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    const [newest] = await history();
    expect(newest).toMatchObject({ serial: serialBefore + 1, changed: 1 });
    expect(newest?.command).toContain('--refresh-only');
    expect(await recordedDescription()).toBe('Kept from the portal');

    // Recorded: no drift any more; the configuration is ahead of the portal (pending).
    const { code, report } = await driftReport();
    expect(code).toBe(2);
    expect(report.drift).toEqual([]);
    expect(report.pending.map((op) => op.address)).toEqual(['role[r7HkQ2]']);

    const again = await portal.run(['apply', config, '--refresh-only', '--auto-approve']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes to record: the state already holds what the portal has.');
    expect((await history())[0]?.serial).toBe(serialBefore + 1);
  });

  it('with no state yet, records every managed object as the portal has it, and drift can then be judged', async () => {
    const before = await portal.run(['drift', config]);
    expect(before.code).toBe(2);
    expect(before.stdout).toContain('Drift cannot be judged: there is no recorded state yet. A first `portalctl apply` (or `portalctl apply --refresh-only`');
    expect(before.stdout).not.toMatch(/Drift: 0 object/);
    expect(JSON.parse((await portal.run(['drift', config, '--format', 'json'])).stdout)).toMatchObject({ driftJudged: false, recordedState: null });

    const recorded = await portal.run(['apply', config, '--refresh-only', '--auto-approve', '--format', 'json']);
    expect(recorded.code).toBe(0);
    const result = JSON.parse(recorded.stdout) as { recorded: { address: string; reason: string; matchesConfig: boolean }[]; state: { serial: number } };
    expect(result.recorded.map((entry) => [entry.address, entry.reason])).toEqual([
      ['organization.securityPolicy', 'new'],
      ['role[r7HkQ2]', 'new'],
    ]);
    expect(result.state.serial).toBe(1);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    const { report } = await driftReport();
    expect(report).toMatchObject({ driftJudged: true, drift: [] });
  });

  it('with --target, says nothing is left to record within the targets, not in the whole state', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    await editRoleByHand('Kept from the portal');

    const targeted = await portal.run(['apply', config, '--refresh-only', '--auto-approve', '--target', 'organization']);
    expect(targeted.code).toBe(0);
    // The role drifted outside the target: the state does not hold what the portal has for it.
    expect(targeted.stdout).toBe('No changes to record within the targets (organization): the state already holds what the portal has for them.\n');
    expect(await recordedDescription()).toBe('Edits field data');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('refuses --plan with a clear error and records nothing', async () => {
    const result = await portal.run(['apply', '--refresh-only', '--plan', 'plan.json', '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--refresh-only cannot be combined with --plan');
    expect(await portal.recorded()).toBeUndefined();
  });

  it('never shows a referenced secret as it records it', async () => {
    const secret = 'Role note s3cr3t-value';
    config = await portal.writeConfig(POLICY_AND_ROLE.replace('description: Edits field data', 'description: ${env:ROLE_NOTE}'), 'secret');
    const env = { ROLE_NOTE: secret };
    expect((await portal.run(['apply', config, '--auto-approve'], { env })).code).toBe(0);
    await editRoleByHand('Hand edit');
    const result = await portal.run(['apply', config, '--refresh-only', '--auto-approve'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/description: recorded "?\$\{env:ROLE_NOTE\}/);
    expect(result.stdout).not.toContain('s3cr3t');
  });
});
