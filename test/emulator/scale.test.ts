/**
 * The store is indexed: the work a request does (entities copied into its draft) does not grow
 * with the organization's size, and paging through a list copies each entry once. Counted, not
 * timed: `store.work.elementCopies` counts every entity a request copies or a scan visits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const ORG = 'ScaleOrg00000001';

function organization(items: number): Record<string, unknown> {
  return {
    organization: { id: ORG },
    users: [
      { username: 'admin', role: 'org_admin', password: 'admin-password' },
      { username: 'signer', password: 'signer-password' },
      ...Array.from({ length: items / 10 }, (_, index) => ({ username: `user${index}`, tasks: [{ id: `t${index}` }] })),
    ],
    tokens: [{ token: 'admin-token', username: 'admin' }, ...Array.from({ length: items / 10 }, (_, index) => ({ token: `token${index}`, username: `user${index}` }))],
    groups: Array.from({ length: items / 10 }, (_, index) => ({ id: `g${index}`, owner: `user${index}` })),
    items: Array.from({ length: items }, (_, index) => ({ id: `item${index}`, owner: `user${index % (items / 10)}`, access: index % 3 === 0 ? 'private' : 'org' })),
  };
}

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function started(items: number): Promise<RunningEmulator> {
  const emulator = await startEmulator({ data: organization(items) as never });
  running.push(emulator);
  return emulator;
}

/** Entities one request copied. */
async function workOf(emulator: RunningEmulator, path: string, form?: Record<string, string>): Promise<number> {
  const before = emulator.store.work.elementCopies;
  const init = form
    ? { method: 'POST', headers: { 'x-esri-authorization': 'Bearer admin-token' }, body: new URLSearchParams({ f: 'json', ...form }) }
    : { headers: { 'x-esri-authorization': 'Bearer admin-token' } };
  const response = await fetch(`${emulator.url}${path}${form ? '' : `${path.includes('?') ? '&' : '?'}f=json`}`, init);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).not.toHaveProperty('error');
  return emulator.store.work.elementCopies - before;
}

describe('indexed store', () => {
  it('does the same work per request in a 200-item and a 20,000-item organization', async () => {
    const requests: [string, Record<string, string>?][] = [
      ['/content/items/item150'],
      ['/content/items/item151/setContentStatus', { status: 'deprecated' }],
      ['/community/users/user7'],
      ['/community/users/user7/tasks/t7/enable', {}],
      ['/community/groups/g3'],
      [`/search?q=orgid:${ORG}&num=100&start=101`],
      [`/community/groups?q=orgid:${ORG}&num=10`],
      // A new token is appended, not a copy of every token.
      ['/generateToken', { username: 'signer', password: 'signer-password' }],
    ];
    const small = await started(200);
    const large = await started(20_000);
    for (const [path, form] of requests) {
      const smallWork = await workOf(small, path, form);
      const largeWork = await workOf(large, path, form);
      expect({ path, work: largeWork }).toEqual({ path, work: smallWork });
      expect(largeWork).toBeLessThanOrEqual(100);
    }
  });

  it('pages through an organization copying each item once (linear, not quadratic)', async () => {
    const emulator = await started(5_000);
    const before = emulator.store.work.elementCopies;
    let start = 1;
    let pages = 0;
    while (start !== -1) {
      const response = await fetch(`${emulator.url}/search?q=orgid:${ORG}&num=100&start=${start}&f=json`, { headers: { 'x-esri-authorization': 'Bearer admin-token' } });
      start = ((await response.json()) as { nextStart: number }).nextStart;
      pages += 1;
    }
    expect(pages).toBe(50);
    expect(emulator.store.work.elementCopies - before).toBe(5_000);
  });

  it('finds a token issued after the index was built', async () => {
    const emulator = await started(2_000);
    await workOf(emulator, '/content/items/item1');
    const issued = await fetch(`${emulator.url}/generateToken`, { method: 'POST', body: new URLSearchParams({ f: 'json', username: 'signer', password: 'signer-password' }) });
    const { token } = (await issued.json()) as { token: string };
    const self = await fetch(`${emulator.url}/portals/self?f=json`, { headers: { 'x-esri-authorization': `Bearer ${token}` } });
    expect(await self.json()).toMatchObject({ user: { username: 'signer' } });
    expect(emulator.state().tokens.at(-1)).toMatchObject({ token, username: 'signer' });
  });

  it('keeps writes visible to later indexed reads', async () => {
    const emulator = await started(2_000);
    await workOf(emulator, '/content/items/item1999/setContentStatus', { status: 'deprecated' });
    const response = await fetch(`${emulator.url}/content/items/item1999?f=json`, { headers: { 'x-esri-authorization': 'Bearer admin-token' } });
    expect(await response.json()).toMatchObject({ id: 'item1999', contentStatus: 'deprecated' });
    expect(emulator.state().items[1999]).toMatchObject({ id: 'item1999', contentStatus: 'deprecated' });
  });
});
