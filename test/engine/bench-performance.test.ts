/**
 * The behaviour the benchmark-driven changes (issue 6) must keep: canonical JSON and deepEqual
 * agree with the JSON.stringify definition they replaced; an answered operation frees its
 * parallelism place while its record is still being written; the state writer's batched
 * records, and its skipped re-parse of its own last write, change nothing observable.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, deepEqual } from '../../src/core/json.js';
import type { JsonValue } from '../../src/core/json.js';
import { basisDigest } from '../../src/engine/plan/plan.js';
import { FileStateStore, StateWriter, newState } from '../../src/state/index.js';
import { executeWithFakes as run, plannedOperation as op } from './fake-kind.js';


/** The definition canonicalJson had before it was written out by hand. */
function referenceCanonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const keys = fc.constantFrom('a', 'b', 'Z', 'é', '10', '2', '0', 'x"y', '');
const loose = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('canonicalJson and deepEqual', () => {
  it('write exactly what the JSON.stringify definition writes', () => {
    fc.assert(
      fc.property(loose, (value) => {
        expect(canonicalJson(value as JsonValue)).toBe(referenceCanonical(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('call two values equal exactly when their canonical texts are equal', () => {
    fc.assert(
      fc.property(loose, loose, fc.boolean(), (a, b, copy) => {
        // Half the time compare with a reordered copy, so equal pairs are well represented.
        const other = copy ? (JSON.parse(JSON.stringify(a ?? null)) as unknown) : b;
        expect(deepEqual(a as JsonValue, other as JsonValue)).toBe(referenceCanonical(a) === referenceCanonical(other));
      }),
      { numRuns: 2000 },
    );
  });

  it('treat key order as irrelevant and an undefined property as absent', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined } as unknown as JsonValue, { a: 1 })).toBe(true);
    expect(deepEqual({ a: null }, {})).toBe(false);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
  });

  it('basisDigest is the digest of the canonical text of all entries, sorted by address', () => {
    const objects = ['b', 'a', 'c'].map((address) => ({ kind: 'fake', address, ids: {}, value: null, absent: false, destructive: false }));
    const basis = new Map<string, JsonValue>([['a', { y: 1, x: [true] }], ['b', null]]);
    const whole = referenceCanonical([['a', { y: 1, x: [true] }], ['b', null], ['c', '<unknown>']]);
    expect(basisDigest(objects as never, basis)).toBe(`sha256:${createHash('sha256').update(whole).digest('hex')}`);
  });
});


describe('executePlan places', () => {
  it('frees a place when the request is answered, and holds new writes only while `parallelism` records wait', async () => {
    const records: (() => void)[] = [];
    const sent: string[] = [];
    let inFlight = 0;
    let peak = 0;
    const execution = run(
      ['a', 'b', 'c', 'd', 'e'].map((address) => op(address)),
      {
        send: async (o) => {
          sent.push(o.address);
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          inFlight--;
        },
        // Records stay pending until released below.
        record: () => new Promise<void>((resolve) => records.push(resolve)),
      },
      2,
    );
    const turns = async (): Promise<void> => {
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    // a answered (its place freed, its record waiting), so c went out beside b; once b was
    // answered too, two records waited: a state that takes no record is sent no more writes.
    while (records.length < 3) await new Promise((resolve) => setImmediate(resolve));
    await turns();
    expect(sent).toEqual(['a', 'b', 'c']);
    // Three waiting, then two: still the limit. One more written: the next writes go out.
    records.shift()?.();
    await turns();
    expect(sent).toEqual(['a', 'b', 'c']);
    records.shift()?.();
    while (sent.length < 5) await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(['a', 'b', 'c', 'd', 'e']);
    while (sent.length < 5 || records.length > 0) {
      records.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const result = await execution;
    expect(peak).toBeLessThanOrEqual(2);
    expect(result.applied.map((o) => o.address)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('still starts a dependent only after its dependency is recorded', async () => {
    const events: string[] = [];
    let releaseRole: (() => void) | undefined;
    const execution = run(
      [op('role'), op('federation', ['role']), op('item')],
      {
        send: async (o) => {
          events.push(`send ${o.address}`);
        },
        record: (o) =>
          o.address === 'role'
            ? new Promise<void>((resolve) => {
                releaseRole = () => {
                  events.push('record role');
                  resolve();
                };
              })
            : Promise.resolve(),
      },
      2,
    );
    while (!releaseRole || !events.includes('send item')) await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['send role', 'send item']);
    releaseRole();
    await execution;
    expect(events).toEqual(['send role', 'send item', 'record role', 'send federation']);
  });
});

describe('StateWriter and FileStateStore', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('records a batch with other changes in order, as one write per batch', async () => {
    dir = mkdtempSync(join(tmpdir(), 'portalctl-writer-'));
    const store = new FileStateStore({ path: join(dir, 'state.json') });
    const writer = new StateWriter(store, newState({ url: 'http://127.0.0.1/portal/sharing/rest' }));
    const entry = (value: JsonValue) => ({ kind: 'fake', ids: { id: 'x' }, value, status: 'present' as const });
    const done = Promise.all([
      writer.record('a', entry(1)),
      writer.record('b', entry(2)),
      writer.forget('a'),
      writer.record('c', entry(3)),
      writer.record('b', entry(4)),
    ]);
    await done;
    await writer.idle();
    const onDisk = await store.read();
    expect(onDisk?.resources).toEqual({ b: entry(4), c: entry(3) });
    expect(onDisk?.serial).toBe(writer.state.serial);
  });

  it('notices a state file changed by someone else after its own last write', async () => {
    dir = mkdtempSync(join(tmpdir(), 'portalctl-writer-'));
    const path = join(dir, 'state.json');
    const store = new FileStateStore({ path });
    const first = await store.write(newState({ url: 'http://127.0.0.1/portal/sharing/rest' }));
    // Another run writes serial+1 behind this store's back.
    const changed = JSON.parse(readFileSync(path, 'utf8')) as { serial: number };
    changed.serial += 1;
    writeFileSync(path, JSON.stringify(changed));
    await expect(store.write(first)).rejects.toThrow(/serial/);
  });
});

describe("the benchmark's large organization as YAML", () => {
  it('is written (without the yaml package) exactly as the yaml package writes it, and reads back as the same data', async () => {
    const { largeOrganization, yamlDirectory } = await import('../../bench/lib/generate.mjs');
    const { parse, stringify } = await import('yaml');
    const { config } = largeOrganization({ seed: 3, url: 'http://127.0.0.1:9/portal/sharing/rest', groups: 3, items: 250, users: 4, roles: 3 });
    const files = yamlDirectory(config);
    expect(Object.assign({}, ...Object.values(files).map((text) => parse(text) as object))).toEqual(config);
    // Each list section, comments aside, is the yaml package's own block style.
    for (const name of ['groups', 'items', 'users', 'roles'] as const) {
      const written = (files[`${name}.yaml`] ?? '').split('\n').filter((line) => !line.trimStart().startsWith('#') && line !== 'version: 1').join('\n');
      expect(written).toBe(stringify({ [name]: config[name] }, { lineWidth: 0 }));
    }
  });
});
