import { describe, expect, it } from 'vitest';
import { body, call, expectApiError, NOW, sampleState } from './helpers.js';

const DELETE_MEMBER_SCHEMA = '/portals/:portalId/deleteMemberCategorySchema';
const POLICY_UPDATE = '/portals/:portalId/securityPolicy/update';
const REMOVE_RESOURCE = '/portals/:portalId/removeResource';

describe('E5 deleteMemberCategorySchema', () => {
  it('removes the schema; the read then has no memberCategorySchema; a second delete is 404', () => {
    const state = sampleState();
    expect(body(call(state, '/portals/:portalId/memberCategorySchema')).memberCategorySchema).toHaveLength(1);
    expect(body(call(state, DELETE_MEMBER_SCHEMA))).toEqual({ success: true });
    expect(state.organization.memberCategorySchema).toBeNull();
    expect(body(call(state, '/portals/:portalId/memberCategorySchema'))).toEqual({});
    const error = expectApiError(() => call(state, DELETE_MEMBER_SCHEMA), { code: 404, messageCode: undefined });
    expect(error.message).toBe('Resource does not exist or is inaccessible.');
  });

  it('is for default admins and holders of portal:admin:updateUsers', () => {
    expectApiError(() => call(sampleState(), DELETE_MEMBER_SCHEMA, { as: 'steward' }), { code: 403, messageCode: 'GWM_0003' });
    const state = sampleState();
    state.roles[2]!.privileges.push('portal:admin:updateUsers');
    expect(body(call(state, DELETE_MEMBER_SCHEMA, { as: 'steward' }))).toEqual({ success: true });
  });
});

describe('E8 securityPolicy/update', () => {
  const update = (params: Record<string, string>, state = sampleState()) => call(state, POLICY_UPDATE, { params });

  it('changes only the given fields, clears empty ones, and reads back with unset rules absent', () => {
    const state = sampleState();
    expect(body(update({ minLength: '12', minUpper: '', historySize: '5', minOther: 'null' }, state))).toEqual({ success: true });
    expect(body(call(state, '/portals/:portalId/securityPolicy'))).toEqual({
      passwordPolicy: { minLength: 12, minDigit: 1, expirationInDays: 180, historySize: 5, type: 'custom', created: NOW, modified: NOW },
    });
  });

  it('keeps minLength within 8..1000 and never null', () => {
    expect(body(update({ minLength: '8' }))).toEqual({ success: true });
    expect(body(update({ minLength: '1000' }))).toEqual({ success: true });
    expectApiError(() => update({ minLength: '7' }), { code: 400, says: /'minLength' must be between 8 and 1000/ });
    expectApiError(() => update({ minLength: '1001' }), { code: 400, says: /'minLength' must be between 8 and 1000/ });
    expectApiError(() => update({ minLength: '' }), { code: 400, says: /cannot be empty/ });
  });

  it('keeps the character rules null or at least 1', () => {
    for (const name of ['minUpper', 'minLower', 'minLetter', 'minDigit', 'minOther']) {
      expect(body(update({ [name]: '1' }))).toEqual({ success: true });
      expectApiError(() => update({ [name]: '0' }), { code: 400, says: /must be at least 1/ });
    }
  });

  it('bounds expirationInDays to 1..1095 and historySize to 1..24', () => {
    expect(body(update({ expirationInDays: '1095', historySize: '24' }))).toEqual({ success: true });
    expect(body(update({ expirationInDays: '1', historySize: '1' }))).toEqual({ success: true });
    expectApiError(() => update({ expirationInDays: '1096' }), { code: 400, says: /must be between 1 and 1095/ });
    expectApiError(() => update({ expirationInDays: '0' }), { code: 400, says: /must be between 1 and 1095/ });
    expectApiError(() => update({ historySize: '25' }), { code: 400, says: /must be between 1 and 24/ });
    expectApiError(() => update({ historySize: '0' }), { code: 400, says: /must be between 1 and 24/ });
  });

  it('rejects non-integers', () => {
    for (const value of ['8.5', 'ten', '1e3']) {
      expectApiError(() => update({ minLength: value }), { code: 400, says: /must be an integer|must be a number/ });
    }
  });

  it('is for default admins, from 10.4', () => {
    expectApiError(() => call(sampleState(), POLICY_UPDATE, { params: { minLength: '9' }, as: 'steward' }), { code: 403, messageCode: 'GWM_0003' });
    const old = sampleState();
    old.organization.version = '10.3.1';
    expectApiError(() => update({ minLength: '9' }, old), { code: 400, says: /^Invalid URL/, detail: '10.4' });
    old.organization.version = '10.4';
    expect(body(update({ minLength: '9' }, old))).toEqual({ success: true });
  });
});

describe('E12 removeResource and resource paging', () => {
  it('removes a resource by key; unknown keys are 404; key is required', () => {
    const state = sampleState();
    expect(body(call(state, REMOVE_RESOURCE, { params: { key: 'old-banner.png' } }))).toEqual({ success: true });
    expect(state.organization.resources.map((resource) => resource.key)).toEqual(['home-background.jpg', 'legacy-logo.png']);
    expectApiError(() => call(state, REMOVE_RESOURCE, { params: { key: 'old-banner.png' } }), { code: 404, messageCode: undefined });
    expectApiError(() => call(state, REMOVE_RESOURCE, {}), { code: 400, says: /is required|cannot be empty/ });
    expectApiError(() => call(state, REMOVE_RESOURCE, { params: { key: 'legacy-logo.png' }, as: 'steward' }), { code: 403, messageCode: 'GWM_0003' });
  });

  it('pages: first, middle and last page, and clamps num to 100', () => {
    const state = sampleState();
    state.organization.resources = Array.from({ length: 250 }, (_, index) => ({ key: `r${index + 1}`, size: index, created: index }));
    const read = (params: Record<string, string>) => body(call(state, '/portals/:portalId/resources', { params }));
    const first = read({});
    expect(first).toMatchObject({ total: 250, start: 1, num: 10, nextStart: 11 });
    expect((first.resources as unknown[])[0]).toEqual({ key: 'r1', size: 0, created: 0 });
    expect(read({ start: '101', num: '100' })).toMatchObject({ start: 101, num: 100, nextStart: 201 });
    const last = read({ start: '201', num: '100' });
    expect(last).toMatchObject({ start: 201, nextStart: -1 });
    expect(last.resources).toHaveLength(50);
    const clamped = read({ num: '500' });
    expect(clamped).toMatchObject({ num: 100, nextStart: 101 });
    expect(clamped.resources).toHaveLength(100);
    expect(read({ start: '241', num: '10' })).toMatchObject({ nextStart: -1 });
    expect(read({ start: '300' })).toMatchObject({ total: 250, nextStart: -1, resources: [] });
    expectApiError(() => read({ num: '0' }), { code: 400, says: /Invalid paging parameter/ });
    expectApiError(() => read({ start: 'x' }), { code: 400, says: /Invalid paging parameter/ });
  });
});

describe('addResource and a resource read back (the documented upload, not one of the fourteen)', () => {
  const ADD = '/portals/:portalId/addResource';
  const READ = '/portals/:portalId/resources/:key';
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
  const file = (content: Uint8Array, contentType = 'image/png') => ({ file: { filename: 'logo.png', contentType, content } });
  const download = (state: ReturnType<typeof sampleState>, key: string) => {
    const result = call(state, READ, { pathParams: { key } });
    if (result.type !== 'file') throw new Error('expected a file');
    return result;
  };

  it('stores a file part under its key, listed with its size and served back byte for byte', () => {
    const state = sampleState();
    expect(body(call(state, ADD, { params: { key: 'brand/logo.png', file: 'ignored: the bytes come from the part' }, files: file(png) }))).toEqual({ success: true });
    expect(state.organization.resources.at(-1)).toEqual({ key: 'brand/logo.png', size: png.length, created: NOW, contentBase64: Buffer.from(png).toString('base64'), contentType: 'image/png' });
    expect(body(call(state, '/portals/:portalId/resources', { params: { num: '100' } })).resources).toContainEqual({ key: 'brand/logo.png', size: png.length, created: NOW });
    const served = download(state, 'brand/logo.png');
    expect(served).toMatchObject({ filename: 'logo.png', contentType: 'image/png' });
    expect(Buffer.from(served.body)).toEqual(Buffer.from(png));
  });

  it('stores text when no file part has content (the sample sends an empty file input with it), and replaces an existing key', () => {
    const state = sampleState();
    call(state, ADD, { params: { key: 'old-banner.png', text: '{"a":1}' }, files: file(new Uint8Array(0), 'application/octet-stream'), now: NOW + 1 });
    expect(state.organization.resources.filter((resource) => resource.key === 'old-banner.png')).toEqual([
      { key: 'old-banner.png', size: 7, created: NOW + 1, contentBase64: Buffer.from('{"a":1}').toString('base64'), contentType: 'text/plain; charset=utf-8' },
    ]);
    expect(Buffer.from(download(state, 'old-banner.png').body).toString('utf8')).toBe('{"a":1}');
  });

  it('refuses a request without key, without content, or with `file` as a plain form value; only default administrators may add', () => {
    const state = sampleState();
    const before = JSON.stringify(state.organization.resources);
    expectApiError(() => call(state, ADD, { files: file(png) }), { code: 400, says: /Parameter 'key' is required/ });
    expectApiError(() => call(state, ADD, { params: { key: 'a.txt' } }), { code: 400, says: /Parameter 'file' or 'text' is required/ });
    expectApiError(() => call(state, ADD, { params: { key: 'a.txt', file: '/home/me/a.txt' } }), { code: 400, says: /'file' must be a file part of a multipart\/form-data body/ });
    expectApiError(() => call(state, ADD, { params: { key: 'a.txt', text: 'x' }, as: 'steward' }), { code: 403, messageCode: 'GWM_0003' });
    expect(JSON.stringify(state.organization.resources)).toBe(before);
  });

  it('serves a resource the data file only names as an empty file, and an unknown key as 404', () => {
    const state = sampleState();
    const named = download(state, 'legacy-logo.png');
    expect(named).toMatchObject({ filename: 'legacy-logo.png', contentType: 'application/octet-stream' });
    expect(named.body).toHaveLength(0);
    expectApiError(() => call(state, READ, { pathParams: { key: 'nothing.png' } }), { code: 404, messageCode: undefined });
  });
});
