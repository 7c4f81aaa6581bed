/**
 * The store's drafts: a write commits what its handler changed (element changes, appends, a part
 * assigned whole), a handler that throws leaves the state as it was, and lookups by index see the
 * draft's own appends.
 */
import { describe, expect, it } from 'vitest';
import { parseEmulatorState } from '../../src/emulator/state/data-file.js';
import { EmulatorStore, findBy } from '../../src/emulator/state/store.js';

function store(): EmulatorStore {
  return new EmulatorStore(
    parseEmulatorState(
      {
        organization: { id: 'StoreOrg00000001', name: 'Store' },
        users: [
          { username: 'admin', role: 'org_admin' },
          { username: 'amy', tags: ['a'] },
        ],
        groups: [{ id: 'g1', owner: 'amy' }],
      },
      'store test',
    ),
  );
}

function first<T>(list: readonly T[]): T {
  const [element] = list;
  if (element === undefined) throw new Error('the list is empty');
  return element;
}

describe('EmulatorStore drafts', () => {
  it('commits changed elements, appends and parts assigned whole', () => {
    const emulator = store();
    emulator.write((draft) => {
      const amy = findBy(draft.users, 'username', 'amy');
      if (amy) amy.tags.push('b');
      draft.tokens.push({ token: 't1', username: 'amy' });
      draft.organization = { ...draft.organization, name: 'Renamed' };
      draft.groups = draft.groups.filter((group) => group.id !== 'g1');
    });
    const state = emulator.snapshot();
    expect(state.users.find((user) => user.username === 'amy')?.tags).toEqual(['a', 'b']);
    expect(state.tokens).toMatchObject([{ token: 't1', username: 'amy' }]);
    expect(state.organization.name).toBe('Renamed');
    expect(state.groups).toEqual([]);
    expect(Object.keys(state)).toEqual(['organization', 'roles', 'users', 'tokens', 'oauthClients', 'groups', 'items', 'federation', 'collaborations']);
  });

  it('leaves the state as it was when the handler throws', () => {
    const emulator = store();
    const before = emulator.snapshot();
    expect(() =>
      emulator.write((draft) => {
        const amy = findBy(draft.users, 'username', 'amy');
        if (amy) amy.fullName = 'Changed';
        draft.users.push({ ...first(before.users), username: 'new' });
        draft.organization = { ...draft.organization, name: 'Renamed' };
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(emulator.snapshot()).toEqual(before);
  });

  it('finds an element pushed in the same draft, and after it is committed', () => {
    const emulator = store();
    emulator.read((draft) => findBy(draft.groups, 'id', 'g1'));
    emulator.write((draft) => {
      draft.groups.push({ ...first(draft.groups), id: 'g2' });
      expect(findBy(draft.groups, 'id', 'g2')?.id).toBe('g2');
    });
    expect(emulator.read((draft) => findBy(draft.groups, 'id', 'g2')?.id)).toBe('g2');
  });

  it('copies only the elements a request reads', () => {
    const emulator = store();
    const before = emulator.work.elementCopies;
    emulator.read((draft) => findBy(draft.users, 'username', 'amy'));
    expect(emulator.work.elementCopies - before).toBe(1);
  });
});
