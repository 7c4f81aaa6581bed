import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmulatorDataError, guidFor, loadDataFile, minimalState, parseEmulatorState } from '../../../src/emulator/state/data-file.js';
import { startEmulatorServer } from '../../../src/emulator/server.js';
import { SAMPLE_DATA, json, send, testRoutes } from './helpers.js';

const directory = mkdtempSync(join(tmpdir(), 'portalctl-emulator-data-'));
let fileNumber = 0;

function dataFile(text: string, extension = 'yaml'): string {
  fileNumber += 1;
  const path = join(directory, `data-${fileNumber}.${extension}`);
  writeFileSync(path, text);
  return path;
}

function failure(run: () => unknown): EmulatorDataError {
  try {
    run();
  } catch (error) {
    if (error instanceof EmulatorDataError) return error;
    throw error;
  }
  throw new Error('expected an EmulatorDataError');
}

describe('loadDataFile', () => {
  it('loads the sample organization', () => {
    const state = loadDataFile(SAMPLE_DATA);
    expect(state.organization).toMatchObject({ id: '0123456789ABCDEF', version: '11.3', edition: 'self-managed' });
    expect(state.users).toHaveLength(6);
    expect(state.federation?.certificate).toContain('BEGIN CERTIFICATE');
    expect(state.collaborations[0]?.workspaces[1]?.config).toEqual({});
  });

  it('fills defaults for omitted arrays and fields', () => {
    const state = loadDataFile(dataFile('organization:\n  id: ORG1\nusers:\n  - username: amy\n'));
    expect(state).toEqual({
      organization: {
        id: 'ORG1',
        name: 'ORG1',
        edition: 'self-managed',
        version: '11.3',
        // The documented API version and build of 11.3 (Root resource page).
        apiVersion: '2024.1',
        build: '51526',
        access: 'public',
        isVerified: false,
        hostname: 'portal.example.com',
        categorySchema: [],
        memberCategorySchema: null,
        securityPolicy: {},
        resources: [],
        quotas: {},
        collaborationPortalId: guidFor('ORG1'),
        securityPolicyModified: -1,
      },
      users: [{ username: 'amy', fullName: 'amy', role: 'org_user', level: 2, tags: [], licences: [], tasks: [] }],
      roles: [],
      tokens: [],
      oauthClients: [],
      groups: [],
      items: [],
      federation: null,
      collaborations: [],
    });
  });

  it('reads JSON files and drops null password rules', () => {
    const state = loadDataFile(dataFile(JSON.stringify({ organization: { id: 'J', securityPolicy: { minLength: 9, minUpper: null } } }), 'json'));
    expect(state.organization.securityPolicy).toEqual({ minLength: 9 });
  });

  it('names the file and the bad field', () => {
    const path = dataFile('organization:\n  id: ORG1\nusers:\n  - username: amy\n    level: 3\n');
    const error = failure(() => loadDataFile(path));
    expect(error.source).toBe(path);
    expect(error.field).toBe('users[0].level');
    expect(error.message).toBe(`${path}: users[0].level: expected one of 1, 2, found number 3`);
  });

  it.each([
    ['users: []\n', 'organization', 'required field is missing'],
    ['organization: {id: A, version: 11.3}\n', 'organization.version', 'quote it'],
    ['organization: {id: A, version: "11.3", apiVersion: 2024.1}\n', 'organization.apiVersion', 'quote it'],
    // A release the emulator knows no API version of must say which one it reports.
    ['organization: {id: A, version: "10.8.1"}\n', 'organization.apiVersion', 'that release 10.8.1 reports is not known'],
    ['organization: {id: A, version: "eleven"}\n', 'organization.version', 'not a dotted number'],
    ['organization: {id: A, colour: red}\n', 'organization.colour', 'unknown field'],
    ['organization: {id: A}\ntokens: [{token: t, username: ghost}]\n', 'tokens[0].username', 'no user "ghost"'],
    ['organization: {id: A}\nusers: [{username: u, role: r9}]\n', 'users[0].role', 'neither a built-in role'],
    ['organization: {id: A}\nusers: [{username: u}, {username: u}]\n', 'users[1].username', 'duplicate'],
    ['organization: {id: A}\nitems: [{id: i, owner: u, contentStatus: gold}]\n', 'items[0].contentStatus', 'one of'],
    ['organization: {id: A, categorySchema: [{title: T, categories: [{description: d}]}]}\n', 'organization.categorySchema[0].categories[0].title', 'required'],
    // Access modes live on workspaces (documented), not on participants.
    ['organization: {id: A}\ncollaborations: [{id: c, workspaces: [{id: w1, participantGroupLinks: [{portalId: p, portalGroupId: g, accessMode: everything}]}]}]\n', 'collaborations[0].workspaces[0].participantGroupLinks[0].accessMode', 'one of'],
    ['organization: {id: A}\ncollaborations: [{id: c, participants: [{portalId: p, url: u, workspaces: {w1: send}}]}]\n', 'collaborations[0].participants[0].workspaces', 'unknown field'],
    // The host participant is the one whose portalId is hostPortalId; a role saying otherwise is refused.
    ['organization: {id: A}\ncollaborations: [{id: c, hostPortalId: h, participants: [{portalId: h, url: u, role: Guest}]}]\n', 'collaborations[0].participants[0].role', 'must be Host'],
    ['organization: {id: A}\ncollaborations: [{id: c, hostPortalId: h, participants: [{portalId: p, url: u, role: Host}]}]\n', 'collaborations[0].participants[0].role', 'must be Guest'],
    ['organization: {id: A, resources: [{key: k, contentBase64: "not base64!"}]}\n', 'organization.resources[0].contentBase64', 'must be base64'],
    ['organization: {id: A, resources: [{key: k, contentBase64: "QUJD", size: 4}]}\n', 'organization.resources[0].size', 'holds 3 bytes'],
    ['- just\n- a list\n', '', 'expected a mapping'],
  ])('rejects %j', (text, field, problem) => {
    const error = failure(() => loadDataFile(dataFile(text)));
    expect(error.field).toBe(field);
    expect(error.problem).toContain(problem);
  });

  it("takes a resource's content as base64, its size from it", () => {
    const state = loadDataFile(dataFile('organization: {id: A, resources: [{key: k.txt, contentBase64: "QUJD", contentType: text/plain, created: 5}]}\n'));
    expect(state.organization.resources).toEqual([{ key: 'k.txt', size: 3, created: 5, contentBase64: 'QUJD', contentType: 'text/plain' }]);
    expect(parseEmulatorState(state, 'again')).toEqual(state);
  });

  it('marks the participant whose portalId is hostPortalId as the Host, every other one as a Guest', () => {
    const state = loadDataFile(dataFile('organization: {id: A}\ncollaborations: [{id: c, hostPortalId: h, participants: [{portalId: h, url: u}, {portalId: p, url: v}]}]\n'));
    expect(state.collaborations[0]?.participants.map((participant) => [participant.portalId, participant.role])).toEqual([['h', 'Host'], ['p', 'Guest']]);
  });

  it('reports unreadable files and YAML syntax errors', () => {
    expect(failure(() => loadDataFile(join(directory, 'missing.yaml'))).message).toContain('cannot read the data file');
    const unclosed = dataFile('organization: [unclosed\n');
    expect(failure(() => loadDataFile(unclosed)).message).toMatch(new RegExp(`^${unclosed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:1: not valid YAML or JSON: `));
  });

  it('validates a state object the same way', () => {
    expect(failure(() => parseEmulatorState({ organization: { id: 5 } }, 'test')).message).toBe('test: organization.id: expected a string, found number 5');
    expect(parseEmulatorState(minimalState(), 'again')).toEqual(minimalState());
  });
});

describe('starting with data', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('starts a minimal organization with an admin token when no data is given', async () => {
    const emulator = await startEmulatorServer({ routes: testRoutes });
    closers.push(emulator.close);
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest$/);
    const self = json(await send(`${emulator.url}/portals/self?f=json&token=admin-token`));
    expect(self).toMatchObject({ id: 'EmulatorOrg00001', user: { username: 'admin', role: 'org_admin' } });
  });

  it('takes a state object and refuses a bad data file before listening', async () => {
    const state = loadDataFile(SAMPLE_DATA);
    state.organization.name = 'From an object';
    const emulator = await startEmulatorServer({ routes: testRoutes, data: state });
    closers.push(emulator.close);
    expect(json(await send(`${emulator.url}/portals/self?f=json&token=admin-token`))['name']).toBe('From an object');
    await expect(startEmulatorServer({ routes: testRoutes, data: dataFile('organization: 7\n') })).rejects.toThrow(EmulatorDataError);
  });
});
