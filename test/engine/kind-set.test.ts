/**
 * The engine works with whatever kind set it is given: here a fake one (one container, one
 * kind) that the registry does not know, from config loading through schema, validation,
 * plan, apply and the re-plan. The portal is an in-memory fake of the client's four methods.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import type { JsonObject } from '../../src/core/json.js';
import type { ApiRequest } from '../../src/core/request.js';
import { ApplyCancelledError, applyConfig } from '../../src/engine/apply/apply.js';
import { StalePlanError } from '../../src/engine/plan/saved-plan.js';
import { configSchema, loadConfig, validateConfig } from '../../src/engine/config/index.js';
import { planSession } from '../../src/engine/plan/prepare.js';
import { createKindSet, KindSetError } from '../../src/engine/kind-set.js';
import type { ContainerDefinition } from '../../src/kinds/toolkit/containers.js';
import type { Kind } from '../../src/kinds/toolkit/contract.js';
import { FileStateStore } from '../../src/state/index.js';
import { fakeKind } from './fake-kind.js';

const gadgets: ContainerDefinition = {
  name: 'gadget',
  field: 'gadgets',
  shape: 'list',
  key: { property: 'id', idName: 'id', schema: { type: 'string', minLength: 1, description: 'Gadget id.' } },
  address: (key) => `fake[${key}]`,
  description: 'Gadgets (a test container).',
};

/** The fake kind of the engine tests, with a config half: `gadgets: [{ id, size }]`, sizes up to 10. */
const gadgetKind: Kind = {
  ...fakeKind('fake'),
  read: async (obj, reader) => (await reader.get(`/gadgets/${obj.ids['id']}`))?.['size'] ?? null,
  check: (obj) => (typeof obj.value === 'number' && obj.value > 10 ? [{ severity: 'error', code: 'gadget/too-big', message: `${obj.address} is bigger than 10.`, location: obj.source }] : []),
  config: [
    {
      container: 'gadget',
      properties: { size: { type: 'integer', description: 'Size.' } },
      extract: (entry, scope, declare) => {
        if (entry['size'] !== undefined) declare.object({ address: scope.address, ids: scope.ids, value: entry['size'], absent: false, path: ['size'] });
      },
    },
  ],
};

const kinds = createKindSet([gadgetKind], [gadgets]);

/** An in-memory portal: `portals/self`, gadgets by id, and the fake kind's update request. */
function fakePortal(sizes: Record<string, number>): { client: ApiClient; sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  const client: ApiClient = {
    url: 'http://127.0.0.1:1/sharing/rest',
    get: async (path) => {
      if (path === '/portals/self') return { id: 'p1', isPortal: true, currentVersion: '2024.1' };
      if (path === '') return { currentVersion: '2024.1', enterpriseVersion: '11.3.0', enterpriseBuild: '51526' };
      const id = path.replace('/gadgets/', '');
      if (sizes[id] === undefined) throw Object.assign(new Error('not found'), { status: 404 });
      return { size: sizes[id] } as JsonObject;
    },
    list: async () => [],
    getAdministration: async () => {
      throw new Error('the release is at the REST root: the Portal Administration root is never read');
    },
    send: async (request) => {
      sent.push(request);
      const [, , id] = request.path.split('/');
      sizes[id as string] = JSON.parse(String(request.form['value'])) as number;
      return { type: 'json', body: { success: true } };
    },
    close: async () => undefined,
  };
  return { client, sent };
}

async function configDir(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-kindset-'));
  await writeFile(join(dir, 'portalctl.yaml'), text);
  return dir;
}

describe('the engine with a fake kind set', () => {
  it('composes the schema from the given kinds only', () => {
    const schema = JSON.stringify(configSchema(kinds));
    expect(schema).toContain('"gadgets"');
    expect(schema).not.toContain('"organization"');
  });

  it('loads and validates a config of the fake kinds; a real kind is unknown to it', async () => {
    const dir = await configDir('version: 1\ngadgets:\n  - id: a\n    size: 3\n  - id: b\n    size: 11\norganization:\n  securityPolicy: { minLength: 8 }\n');
    const loaded = await loadConfig([dir], { cwd: dir, env: {}, kinds });
    expect(loaded.objects.map((obj) => [obj.address, obj.value])).toEqual([
      ['fake[a]', 3],
      ['fake[b]', 11],
    ]);
    const codes = validateConfig(loaded).map((d) => [d.code, d.location?.line]);
    expect(codes).toContainEqual(['gadget/too-big', 6]);
    expect(codes.some(([code]) => String(code).startsWith('schema/'))).toBe(true);
  });

  it('plans, applies, records and converges through the one apply use case', async () => {
    const dir = await configDir('version: 1\ngadgets:\n  - id: a\n    size: 3\n  - id: b\n    size: 5\n');
    const config = await loadConfig([dir], { cwd: dir, env: {}, kinds });
    const { client, sent } = fakePortal({ a: 3, b: 1 });
    const store = new FileStateStore({ path: join(dir, 'portalctl.state.json') });
    const url = client.url;

    const preview = await planSession({ config, url, store, client });
    expect(preview.plan.operations.map((op) => [op.address, op.action, op.before, op.after])).toEqual([['fake[b]', 'update', 1, 5]]);

    const confirmed: string[][] = [];
    const applied = await applyConfig({
      config,
      url,
      store,
      client,
      lockTimeoutMs: 0,
      targets: [],
      allowDestructive: false,
      parallelism: 2,
      confirm: async ({ plan }) => (confirmed.push(plan.operations.map((op) => op.address)), true),
    });
    // The plan confirmed is the plan the preview showed, and exactly its request went out.
    expect(confirmed).toEqual([['fake[b]']]);
    expect(sent).toEqual(preview.plan.operations.map((op) => op.request));
    expect(applied.result.applied.map((op) => op.address)).toEqual(['fake[b]']);
    expect(applied.after.plan.operations).toEqual([]);
    expect((await store.read())?.resources['fake[b]']).toMatchObject({ kind: 'fake', value: 5, status: 'present' });
  });

  it('a refused confirmation or a stale saved plan changes nothing', async () => {
    const dir = await configDir('version: 1\ngadgets:\n  - id: a\n    size: 4\n');
    const config = await loadConfig([dir], { cwd: dir, env: {}, kinds });
    const { client, sent } = fakePortal({ a: 3 });
    const store = new FileStateStore({ path: join(dir, 'portalctl.state.json') });
    const request = { config, url: client.url, store, client, lockTimeoutMs: 0, targets: [], allowDestructive: false, parallelism: 1 };

    await expect(applyConfig({ ...request, confirm: async () => false })).rejects.toBeInstanceOf(ApplyCancelledError);
    const saved = (await planSession({ config, url: client.url, store, client })).plan;
    await client.send(saved.operations[0]!.request); // the portal changes after the plan was saved
    sent.length = 0;
    let asked = false;
    const stale = applyConfig({ ...request, saved, confirm: async () => (asked = true) });
    await expect(stale).rejects.toBeInstanceOf(StalePlanError);
    expect(asked).toBe(false);
    expect(sent).toEqual([]);
    expect(await store.read()).toBeUndefined();
  });

  it('refuses two kinds of one name, and a contribution to a container that does not exist', () => {
    expect(() => createKindSet([gadgetKind, gadgetKind], [gadgets])).toThrow(KindSetError);
    expect(() => createKindSet([gadgetKind], [])).toThrow(/not a container/);
  });
});
