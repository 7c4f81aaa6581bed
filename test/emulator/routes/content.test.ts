import { describe, expect, it } from 'vitest';
import { applyAutomaticTransitions } from '../../../src/emulator/content/rules.js';
import { body, call, expectApiError, ORG_ID, sampleState } from './helpers.js';


const SET_STATUS = '/content/items/:itemId/setContentStatus';
const ROAD = '9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e'; // publisher1, public, org_authoritative
const PARCELS = '1105a1562c9c4dd98e557595bf8a2617'; // publisher1, org, no status
const FLOOD = '668187ae19cd4cae9460087d0ef47e60'; // jsmith, org, deprecated
const CULVERTS = '996b4380b556465a8c2356cd4244b6d2'; // jsmith, private

const setStatus = (state: ReturnType<typeof sampleState>, itemId: string, params: Record<string, string>, as = 'admin') =>
  call(state, SET_STATUS, { params, pathParams: { itemId }, as });
const readItem = (state: ReturnType<typeof sampleState>, itemId: string, as = 'admin') =>
  body(call(state, '/content/items/:itemId', { pathParams: { itemId }, as }));

describe('E3 setContentStatus', () => {
  it('sets deprecated and org_authoritative and answers {success, itemId}', () => {
    const state = sampleState();
    expect(body(setStatus(state, PARCELS, { status: 'deprecated' }))).toEqual({ success: true, itemId: PARCELS });
    expect(readItem(state, PARCELS)).toMatchObject({ id: PARCELS, contentStatus: 'deprecated', owner: 'publisher1', access: 'org' });
    setStatus(state, PARCELS, { status: 'org_authoritative', clearEmptyFields: 'false' });
    expect(readItem(state, PARCELS).contentStatus).toBe('org_authoritative');
  });

  it('clears only with an empty status and clearEmptyFields=true', () => {
    const state = sampleState();
    expectApiError(() => setStatus(state, FLOOD, { status: '' }), { code: 400, says: /empty status needs clearEmptyFields/ });
    expectApiError(() => setStatus(state, FLOOD, { status: '', clearEmptyFields: 'false' }), { code: 400, says: /empty status needs clearEmptyFields/ });
    expect(state.items[2]!.contentStatus).toBe('deprecated');
    expect(body(setStatus(state, FLOOD, { status: '', clearEmptyFields: 'true' }))).toEqual({ success: true, itemId: FLOOD });
    expect(readItem(state, FLOOD).contentStatus).toBe('');
    expect(state.items[2]).not.toHaveProperty('contentStatus');
  });

  it('rejects an unknown status, a missing status and a bad clearEmptyFields', () => {
    const state = sampleState();
    expectApiError(() => setStatus(state, PARCELS, { status: 'authoritative' }), { code: 400, says: /must be one of/ });
    expectApiError(() => setStatus(state, PARCELS, {}), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => setStatus(state, PARCELS, { status: '', clearEmptyFields: 'yes' }), { code: 400, says: /must be true or false/ });
  });

  it('allows public_authoritative only in a public and verified organization (CONT_0163)', () => {
    const unverified = sampleState();
    expectApiError(() => setStatus(unverified, PARCELS, { status: 'public_authoritative' }), { code: 400, messageCode: 'CONT_0163' });
    const privateOrg = sampleState();
    privateOrg.organization.isVerified = true;
    privateOrg.organization.access = 'private';
    expectApiError(() => setStatus(privateOrg, PARCELS, { status: 'public_authoritative' }), { code: 400, messageCode: 'CONT_0163' });
    const ok = sampleState();
    ok.organization.isVerified = true;
    expect(body(setStatus(ok, PARCELS, { status: 'public_authoritative' }))).toEqual({ success: true, itemId: PARCELS });
  });

  it('answers CONT_0001 for an unknown item, and for a private item the caller cannot see', () => {
    expectApiError(() => setStatus(sampleState(), 'missing', { status: 'deprecated' }), { code: 400, messageCode: 'CONT_0001' });
    expectApiError(() => setStatus(sampleState(), CULVERTS, { status: 'deprecated' }, 'publisher1'), { code: 400, messageCode: 'CONT_0001' });
  });

  it('lets the owner and holders of portal:admin:updateItems set it; others get GWM_0003', () => {
    const state = sampleState();
    expect(body(setStatus(state, CULVERTS, { status: 'deprecated' }, 'jsmith'))).toMatchObject({ success: true });
    expect(body(setStatus(state, PARCELS, { status: 'deprecated' }, 'steward'))).toMatchObject({ success: true });
    expectApiError(() => setStatus(state, PARCELS, { status: 'deprecated' }, 'jsmith'), { code: 403, messageCode: 'GWM_0003' });
  });
});

describe('item reads', () => {
  it('shows contentStatus "" when none, and pages /search over visible items', () => {
    const state = sampleState();
    expect(readItem(state, PARCELS)).toMatchObject({ id: PARCELS, title: 'Parcels 2019', owner: 'publisher1', access: 'org', contentStatus: '', protected: false });
    expect(readItem(state, ROAD).contentStatus).toBe('org_authoritative');
    // Authoritative items are protected (documented).
    expect(readItem(state, ROAD).protected).toBe(true);
    const all = body(call(state, '/search', { params: { q: `orgid:${ORG_ID}`, num: '3' } }));
    expect(all).toMatchObject({ query: `orgid:${ORG_ID}`, total: 4, start: 1, num: 3, nextStart: 4 });
    // Search results carry contentStatus and no `protected` (documented).
    expect((all['results'] as Record<string, unknown>[])[0]).toMatchObject({ id: ROAD, contentStatus: 'org_authoritative' });
    expect((all['results'] as Record<string, unknown>[])[0]).not.toHaveProperty('protected');
    const forPublisher = body(call(state, '/search', { params: { q: `orgid:${ORG_ID}` }, as: 'publisher1' }));
    expect(forPublisher.total).toBe(3);
    expect(body(call(state, '/search', { params: { q: `orgid:${ORG_ID} owner:jsmith` } })).total).toBe(2);
    expect(body(call(state, '/search', { params: { q: 'orgid:SomeOtherOrg' } })).total).toBe(0);
    expectApiError(() => call(state, '/search'), { code: 400, messageCode: undefined });
    expectApiError(() => readItem(state, CULVERTS, 'publisher1'), { code: 400, messageCode: 'CONT_0001' });
  });
});

describe('applyAutomaticTransitions', () => {
  it('flips org_authoritative to public_authoritative when the item becomes public in a verified org', () => {
    const previous = sampleState();
    previous.organization.isVerified = true;
    const next = structuredClone(previous);
    next.items[1]!.contentStatus = 'org_authoritative';
    previous.items[1]!.contentStatus = 'org_authoritative';
    next.items[1]!.access = 'public';
    applyAutomaticTransitions(previous, next);
    expect(next.items[1]!.contentStatus).toBe('public_authoritative');
  });

  it('does not flip on sharing in an unverified org', () => {
    const previous = sampleState();
    const next = structuredClone(previous);
    next.items[1]!.contentStatus = 'org_authoritative';
    next.items[1]!.access = 'public';
    applyAutomaticTransitions(previous, next);
    expect(next.items[1]!.contentStatus).toBe('org_authoritative');
  });

  it('flips every org_authoritative item when the organization becomes verified', () => {
    const previous = sampleState();
    const next = structuredClone(previous);
    next.organization.isVerified = true;
    next.items[1]!.contentStatus = 'org_authoritative';
    applyAutomaticTransitions(previous, next);
    expect(next.items.map((item) => item.contentStatus)).toEqual(['public_authoritative', 'public_authoritative', 'deprecated', undefined]);
  });

  it('flips public_authoritative back when the item stops being public, and leaves new items alone', () => {
    const previous = sampleState();
    previous.organization.isVerified = true;
    previous.items[0]!.contentStatus = 'public_authoritative';
    const next = structuredClone(previous);
    next.items[0]!.access = 'org';
    next.items.push({ id: 'new', title: 'New', owner: 'admin', access: 'public', contentStatus: 'org_authoritative', type: 'Web Map', tags: [], categories: [], created: 0 });
    applyAutomaticTransitions(previous, next);
    expect(next.items[0]!.contentStatus).toBe('org_authoritative');
    expect(next.items[4]!.contentStatus).toBe('org_authoritative');
  });

  it('leaves deprecated items and unchanged states alone', () => {
    const previous = sampleState();
    const next = structuredClone(previous);
    applyAutomaticTransitions(previous, next);
    expect(next).toEqual(previous);
  });
});
