/**
 * The documented search syntax (src/emulator/shared/search.ts): its parse, and the fields of
 * items, groups and users through their routes. Every bad query is a 400 without a messageCode
 * that says what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from '../../../src/emulator/shared/search.js';
import { body, call, expectApiError, sampleState } from './helpers.js';

const ORG = '0123456789ABCDEF';
const SEARCH = '/search';
const GROUPS = '/community/groups';
const USERS = '/community/users';
const ORG_USERS = '/portals/:portalId/users/search';

const ids = (pattern: string, q: string, as = 'admin', field = 'id'): unknown[] =>
  (body(call(sampleState(), pattern, { params: { q, num: '100' }, as }))['results'] as Record<string, unknown>[]).map((entry) => entry[field]);
const titles = (q: string, as = 'admin'): unknown[] => ids(SEARCH, q, as, 'title');

describe('the query syntax', () => {
  it('NOT binds tighter than AND, AND tighter than OR; parentheses group; adjacent terms are joined by AND', () => {
    expect(parseSearchQuery('a OR b AND NOT c')).toEqual({
      kind: 'or',
      left: { kind: 'term', term: { field: undefined, value: 'a' } },
      right: { kind: 'and', left: { kind: 'term', term: { field: undefined, value: 'b' } }, right: { kind: 'not', operand: { kind: 'term', term: { field: undefined, value: 'c' } } } },
    });
    expect(parseSearchQuery('(owner:a OR owner: b) type:"Web Map"')).toEqual({
      kind: 'and',
      left: { kind: 'or', left: { kind: 'term', term: { field: 'owner', value: 'a' } }, right: { kind: 'term', term: { field: 'owner', value: 'b' } } },
      right: { kind: 'term', term: { field: 'type', value: 'Web Map' } },
    });
    // Operators are capitals only; field names are not case-sensitive.
    expect(parseSearchQuery('Title:roads and')).toEqual({
      kind: 'and',
      left: { kind: 'term', term: { field: 'title', value: 'roads' } },
      right: { kind: 'term', term: { field: undefined, value: 'and' } },
    });
  });

  it.each([
    ['title:"Road', 'The quotation mark at position 7 is not closed.'],
    ['(owner:a OR owner:b', 'An opening parenthesis is not closed.'],
    ['owner:a)', 'A closing parenthesis has no opening one.'],
    ['owner:a AND', 'The query ends where a term was expected.'],
    ['OR owner:a', 'Unexpected OR where a term was expected.'],
    ['owner: AND title:x', "The field 'owner' has no value."],
  ])('refuses %s with code 400 saying what is wrong', (q, detail) => {
    expectApiError(() => call(sampleState(), SEARCH, { params: { q } }), { code: 400, says: /^Unable to parse the search query/, detail });
  });

  it('refuses a field the list does not support, the same on items, groups and users', () => {
    for (const [pattern, what] of [[SEARCH, 'items'], [GROUPS, 'groups'], [USERS, 'users'], [ORG_USERS, 'users']] as const) {
      const error = expectApiError(() => call(sampleState(), pattern, { params: { q: `orgid:${ORG} AND numviews:3` } }), { code: 400, says: /^Unsupported search field 'numviews'\./ });
      expect(error.details[0]).toMatch(new RegExp(`^The emulator searches ${what} by: `));
    }
  });
});

describe('items (search)', () => {
  it('orgid and accountid name the organization; another id finds nothing', () => {
    expect(titles(`orgid:${ORG}`)).toHaveLength(4);
    expect(titles(`accountid:${ORG}`)).toHaveLength(4);
    expect(titles('orgid:SomeOtherOrg0001')).toEqual([]);
  });

  it('id, owner (case-sensitive, as documented), type, title (words or a phrase), access, tags, contentstatus', () => {
    expect(titles('id:1105a1562c9c4dd98e557595bf8a2617')).toEqual(['Parcels 2019']);
    expect(titles('owner:jsmith')).toEqual(['Flood Zones', 'Culvert Inspections']);
    expect(titles('owner:JSmith')).toEqual([]);
    expect(titles('type:"Web Map" AND title:"road centerlines"')).toEqual(['Road Centerlines']);
    expect(titles('type:"Feature Service"')).toEqual([]);
    expect(titles('access:public OR access:private')).toEqual(['Road Centerlines', 'Culvert Inspections']);
    expect(titles('contentstatus:deprecated')).toEqual(['Flood Zones']);
    expect(titles(`orgid:${ORG} AND NOT owner:publisher1 AND NOT access:private`)).toEqual(['Flood Zones']);
    expect(titles('zones')).toEqual(['Flood Zones']);
  });

  it("another member's private item is not found by anyone but its owner and administrators", () => {
    expect(titles('title:culvert', 'mlopez')).toEqual([]);
    expect(titles('title:culvert', 'jsmith')).toEqual(['Culvert Inspections']);
  });
});

describe('groups (community/groups)', () => {
  it('owner, title, access and bare terms; one id is a lookup', () => {
    expect(ids(GROUPS, 'owner:jsmith')).toEqual(['3f2a9c0e5d1b4a7f8e6c2b1a0d9e8f7c']);
    expect(ids(GROUPS, `accountid:${ORG} AND title:"Planning Department"`)).toEqual(['b4850fb244bf4fbc8b918c96f267b2cf']);
    expect(ids(GROUPS, 'owner:admin OR owner:jsmith')).toHaveLength(2);
    expect(ids(GROUPS, 'id:b4850fb244bf4fbc8b918c96f267b2cf')).toEqual(['b4850fb244bf4fbc8b918c96f267b2cf']);
    expect(ids(GROUPS, 'planning')).toEqual(['b4850fb244bf4fbc8b918c96f267b2cf']);
  });
});

describe('users (community/users, portals/self/users/search)', () => {
  it('username, fullname, role (built-in or custom role id), sorted as asked', () => {
    expect(ids(USERS, 'username:jsmith OR fullname:"maria lopez"', 'admin', 'username')).toEqual(['jsmith', 'mlopez']);
    expect(ids(USERS, 'role:vW3rLv', 'admin', 'username')).toEqual(['mlopez', 'viewer1']);
    expect(body(call(sampleState(), ORG_USERS, { params: { q: `orgid:${ORG}`, sortField: 'fullname', sortOrder: 'desc' } }))['results']).toMatchObject([
      { fullName: 'Val Viewer' },
      { fullName: 'Sam Steward' },
      { fullName: 'Portal Administrator' },
      { fullName: 'Pat Publisher' },
      { fullName: 'Maria Lopez' },
      { fullName: 'Jane Smith' },
    ]);
    expectApiError(() => call(sampleState(), ORG_USERS, { params: { q: '*', sortField: 'lastLogin' } }), { code: 400, says: /'sortField' must be one of/ });
    expectApiError(() => call(sampleState(), USERS, { params: {} }), { code: 400, says: /'q' parameter is required/ });
  });
});
