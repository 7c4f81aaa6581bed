/**
 * defineKind: a kind written as data gets the Kind contract the engine sees, with the generic
 * diff (compare the declared fields, send them encoded once) and defaults (no dependencies, no
 * rules). Shown on a made-up 15th kind, read through a fake reader that counts its reads.
 */
import { describe, expect, it } from 'vitest';
import { defineKind } from '../../src/kinds/toolkit/define.js';
import { NotOnPortalError, type DesiredObject } from '../../src/kinds/toolkit/contract.js';
import type { JsonObject } from '../../src/core/json.js';
import type { LiveReader } from '../../src/core/request.js';

const widget = defineKind({
  name: 'widget',
  operation: { id: 'E15', name: 'Update widget' },
  config: [{ container: 'organization', properties: {}, extract: () => undefined }],
  live: {
    one: (obj, reader) => reader.get(`/widgets/${obj.ids['widgetId']}`),
    list: { path: () => '/widgets', itemsField: 'widgets', keyOf: (entry) => String(entry['id']), idOf: (obj) => obj.ids['widgetId'] },
    missing: (obj) => `widget ${obj.ids['widgetId']}`,
  },
  fields: {
    title: { compare: (value) => (value === undefined || value === null ? '' : value) },
    tags: { encode: (value) => (Array.isArray(value) ? value.join(',') : '') },
  },
  request: { path: (desired) => `/widgets/${desired.ids['widgetId']}/update` },
  label: (record) => (typeof record['title'] === 'string' ? `${record['title']}!` : undefined),
});

const obj = (widgetId: string, value: JsonObject): DesiredObject => ({
  kind: 'widget',
  address: `widget[${widgetId}]`,
  ids: { widgetId },
  value,
  absent: false,
  destructive: false,
  source: { file: 'portalctl.yaml', line: 1, column: 1 },
});

function countingReader(widgets: JsonObject[], total: number | undefined): { reader: LiveReader; reads: string[] } {
  const reads: string[] = [];
  const reader: LiveReader = {
    get: async (path) => {
      reads.push(path);
      return widgets.find((widget) => `/widgets/${String(widget['id'])}` === path);
    },
    list: async (path) => {
      reads.push(`list ${path}`);
      return widgets;
    },
    ...(total === undefined ? {} : { total: async () => total }),
  };
  return { reader, reads };
}

describe('defineKind', () => {
  it('projects the declared fields, compares them as the table says, and sends them encoded once', async () => {
    const { reader } = countingReader([{ id: 'w1', title: null, tags: ['a'], other: 1 }], undefined);
    const desired = obj('w1', { title: '', tags: ['a', 'b'], size: 3 });
    const live = await widget.read(desired, reader);
    expect(live).toEqual({ title: null, tags: ['a'], size: null });
    expect(widget.inSync(obj('w1', { title: '' }), live)).toBe(true);
    expect(widget.inSync(desired, live)).toBe(false);
    expect(widget.change(desired, live)).toEqual({
      action: 'update',
      before: live,
      after: { title: '', tags: ['a', 'b'], size: 3 },
      request: { method: 'POST', path: '/widgets/w1/update', form: { title: '', tags: 'a,b', size: '3' }, response: 'json', idempotent: true },
    });
    expect(widget.dependsOn(desired, [desired], new Map())).toEqual([]);
    expect(widget.check(desired, { portal: {}, all: [] })).toEqual([]);
    expect(await widget.label?.(desired, reader)).toBeUndefined();
  });

  it('reads one list for many objects when its pages cost fewer reads, else one read each', async () => {
    const widgets = [{ id: 'w1', title: 'One' }, { id: 'w2', title: 'Two' }];
    const listed = countingReader(widgets, 150);
    for (const id of ['w1', 'w2']) await widget.read(obj(id, { title: 'x' }), listed.reader, { declared: 2 });
    expect(listed.reads).toEqual(['list /widgets', 'list /widgets']);
    expect(await widget.label?.(obj('w2', {}), listed.reader, { declared: 2 })).toBe('Two!');

    const single = countingReader(widgets, 150);
    await widget.read(obj('w1', { title: 'x' }), single.reader, { declared: 1 });
    expect(single.reads).toEqual(['/widgets/w1']);
  });

  it('names a missing object, and falls back to its own read when the list does not hold it', async () => {
    const { reader, reads } = countingReader([{ id: 'w1' }], 1);
    await expect(widget.read(obj('w9', { title: 'x' }), reader, { declared: 5 })).rejects.toThrow(new NotOnPortalError('widget w9'));
    expect(reads).toEqual(['list /widgets', '/widgets/w9']);
  });
});
