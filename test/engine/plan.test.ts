import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildPlan, type PlanInput } from '../../src/engine/plan/plan.js';
import { orderByDependencies, DependencyCycleError, dependencyRings } from '../../src/engine/plan/order.js';
import { ConfigError } from '../../src/engine/config/errors.js';
import { renderPlanText } from '../../src/engine/render/text.js';
import { redactPlan } from '../../src/engine/plan/redact.js';
import type { JsonValue } from '../../src/core/json.js';
import { PortalRefusesError, type Kind } from '../../src/kinds/toolkit/contract.js';
import { desired, fakeKind } from './fake-kind.js';

function input(overrides: Partial<PlanInput>): PlanInput {
  const kind = fakeKind('fake', (obj) => (obj.ids['after'] ? [`fake[${obj.ids['after']}]`] : []));
  return {
    objects: [],
    basis: new Map(),
    recorded: {},
    kinds: new Map<string, Kind>([[kind.name, kind]]),
    portal: { url: 'https://portal.example.com/sharing/rest' },
    refreshed: true,
    state: null,
    targets: [],
    now: new Date('2026-01-01T00:00:00Z'),
    ...overrides,
  };
}

describe('buildPlan', () => {
  it('plans nothing for objects that already match', () => {
    const plan = buildPlan(input({ objects: [desired('a', { x: 1 })], basis: new Map([['fake[a]', { x: 1 }]]) }));
    expect(plan.operations).toEqual([]);
    expect(renderPlanText(plan, { color: false })).toContain('No changes.');
  });

  it('carries address, action, request, before, after, patch and summary', () => {
    const plan = buildPlan(
      input({ objects: [desired('a', { x: 2 }), desired('b', null, { destructive: true })], basis: new Map<string, JsonValue>([['fake[a]', { x: 1 }], ['fake[b]', { y: 1 }]]) }),
    );
    expect(plan.operations.map((op) => [op.address, op.action, op.destructive])).toEqual([
      ['fake[a]', 'update', false],
      ['fake[b]', 'delete', true],
    ]);
    const [update] = plan.operations;
    expect(update?.request).toEqual({ method: 'POST', path: '/fake/a/update', form: { value: '{"x":2}' }, response: 'json', idempotent: true });
    expect(update?.patch).toEqual([{ op: 'replace', path: '/x', value: 2 }]);
    expect(plan.summary).toMatchObject({ create: 0, update: 1, delete: 1, destructive: 1, byKind: { fake: 2 } });
  });

  it('orders by declared dependencies, then by address', () => {
    const objects = [desired('c', 1), desired('a', 1, { ids: { id: 'a', after: 'z' } }), desired('z', 1), desired('b', 1)];
    const plan = buildPlan(input({ objects }));
    expect(plan.operations.map((op) => op.address)).toEqual(['fake[b]', 'fake[c]', 'fake[z]', 'fake[a]']);
    expect(plan.operations[3]?.dependsOn).toEqual(['fake[z]']);
  });

  it('takes dependencies the values compared against decide (the basis, live or recorded)', () => {
    // `a` waits for whichever object holds the value it wants now.
    const kind: Kind = { ...fakeKind(), dependsOn: (obj, all, live) => all.filter((other) => other !== obj && live.get(other.address) === obj.value).map((other) => other.address) };
    const objects = [desired('a', 'taken'), desired('b', 'free')];
    const plan = buildPlan(input({ objects, kinds: new Map([['fake', kind]]), basis: new Map([['fake[a]', 'old'], ['fake[b]', 'taken']]) }));
    expect(plan.operations.map((op) => [op.address, op.dependsOn])).toEqual([['fake[b]', []], ['fake[a]', ['fake[b]']]]);
  });

  it('refuses operations that wait on each other at each of them, in their kind\'s words where it has some', () => {
    const objects = [desired('a', 1, { ids: { id: 'a', after: 'b' } }), desired('b', 1, { ids: { id: 'b', after: 'a' } }), desired('c', 1, { ids: { id: 'c', after: 'a' } })];
    const refused = (kinds?: PlanInput['kinds']): ConfigError => {
      try {
        buildPlan(input({ objects, ...(kinds ? { kinds } : {}) }));
      } catch (error) {
        if (error instanceof ConfigError) return error;
        throw error;
      }
      throw new Error('not refused');
    };
    // `c` only waits on the ring: it is not part of it.
    expect(refused().diagnostics.map(({ code, message, address }) => ({ code, message, address }))).toEqual([
      { code: 'plan/dependency-cycle', message: 'fake[a] waits for fake[b] waits for fake[a]: none of them can go first.', address: 'fake[a]' },
      { code: 'plan/dependency-cycle', message: 'fake[b] waits for fake[a] waits for fake[b]: none of them can go first.', address: 'fake[b]' },
    ]);
    const base = fakeKind('fake', (obj) => (obj.ids['after'] ? [`fake[${obj.ids['after']}]`] : []));
    const worded: Kind = { ...base, ringRefusal: (obj, ring) => new PortalRefusesError('fake/ring', `${obj.address}: ${ring.map((other) => other.address).join(' -> ')}`, 'no ring') };
    expect(refused(new Map([['fake', worded]])).diagnostics.map(({ code, message }) => [code, message])).toEqual([
      ['fake/ring', 'fake[a]: fake[a] -> fake[b]'],
      ['fake/ring', 'fake[b]: fake[b] -> fake[a]'],
    ]);
  });

  it('drops dependencies on objects that need no change', () => {
    const objects = [desired('a', 1, { ids: { id: 'a', after: 'z' } }), desired('z', 1)];
    const plan = buildPlan(input({ objects, basis: new Map([['fake[z]', 1]]) }));
    expect(plan.operations.map((op) => [op.address, op.dependsOn])).toEqual([['fake[a]', []]]);
  });

  it('keeps only targeted addresses, matched by address structure (whole steps), not as string prefixes', () => {
    const objects = [desired('a', 1), desired('ab', 1), desired('b', 1)];
    expect(buildPlan(input({ objects, targets: ['fake[a]'] })).operations.map((op) => op.address)).toEqual(['fake[a]']);
    expect(buildPlan(input({ objects, targets: ['fake'] })).operations.map((op) => op.address)).toEqual(['fake[a]', 'fake[ab]', 'fake[b]']);
    expect(buildPlan(input({ objects, targets: ['fake[a', 'fak'] })).operations).toEqual([]);
  });

  it('counts the changes outside the targets, left out of a targeted plan; none without targets', () => {
    const objects = [desired('a', 1), desired('ab', 1), desired('b', 1), desired('c', 1)];
    const basis = new Map([['fake[c]', 1]]);
    expect(buildPlan(input({ objects, basis, targets: ['fake[a]'] })).summary.outsideTargets).toBe(2);
    expect(buildPlan(input({ objects, basis, targets: ['fake'] })).summary.outsideTargets).toBe(0);
    expect(buildPlan(input({ objects, basis })).summary).not.toHaveProperty('outsideTargets');
  });

  it('reports drift (recorded versus live) apart from changes', () => {
    const plan = buildPlan(
      input({
        objects: [desired('a', { x: 1 }), desired('b', { x: 5 })],
        basis: new Map([['fake[a]', { x: 9 }], ['fake[b]', { x: 5 }]]),
        recorded: { 'fake[a]': { kind: 'fake', value: { x: 1 } }, 'fake[b]': { kind: 'fake', value: { x: 5 } } },
      }),
    );
    expect(plan.drift).toEqual([
      { address: 'fake[a]', kind: 'fake', before: { x: 1 }, after: { x: 9 }, patch: [{ op: 'replace', path: '/x', value: 9 }], resolution: 'refresh-only' },
    ]);
    expect(plan.operations.map((op) => op.address)).toEqual(['fake[a]']);
    expect(renderPlanText(plan, { color: false })).toMatch(/Drift: 1 object.*\n {2}! fake\[a\]\n {6}x: recorded 1, now 9\n {6}→ to keep it, write it in the configuration: `portalctl apply` would set the configured value back \(`portalctl apply --refresh-only` records it as seen meanwhile\)/);
  });

  it('says how each drift entry can be accepted: adopted by apply when the configuration asks for the live value, else by --refresh-only', () => {
    const plan = buildPlan(
      input({
        objects: [desired('a', { x: 9 }), desired('b', { x: 5 })],
        basis: new Map([['fake[a]', { x: 9 }], ['fake[b]', { x: 7 }]]),
        recorded: { 'fake[a]': { kind: 'fake', value: { x: 1 } }, 'fake[b]': { kind: 'fake', value: { x: 5 } } },
      }),
    );
    expect(plan.drift.map((entry) => [entry.address, entry.resolution])).toEqual([
      ['fake[a]', 'adopt'],
      ['fake[b]', 'refresh-only'],
    ]);
    // The configuration matches fake[a]: no operation for it; fake[b] is set back.
    expect(plan.operations.map((op) => op.address)).toEqual(['fake[b]']);
    expect(renderPlanText(plan, { color: false })).toContain('  ! fake[a]\n      x: recorded 1, now 9\n      → keep it with `portalctl apply` (the configuration already asks for this value; nothing is sent)');
  });

  it('does not report drift when planning against the recorded state', () => {
    const plan = buildPlan(
      input({ refreshed: false, objects: [desired('a', { x: 2 })], basis: new Map([['fake[a]', { x: 1 }]]), recorded: { 'fake[a]': { kind: 'fake', value: { x: 1 } } } }),
    );
    expect(plan.drift).toEqual([]);
    expect(plan.operations).toHaveLength(1);
  });

  it('changes the basis digest when a live value changes', () => {
    const objects = [desired('a', 1)];
    const one = buildPlan(input({ objects, basis: new Map([['fake[a]', 2]]) }));
    const two = buildPlan(input({ objects, basis: new Map([['fake[a]', 3]]) }));
    const same = buildPlan(input({ objects, basis: new Map([['fake[a]', 2]]) }));
    expect(one.basisDigest).not.toEqual(two.basisDigest);
    expect(one.basisDigest).toEqual(same.basisDigest);
  });

  it('renders a golden text plan', () => {
    const plan = buildPlan(
      input({
        objects: [desired('a', { x: 2, y: 'new' }), desired('b', null, { destructive: true }), desired('c', { z: true })],
        basis: new Map<string, JsonValue>([['fake[a]', { x: 1, y: 'old' }], ['fake[b]', { y: 1 }], ['fake[c]', null]]),
      }),
    );
    expect(renderPlanText(plan, { color: false })).toBe(
      [
        'Plan: 1 to create, 1 to update, 1 to delete (1 destructive).',
        '',
        'By kind:',
        '  fake: 3',
        '',
        'Operations, in order:',
        '  ~ fake[a]  (E0 fake update)',
        '  - fake[b]  (E0 fake update)  [DESTRUCTIVE]',
        '  + fake[c]  (E0 fake update)',
        '',
        'Changes:',
        '  ~ fake[a]',
        '    ~ x: 1 -> 2',
        '    ~ y: "old" -> "new"',
        '  - fake[b]',
        '    - y: 1',
        '  + fake[c]',
        '    + z: true',
        '',
      ].join('\n'),
    );
  });

  it('redacts secrets from every part of a shown plan', () => {
    const plan = buildPlan(input({ objects: [desired('a', { secret: 's3cr3t' })], basis: new Map([['fake[a]', { secret: 'old' }]]) }));
    const redact = Object.assign((v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v).replaceAll('s3cr3t', '${env:SECRET}')) as JsonValue, {
      references: { '${env:SECRET}': { bytes: 6, sha256: 'ab12' } },
    });
    const shown = JSON.stringify(redactPlan(plan, redact));
    expect(shown).not.toContain('s3cr3t');
    expect(shown).toContain('${env:SECRET}');
    expect(JSON.stringify(plan)).toContain('s3cr3t');
  });

  it('hides the value of every secret-like field, and all below one, as the text plan does; a reference there is shown as it is', () => {
    const plan = buildPlan(
      input({
        objects: [desired('a', { name: 'Open', clientSecret: 'literal-secret', secrets: { a: 'nested-secret', n: 3 }, token: '${env:TOKEN}' })],
        basis: new Map([['fake[a]', { name: 'Open', clientSecret: 'old-secret' }]]),
      }),
    );
    const redact = Object.assign((v: JsonValue): JsonValue => v, { references: { '${env:TOKEN}': { bytes: 20, sha256: 'ab12' } } });
    const shown = redactPlan(plan, redact);
    const text = JSON.stringify(shown);
    for (const secret of ['literal-secret', 'nested-secret', 'old-secret']) expect(text).not.toContain(secret);
    const op = shown.operations[0];
    expect(op?.after).toEqual({ name: 'Open', clientSecret: '(hidden: 14 bytes, sha256 ' + createHash('sha256').update('literal-secret').digest('hex').slice(0, 4) + '\u2026)', secrets: { a: expect.stringMatching(/^\(hidden: 13 bytes, sha256 [0-9a-f]{4}…\)$/) as unknown, n: 3 }, token: '${env:TOKEN}' });
    expect(op?.patch.find((p) => p.path === '/secrets')).toMatchObject({ value: { a: expect.stringMatching(/^\(hidden: /) as unknown, n: 3 } });
    // Shown again (a saved plan read back): the hidden values stay as they are.
    expect(redactPlan(shown, redact)).toEqual(shown);
  });
});

describe('dependencyRings', () => {
  it('finds each ring in waiting order from its smallest address, leaving out what only waits on one', () => {
    const rings = dependencyRings([
      { address: 'x', dependsOn: ['z'] },
      { address: 'y', dependsOn: ['x'] },
      { address: 'z', dependsOn: ['y'] },
      { address: 'b', dependsOn: ['a'] },
      { address: 'a', dependsOn: ['b'] },
      { address: 'w', dependsOn: ['x', 'gone'] },
      { address: 'self', dependsOn: ['self'] },
    ]);
    expect(rings.map((ring) => ring.map((item) => item.address))).toEqual([
      ['a', 'b'],
      ['x', 'z', 'y'],
    ]);
    expect(dependencyRings([{ address: 'a', dependsOn: [] }])).toEqual([]);
  });
});

describe('orderByDependencies', () => {
  it('refuses a cycle, naming its members', () => {
    expect(() =>
      orderByDependencies([
        { address: 'a', dependsOn: ['b'] },
        { address: 'b', dependsOn: ['a'] },
        { address: 'c', dependsOn: [] },
      ]),
    ).toThrow(new DependencyCycleError('Dependency cycle between: a, b'));
  });
});
