/**
 * The recovery file (src/state/recovery.ts): what an apply could not record is kept there and
 * recorded first by the next apply. A file that is not one, or whose records are broken, is a
 * clear error that names it, and it is left in place for a person to inspect.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECOVERY_FORMAT, readRecovery, writeRecovery, type RecoveryDocument } from '../../src/state/recovery.js';

const document: RecoveryDocument = {
  format: RECOVERY_FORMAT,
  state: 'portalctl.state.json',
  lineage: '1bad86b2-82db-4849-83e0-0e30b713e0b9',
  portal: { url: 'https://portal.example.com/portal/sharing/rest' },
  createdAt: '2026-11-25T12:00:00.000Z',
  resources: { 'role[r1]': { kind: 'role', ids: { roleId: 'r1' }, value: { name: 'Analyst' }, appliedAt: '2026-11-25T12:00:00.000Z' } },
  unknownOutcomes: {},
};

describe('recovery file', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portalctl-recovery-'));
    file = join(dir, 'portalctl.state.json.recovery.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads back what was written', async () => {
    expect(await writeRecovery(file, document)).toBe(file);
    expect(await readRecovery(file)).toEqual({ path: file, document });
  });

  it.each([
    ['not JSON', '{"format": "portalctl-recovery/1", ', /is not valid JSON; inspect it, then remove it/],
    ['another file', JSON.stringify({ format: 'something else', resources: {} }), /is not a portalctl recovery file; inspect it, then remove it/],
    ['a record without its kind', JSON.stringify({ ...document, resources: { 'role[r1]': { ids: { roleId: 'r1' }, value: {} } } }), /^Recovery file .* is corrupt: .*kind/],
    ['an unknown outcome without ids', JSON.stringify({ ...document, unknownOutcomes: { 'role[r2]': { kind: 'role' } } }), /^Recovery file .* is corrupt: unknownOutcomes\["role\[r2\]"\]\.ids/],
  ])('%s: a clear error naming the file, and the file is kept', async (_name, text, message) => {
    await writeFile(file, text);
    await expect(readRecovery(file)).rejects.toThrow(message);
    expect(existsSync(file)).toBe(true);
  });
});
