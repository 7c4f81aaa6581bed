/**
 * Without refresh, the recorded values are the plan's basis: RecordedBasis is a view of the
 * state's entries (no copy of a large state), each fingerprint revealed by the desired value.
 * It must answer as the Map it replaced did, entry for entry.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RecordedBasis } from '../../src/engine/plan/recorded-values.js';
import type { DesiredObject } from '../../src/kinds/toolkit/contract.js';
import { newState, parseState, recordOperation, serializeState } from '../../src/state/index.js';

const secret = 'Edits the maps of the north';
const fingerprint = `sha256:${createHash('sha256').update(secret).digest('hex')}:\${env:ROLE_NOTE}`;

function recorded() {
  let state = newState({ url: 'https://portal.example.org/portal/sharing/rest' });
  state = recordOperation(state, 'role[r1]', { kind: 'role', ids: { roleId: 'r1' }, value: { name: 'Editors', description: fingerprint } });
  state = recordOperation(state, 'role[r2]', { kind: 'role', ids: { roleId: 'r2' }, value: { name: 'Viewers', description: 'plain' } });
  state = recordOperation(state, 'organization.resource[old.png]', { kind: 'organization.resource', ids: { key: 'old.png' }, value: null });
  return state;
}

const desired = (address: string, value: DesiredObject['value']): DesiredObject => ({ kind: 'role', address, ids: {}, value, absent: false, destructive: false, source: { file: 'portalctl.yaml', line: 1, column: 1 } });

describe('the recorded basis', () => {
  // From memory (every entry may hold a fingerprint) and as read from a file (only the lines that mention one).
  for (const [from, state] of [
    ['in memory', recorded()],
    ['read from its file', parseState(serializeState(recorded()), 'portalctl.state.json')],
  ] as const) {
    it(`answers for each recorded entry, fingerprints revealed by the desired value (${from})`, () => {
      const basis = new RecordedBasis(state, [desired('role[r1]', { name: 'Editors', description: secret })]);
      expect(basis.get('role[r1]')).toEqual({ name: 'Editors', description: secret });
      expect(basis.get('role[r2]')).toEqual({ name: 'Viewers', description: 'plain' });
      expect(basis.get('organization.resource[old.png]')).toBeNull();
      expect(basis.has('organization.resource[old.png]')).toBe(true);
      expect(basis.get('role[r3]')).toBeUndefined();
      expect(basis.has('role[r3]')).toBe(false);
      expect(basis.has('toString')).toBe(false);
      expect(basis.size).toBe(3);
      const asMap = new Map([
        ['role[r1]', { name: 'Editors', description: secret }],
        ['role[r2]', { name: 'Viewers', description: 'plain' }],
        ['organization.resource[old.png]', null],
      ]);
      expect(new Map(basis)).toEqual(asMap);
      expect([...basis.keys()].sort()).toEqual([...asMap.keys()].sort());
      expect([...basis.values()]).toHaveLength(3);
      const seen: string[] = [];
      basis.forEach((_value, address, map) => {
        expect(map).toBe(basis);
        seen.push(address);
      });
      expect(seen.sort()).toEqual([...asMap.keys()].sort());
    });
  }

  it('leaves a fingerprint that no desired value matches as it is (it reads as a change)', () => {
    const basis = new RecordedBasis(recorded(), [desired('role[r1]', { name: 'Editors', description: 'something else' })]);
    expect(basis.get('role[r1]')).toEqual({ name: 'Editors', description: fingerprint });
  });
});
