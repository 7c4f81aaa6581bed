/**
 * The documented wire samples (test/fixtures/wire-samples, one file per endpoint, the public
 * documentation's shapes): loading them, and a small HTTP server that replays only them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import { listenOnLoopback, REST_PREFIX } from './loopback.js';

export const SAMPLES_DIR = fileURLToPath(new URL('../fixtures/wire-samples/', import.meta.url));

export interface WireSample {
  endpoint: string;
  source: string;
  documented: JsonValue;
  notes: string[];
}

export function sampleFiles(): string[] {
  return readdirSync(SAMPLES_DIR).filter((name) => name.endsWith('.json')).sort();
}

export function sample(file: string): WireSample {
  return JSON.parse(readFileSync(`${SAMPLES_DIR}${file}`, 'utf8')) as WireSample;
}

/** A sample's documented body as an object (a deep copy: tests may change it). */
export function documented(file: string): JsonObject {
  return structuredClone(sample(file).documented) as JsonObject;
}

/** The documented ids, as they appear in the samples. */
export const IDS = {
  org: 'AbCdEfGh01234567',
  collaboration: 'c0ffee01000000000000000000000001',
  workspace: 'c0ffee02000000000000000000000001',
  group: 'c0ffee03000000000000000000000001',
  invitation: 'c0ffee04000000000000000000000001',
  item: 'c0ffee07000000000000000000000001',
  task: 'c0ffee08000000000000000000000001',
  role: 'c0ffeeRole000001',
  federation: 'FedId0123456789A',
  hostPortal: '0000aaaa-1111-2222-3333-444455556666',
  user: 'member1',
  guestUrl: 'https://guest.example.com:7443/arcgis',
  userToken: 'ExampleTokenValue0123456789abcdef.',
  appToken: 'ExampleAccessToken0123',
} as const;

const errors = (): JsonObject => documented('errors.json');
const writes = (): JsonObject => documented('write-operations.json');

/** The documented answer of each GET, by path relative to the REST root. */
function readAnswers(): Map<string, () => JsonObject> {
  const c = `/portals/self/collaborations/${IDS.collaboration}`;
  const federation = (): JsonObject => {
    const body = documented('portals-self-idp-federation.json');
    // Kept in the sample file for the update's answer; not part of the GET body.
    delete body['update_response'];
    return body;
  };
  return new Map<string, () => JsonObject>([
    ['/portals/self/categorySchema', () => documented('portals-self-categorySchema.json')],
    ['/portals/self/memberCategorySchema', () => documented('portals-self-memberCategorySchema.json')],
    ['/portals/self/securityPolicy', () => documented('portals-self-securityPolicy.json')],
    ['/portals/self/idp/federation', federation],
    ['/portals/self/resources', () => documented('portals-self-resources.json')],
    ['/portals/self/users', () => documented('portals-self-users.json')],
    ['/portals/self/roles', () => documented('portals-self-roles.json')],
    [`/portals/self/roles/${IDS.role}`, () => documented('portals-self-roles-id.json')],
    ['/portals/self/collaborations', () => documented('portals-self-collaborations.json')],
    [c, () => documented('portals-self-collaborations-id.json')],
    [`${c}/workspaces`, () => documented('portals-self-collaborations-workspaces.json')],
    [`${c}/workspaces/${IDS.workspace}`, () => documented('portals-self-collaborations-workspaces-id.json')],
    [`${c}/participants`, () => documented('portals-self-collaborations-participants.json')],
    [`${c}/participants/${IDS.hostPortal}`, () => documented('portals-self-collaborations-participants-id.json')],
    [`${c}/invitations`, () => documented('portals-self-collaborations-invitations.json')],
    [`${c}/invitations/${IDS.invitation}`, () => documented('portals-self-collaborations-invitations-id.json')],
    [`/community/groups/${IDS.group}/categorySchema`, () => documented('community-groups-categorySchema.json')],
    [`/community/users/${IDS.user}`, () => documented('community-users-id.json')],
    [`/community/users/${IDS.user}/tasks`, () => documented('community-users-tasks.json')],
    [`/community/users/${IDS.user}/tasks/${IDS.task}`, () => documented('community-users-tasks-id.json')],
    [`/content/items/${IDS.item}`, () => documented('content-items-id.json')],
  ]);
}

/** The documented answer of each write, by path; E13 is a file (see inviteParticipant). */
function writeAnswers(): Map<string, JsonObject> {
  const documentedWrites = writes();
  const answer = (prefix: string): JsonObject => {
    const key = Object.keys(documentedWrites).find((name) => name.startsWith(`${prefix} `));
    return documentedWrites[key ?? ''] as JsonObject;
  };
  const c = `/portals/self/collaborations/${IDS.collaboration}`;
  return new Map<string, JsonObject>([
    [`/community/groups/${IDS.group}/assignCategorySchema`, answer('E1')],
    ['/portals/self/assignCategorySchema', answer('E2')],
    [`/content/items/${IDS.item}/setContentStatus`, answer('E3')],
    ['/portals/self/updateUserLevel', answer('E4')],
    ['/portals/self/deleteMemberCategorySchema', answer('E5')],
    [`/portals/self/idp/federation/${IDS.federation}/update`, answer('E6')],
    [`/community/users/${IDS.user}/tasks/${IDS.task}/enable`, answer('E7')],
    ['/portals/self/securityPolicy/update', answer('E8')],
    [`${c}/workspaces/${IDS.workspace}/updateInfo`, answer('E9')],
    [`/portals/self/roles/${IDS.role}/update`, answer('E10')],
    [`${c}/participants/${IDS.hostPortal}/remove`, answer('E11')],
    ['/portals/self/removeResource', answer('E12')],
    [`${c}/workspaces/${IDS.workspace}/removePortalGroupLink`, answer('E14')],
  ]);
}

export interface ReplayRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  form: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface ReplayServer {
  /** REST root, e.g. http://127.0.0.1:PORT/portal/sharing/rest */
  url: string;
  requests: ReplayRequest[];
  close(): Promise<void>;
}

/** The documented ways to send a token: the `token` field, `X-Esri-Authorization: Bearer`, `Authorization: Bearer`. */
function tokenOf(request: ReplayRequest): string | undefined {
  const field = request.form.get('token') ?? request.query.get('token');
  if (field) return field;
  for (const name of ['x-esri-authorization', 'authorization']) {
    const value = request.headers[name];
    const match = typeof value === 'string' ? /^Bearer\s+(\S+)$/i.exec(value) : null;
    if (match?.[1]) return match[1];
  }
  return undefined;
}

function answer(request: ReplayRequest): { body: JsonValue; headers?: Record<string, string> } | { file: string; headers: Record<string, string> } {
  const error = (name: string): JsonValue => errors()[name] as JsonValue;
  if (request.method === 'POST' && request.path === '/generateToken') return { body: documented('auth-generateToken.json') };
  if (request.method === 'POST' && request.path === '/oauth2/token') return { body: documented('auth-oauth2-token.json') };
  const token = tokenOf(request);
  if (token === undefined) return { body: error('token_required_499') };
  if (token !== IDS.userToken && token !== IDS.appToken) return { body: error('invalid_token_498') };

  if (request.method === 'GET') {
    if (request.path === '/portals/self') {
      // Signed-in users get `user`, app tokens `appInfo` (portals-self.json notes).
      const self = documented('portals-self.json');
      if (token === IDS.appToken) delete self['user'];
      else delete self['appInfo'];
      return { body: self };
    }
    if (request.path === '/search' || request.path === '/community/groups') {
      // Search needs q; `orgid:<id>` lists the organization's items or groups.
      if (request.query.get('q') !== `orgid:${IDS.org}`) return { body: error('bad_request_400') };
      return { body: documented(request.path === '/search' ? 'search.json' : 'community-groups-search.json') };
    }
    const read = readAnswers().get(request.path);
    return { body: read ? read() : error('not_found_404') };
  }
  if (request.path === `/portals/self/collaborations/${IDS.collaboration}/inviteParticipant`) {
    const invite = documented('portals-self-collaborations-inviteParticipant.json');
    return {
      file: JSON.stringify(invite['body_file_content_probable']),
      headers: { 'content-type': 'application/octet-stream', ...(invite['http_headers'] as Record<string, string>) },
    };
  }
  const write = writeAnswers().get(request.path);
  return { body: write ?? error('not_found_404') };
}

/** A loopback server answering only with the documented samples (errors with the documented envelopes, HTTP 200). */
export async function startReplayServer(): Promise<ReplayServer> {
  const requests: ReplayRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.startsWith(REST_PREFIX) ? url.pathname.slice(REST_PREFIX.length) : url.pathname;
      const request: ReplayRequest = {
        method: req.method ?? '',
        path: decodeURI(path),
        query: url.searchParams,
        form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
        headers: req.headers,
      };
      requests.push(request);
      const reply = answer(request);
      if ('file' in reply) {
        res.writeHead(200, reply.headers);
        res.end(reply.file);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...(reply.headers ?? {}) });
      res.end(JSON.stringify(reply.body));
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}
