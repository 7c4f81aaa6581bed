/**
 * The next apply records a recovery file into the state it was written for, and only that one:
 * named after the state's name alone, the file of one database's or schema's `prod` was taken
 * by another's new `prod`, with its lineage.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordRecoveryFile } from '../../src/engine/apply/apply.js';
import { FileStateStore } from '../../src/state/index.js';
import { RECOVERY_FORMAT, writeRecovery } from '../../src/state/recovery.js';

describe('recording a recovery file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portalctl-recovery-record-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('goes into the state it was written for; another state, even one with none yet, leaves it as it is and says so', async () => {
    const mine = new FileStateStore({ path: join(dir, 'prod.state.json') });
    const other = new FileStateStore({ path: join(dir, 'other', 'prod.state.json') });
    const recoveryFile = join(dir, 'portalctl-prod.recovery.json');
    const lineage = '1bad86b2-82db-4849-83e0-0e30b713e0b9';
    await writeRecovery(recoveryFile, {
      format: RECOVERY_FORMAT,
      state: mine.describe(),
      lineage,
      portal: { url: 'https://portal.example.com/portal/sharing/rest' },
      createdAt: '2026-11-25T12:00:00.000Z',
      resources: { 'role[r1]': { kind: 'role', ids: { roleId: 'r1' }, value: { name: 'Analyst' }, appliedAt: '2026-11-25T12:00:00.000Z' } },
      unknownOutcomes: {},
    });
    const notices: string[] = [];
    const onNotice = (message: string) => notices.push(message);

    expect(await recordRecoveryFile(other, undefined, { recoveryFile, onNotice })).toBeUndefined();
    expect(notices).toEqual([`The recovery file ${recoveryFile} belongs to the state ${mine.describe()}, not ${other.describe()}; it was left as it is (an apply with that state records it).`]);
    expect(await other.read()).toBeUndefined();
    expect(existsSync(recoveryFile)).toBe(true);

    const recorded = await recordRecoveryFile(mine, undefined, { recoveryFile, onNotice });
    expect(recorded).toMatchObject({ lineage, serial: 1, resources: { 'role[r1]': { kind: 'role' } } });
    expect(existsSync(recoveryFile)).toBe(false);
  });
});
