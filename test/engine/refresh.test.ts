/**
 * readLive: kinds are read in turn, and objects waiting on a read another object started hold no
 * place, so the reader's bound on requests is what limits the reads.
 */
import { describe, expect, it } from 'vitest';
import { readLive } from '../../src/engine/read/read-live.js';
import type { Kind } from '../../src/kinds/toolkit/contract.js';
import type { LiveReader } from '../../src/core/request.js';
import { desired, fakeKind } from './fake-kind.js';

/** A kind whose objects all read one shared path (like a list), or each its own. */
function readingKind(name: string, path: (id: string) => string): Kind {
  return { ...fakeKind(name), read: async (obj, reader) => (await reader.get(path(obj.ids['id'] as string)))?.['value'] ?? null };
}

describe('readLive', () => {
  it('starts one object of each kind in turn', async () => {
    const asked: string[] = [];
    const reader: LiveReader = { get: async (path) => (asked.push(path), { value: path }), list: async () => [] };
    const kinds = new Map(['a', 'b'].map((name) => [name, readingKind(name, (id) => `/${name}/${id}`)]));
    const objects = [...['1', '2', '3'].map((id) => ({ ...desired(id, 1), kind: 'a', address: `a[${id}]` })), ...['1', '2'].map((id) => ({ ...desired(id, 1), kind: 'b', address: `b[${id}]` }))];
    const { values } = await readLive(objects, kinds, reader);
    expect(asked).toEqual(['/a/1', '/b/1', '/a/2', '/b/2', '/a/3']);
    expect(values.get('b[2]')).toBe('/b/2');
  });

  it('reads other objects while many wait on one shared read', async () => {
    let release: () => void = () => undefined;
    const shared = new Promise<{ value: string }>((resolve) => (release = () => resolve({ value: 'listed' })));
    const asked: string[] = [];
    const reader: LiveReader = {
      get: (path) => {
        asked.push(path);
        return path === '/list' ? shared : Promise.resolve({ value: path });
      },
      list: async () => [],
    };
    const kinds = new Map([
      ['a', readingKind('a', () => '/list')],
      ['b', readingKind('b', (id) => `/b/${id}`)],
    ]);
    // Far more objects waiting on the shared read than any request bound.
    const waiting = Array.from({ length: 300 }, (_, n) => ({ ...desired(`w${n}`, 1), kind: 'a', address: `a[w${n}]` }));
    const others = Array.from({ length: 300 }, (_, n) => ({ ...desired(`o${n}`, 1), kind: 'b', address: `b[o${n}]` }));
    const reading = readLive([...waiting, ...others], kinds, reader);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked.filter((path) => path.startsWith('/b/'))).toHaveLength(300);
    release();
    const { values } = await reading;
    expect(values.get('a[w299]')).toBe('listed');
    expect(values.size).toBe(600);
  });
});
