/**
 * The change-threshold safety stop: shares per kind, defaults, per-kind settings, the message,
 * --force, the `safety:` block of the config (schema, duplicates), and applyConfig refusing
 * before confirmation and before any write.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredObject } from '../../src/kinds/toolkit/contract.js';
import type { Plan, PlannedOperation } from '../../src/engine/plan/plan.js';
import { loadConfig, validateConfig } from '../../src/engine/config/index.js';
import {
  DEFAULT_SAFETY_LIMITS,
  SafetyThresholdError,
  describeExceeded,
  exceededThresholds,
  limitsFor,
  refuseOverThresholds,
} from '../../src/engine/plan/safety.js';
import { registry } from '../../src/registry.js';

function operation(kind: string, index: number, action: PlannedOperation['action']): PlannedOperation {
  return {
    address: `${kind}[${index}]`,
    kind,
    action,
    operation: { id: 'E0', name: 'test' },
    request: { method: 'POST', path: `/x/${index}`, form: {}, response: 'json', idempotent: true },
    before: null,
    after: null,
    patch: [],
    destructive: false,
    dependsOn: [],
  };
}

function planOf(operations: PlannedOperation[]): Plan {
  return {
    formatVersion: 1,
    createdAt: '2025-01-01T00:00:00.000Z',
    portal: { url: 'http://127.0.0.1/portal/sharing/rest' },
    refreshed: true,
    state: null,
    basisDigest: '',
    targets: [],
    sources: [],
    summary: { create: 0, update: 0, delete: 0, destructive: 0, byKind: {}, drift: 0 },
    operations,
    drift: [],
    warnings: [],
  };
}

const managed = (kind: string, count: number): Pick<DesiredObject, 'kind'>[] => Array.from({ length: count }, () => ({ kind }));
const ops = (kind: string, count: number, action: PlannedOperation['action'], from = 0): PlannedOperation[] =>
  Array.from({ length: count }, (_, index) => operation(kind, from + index, action));

describe('change thresholds', () => {
  it('defaults: updates 30% and removals 10%, when at least 10 objects of the kind are managed', () => {
    expect(DEFAULT_SAFETY_LIMITS).toEqual({ maxUpdates: 0.3, maxRemovals: 0.1, minManaged: 10 });
    expect(limitsFor('role', {})).toEqual(DEFAULT_SAFETY_LIMITS);
    expect(limitsFor('role', { role: { maxUpdates: 0.5 } })).toEqual({ maxUpdates: 0.5, maxRemovals: 0.1, minManaged: 10 });
  });

  it('names the counts, the share and the limit', () => {
    const exceeded = exceededThresholds(planOf(ops('role', 12, 'update')), managed('role', 20));
    expect(exceeded).toEqual([{ kind: 'role', change: 'updated', count: 12, managed: 20, limit: 0.3 }]);
    expect(describeExceeded(exceeded[0]!)).toBe('12 of 20 roles (60%) would be updated; the limit is 30%');
  });

  it('exactly at the limit passes; one more is refused', () => {
    expect(exceededThresholds(planOf(ops('role', 6, 'update')), managed('role', 20))).toEqual([]);
    expect(exceededThresholds(planOf(ops('role', 7, 'update')), managed('role', 20))).toHaveLength(1);
    expect(exceededThresholds(planOf(ops('organization.resource', 2, 'delete')), managed('organization.resource', 20))).toEqual([]);
    expect(exceededThresholds(planOf(ops('organization.resource', 3, 'delete')), managed('organization.resource', 20))).toEqual([
      { kind: 'organization.resource', change: 'removed', count: 3, managed: 20, limit: 0.1 },
    ]);
  });

  it('creations never count; removals and updates are checked separately', () => {
    const plan = planOf([...ops('role', 20, 'create'), ...ops('role', 2, 'delete', 20), ...ops('role', 3, 'update', 30)]);
    expect(exceededThresholds(plan, managed('role', 25))).toEqual([]);
  });

  it('kinds with fewer managed objects than minManaged are not checked', () => {
    expect(exceededThresholds(planOf(ops('role', 9, 'update')), managed('role', 9))).toEqual([]);
    expect(exceededThresholds(planOf(ops('role', 9, 'update')), managed('role', 9), { role: { minManaged: 5 } })).toHaveLength(1);
  });

  it('each kind against its own managed objects and its own settings, reported in kind order', () => {
    const plan = planOf([...ops('user.level', 5, 'update'), ...ops('item.status', 50, 'update'), ...ops('role', 5, 'delete')]);
    const objects = [...managed('item.status', 100), ...managed('user.level', 10), ...managed('role', 10)];
    const exceeded = exceededThresholds(plan, objects, { 'item.status': { maxUpdates: 0.5 } });
    expect(exceeded.map(describeExceeded)).toEqual([
      '5 of 10 roles (50%) would be removed; the limit is 10%',
      '5 of 10 user.levels (50%) would be updated; the limit is 30%',
    ]);
    expect(exceededThresholds(plan, objects, { 'item.status': { maxUpdates: 0.49 } }).map(describeExceeded)[0]).toBe(
      '50 of 100 item.status entries (50%) would be updated; the limit is 49%',
    );
  });

  it('refuses with every exceeded limit in the error, unless forced', () => {
    const plan = planOf([...ops('role', 12, 'update'), ...ops('role', 3, 'delete', 100)]);
    const objects = managed('role', 20);
    let error: unknown;
    try {
      refuseOverThresholds(plan, objects, {}, false);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SafetyThresholdError);
    const message = (error as Error).message;
    expect(message).toContain('12 of 20 roles (60%) would be updated; the limit is 30%');
    expect(message).toContain('3 of 20 roles (15%) would be removed; the limit is 10%');
    expect(message).toContain('Nothing was applied');
    expect(message).toContain('--force');
    expect(() => refuseOverThresholds(plan, objects, {}, true)).not.toThrow();
    expect(() => refuseOverThresholds(plan, objects, { role: { maxUpdates: 0.6, maxRemovals: 0.15 } }, false)).not.toThrow();
  });
});

describe('the safety block of the config', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portalctl-safety-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const load = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return loadConfig(['.'], { cwd: dir, env: {}, kinds: registry });
  };

  it('reads limits per kind name', async () => {
    const loaded = await load({ 'a.yaml': 'version: 1\nsafety:\n  role: { maxUpdates: 0.5, maxRemovals: 0.2 }\n  item.status:\n    minManaged: 100\n' });
    expect(validateConfig(loaded)).toEqual([]);
    expect(loaded.safety).toEqual({ role: { maxUpdates: 0.5, maxRemovals: 0.2 }, 'item.status': { minManaged: 100 } });
  });

  it('no block: no settings (the defaults apply)', async () => {
    expect((await load({ 'a.yaml': 'version: 1\n' })).safety).toEqual({});
  });

  it('refuses shares outside 0..1, a fractional or negative minManaged, unknown kinds and unknown limits, with file:line:column', async () => {
    const loaded = await load({
      'a.yaml': [
        'version: 1',
        'safety:',
        '  role:',
        '    maxUpdates: 1.5',
        '    maxRemovals: -0.1',
        '    minManaged: 2.5',
        '  user.level: { maxDeletes: 0.2 }',
        '  roles: { maxUpdates: 0.2 }',
        '  federation: { maxUpdates: "50%" }',
        '',
      ].join('\n'),
    });
    const diagnostics = validateConfig(loaded).filter((d) => d.severity === 'error');
    const lines = diagnostics.map((d) => d.location?.line);
    expect(lines).toEqual(expect.arrayContaining([4, 5, 6, 7, 8, 9]));
    for (const diagnostic of diagnostics) expect(diagnostic.location?.file).toBe('a.yaml');
    expect(loaded.safety).toEqual({});
  });

  it('the block may be declared once across the files', async () => {
    const loaded = await load({ 'a.yaml': 'version: 1\nsafety: { role: { maxUpdates: 0.5 } }\n', 'b.yaml': 'version: 1\nsafety: { role: { maxUpdates: 0.9 } }\n' });
    const diagnostics = validateConfig(loaded);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'config/duplicate-safety', location: { file: 'b.yaml', line: 2 } });
    expect(diagnostics[0]?.message).toContain('first at a.yaml:2:1');
  });
});
