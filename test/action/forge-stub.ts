/**
 * A local stand-in for the GitHub and GitLab endpoints the CI scripts call, answering as the
 * documented APIs do. Everything lives in memory; every request is logged.
 *
 * GitHub (https://docs.github.com/rest): issue comments (GET/POST /repos/:o/:r/issues/:n/comments,
 * PATCH /repos/:o/:r/issues/comments/:id), issues (GET/POST /repos/:o/:r/issues, PATCH
 * /repos/:o/:r/issues/:n), the pull requests of a commit (GET /repos/:o/:r/commits/:sha/pulls),
 * artifacts by name (GET /repos/:o/:r/actions/artifacts?name=), and the token's account: GraphQL
 * `viewer` (POST /graphql) answers for the workflow token, GET /user refuses it with 403
 * ("Resource not accessible by integration"), as GitHub does.
 * GitLab (https://docs.gitlab.com/api/): GET /api/v4/user, merge-request notes
 * (GET/POST .../merge_requests/:iid/notes, PUT .../notes/:id), issues (GET/POST .../issues,
 * PUT .../issues/:iid, POST .../issues/:iid/notes), the merge requests of a commit
 * (.../repository/commits/:sha/merge_requests), a merge request's pipelines, a pipeline's jobs and
 * one file of a job's artifacts (.../jobs/:id/artifacts/*path).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A comment or note on a pull or merge request. `author` is a GitHub login or a GitLab user id. */
export interface StoredComment {
  id: number;
  body: string;
  /** The pull request number or merge request iid it is on; undefined: on every one (older tests). */
  target?: number;
  author?: string;
}

export interface StoredIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  author: string;
  notes: string[];
}

export interface LoggedCall {
  method: string;
  path: string;
  authorization: string | undefined;
  privateToken: string | undefined;
  body?: Record<string, unknown>;
}

/** Who a token is: a GitHub login (GraphQL `viewer`) and a GitLab user. */
export interface StubAccount {
  token: string;
  login: string;
  userId: number;
}

export interface ForgeStub {
  url: string;
  comments: StoredComment[];
  issues: StoredIssue[];
  /** GitHub pull requests (for GET /commits/:sha/pulls). */
  pulls: { number: number; merged_at: string | null; merge_commit_sha: string; head: { sha: string } }[];
  /** GitHub artifacts (for GET /actions/artifacts). */
  artifacts: { id: number; name: string; expired: boolean; created_at: string; workflow_run: { id: number; head_sha: string } }[];
  /** GitLab merge requests, pipelines, jobs and their artifact files. */
  mergeRequests: { iid: number; state: string; merge_commit_sha: string | null; squash_commit_sha: string | null; sha: string }[];
  /** `ref`: the pipeline's ref (default `refs/merge-requests/<iid>/head`; a merged-results pipeline's is `.../merge`). */
  pipelines: { id: number; mergeRequest: number; sha: string; ref?: string }[];
  jobs: { id: number; pipeline: number; name: string; status: string; artifacts: Record<string, string> }[];
  calls: LoggedCall[];
  /** Answer every write with this status (e.g. 403, as for a fork's read-only token). */
  refuseWrites?: number;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Starts the stub; `accounts` are the tokens it accepts (the first is the CI token). */
export async function startForgeStub(...accounts: (StubAccount | { token: string })[]): Promise<ForgeStub> {
  const known = accounts.map((account, index) => ({ login: 'github-actions[bot]', userId: 900 + index, ...account }));
  let nextId = 1000;
  const stub: ForgeStub = { url: '', comments: [], issues: [], pulls: [], artifacts: [], mergeRequests: [], pipelines: [], jobs: [], calls: [], close: async () => undefined };
  const send = (response: ServerResponse, status: number, value: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(value));
  };
  const page = <T>(url: URL, items: T[]): T[] => {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const number = Number(url.searchParams.get('page') ?? 1);
    return items.slice((number - 1) * perPage, number * perPage);
  };
  const githubComment = (comment: StoredComment) => ({ id: comment.id, body: comment.body, user: { login: comment.author ?? 'someone-else' }, html_url: `https://github.example/c/${comment.id}` });
  const gitlabNote = (comment: StoredComment) => ({ id: comment.id, body: comment.body, author: { id: Number(comment.author ?? 1), username: `user${comment.author ?? 1}` } });
  const githubIssue = (issue: StoredIssue) => ({ number: issue.number, title: issue.title, body: issue.body, state: issue.state, user: { login: issue.author }, html_url: `https://github.example/i/${issue.number}` });
  const gitlabIssue = (issue: StoredIssue) => ({
    iid: issue.number,
    title: issue.title,
    description: issue.body,
    state: issue.state === 'open' ? 'opened' : 'closed',
    author: { id: Number(issue.author) },
    web_url: `https://gitlab.example/i/${issue.number}`,
  });

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    const text = await readBody(request);
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    const body = isRecord(parsed) ? parsed : undefined;
    const method = request.method ?? '';
    const privateToken = request.headers['private-token'];
    const call: LoggedCall = { method, path: url.pathname, authorization: request.headers.authorization, privateToken: typeof privateToken === 'string' ? privateToken : undefined, ...(body ? { body } : {}) };
    stub.calls.push(call);
    const account = known.find((entry) => call.authorization === `Bearer ${entry.token}` || call.privateToken === entry.token);
    if (!account) return send(response, 401, { message: 'Bad credentials' });
    if (method !== 'GET' && url.pathname !== '/graphql' && stub.refuseWrites) return send(response, stub.refuseWrites, { message: 'Resource not accessible by integration' });
    const route = (pattern: RegExp): RegExpMatchArray | null => url.pathname.match(pattern);
    let match: RegExpMatchArray | null;

    // ---- GitHub ----
    if (url.pathname === '/graphql' && method === 'POST') return send(response, 200, { data: { viewer: { login: account.login } } });
    if (url.pathname === '/user' && method === 'GET') return send(response, 403, { message: 'Resource not accessible by integration' });
    if ((match = route(/^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/))) {
      const number = Number(match[1]);
      const issue = stub.issues.find((entry) => entry.number === number);
      if (method === 'GET') return send(response, 200, page(url, stub.comments.filter((c) => c.target === undefined || c.target === number)).map(githubComment));
      if (method === 'POST' && typeof body?.['body'] === 'string') {
        if (issue) {
          issue.notes.push(body['body']);
          return send(response, 201, { id: nextId++, body: body['body'] });
        }
        const comment: StoredComment = { id: nextId++, body: body['body'], target: number, author: account.login };
        stub.comments.push(comment);
        return send(response, 201, githubComment(comment));
      }
    }
    if ((match = route(/^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/)) && method === 'PATCH' && typeof body?.['body'] === 'string') {
      const comment = stub.comments.find((entry) => entry.id === Number(match?.[1]));
      if (!comment) return send(response, 404, { message: 'Not Found' });
      // GitHub lets a token edit only its own comments (or any, with write access): the script must choose.
      comment.body = body['body'];
      return send(response, 200, githubComment(comment));
    }
    if (route(/^\/repos\/[^/]+\/[^/]+\/issues$/)) {
      if (method === 'GET') return send(response, 200, page(url, stub.issues.filter((issue) => url.searchParams.get('state') !== 'open' || issue.state === 'open')).map(githubIssue));
      if (method === 'POST' && typeof body?.['title'] === 'string') {
        const issue: StoredIssue = { number: stub.issues.length + 1, title: body['title'], body: String(body['body'] ?? ''), state: 'open', author: account.login, notes: [] };
        stub.issues.push(issue);
        return send(response, 201, githubIssue(issue));
      }
    }
    if ((match = route(/^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)$/)) && method === 'PATCH') {
      const issue = stub.issues.find((entry) => entry.number === Number(match?.[1]));
      if (!issue) return send(response, 404, { message: 'Not Found' });
      if (typeof body?.['title'] === 'string') issue.title = body['title'];
      if (typeof body?.['body'] === 'string') issue.body = body['body'];
      if (body?.['state'] === 'closed') issue.state = 'closed';
      return send(response, 200, githubIssue(issue));
    }
    if ((match = route(/^\/repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/pulls$/)) && method === 'GET') {
      return send(response, 200, stub.pulls.filter((pull) => pull.merge_commit_sha === match?.[1] || pull.head.sha === match?.[1]).map((pull) => ({ ...pull, html_url: `https://github.example/pull/${pull.number}` })));
    }
    if (route(/^\/repos\/[^/]+\/[^/]+\/actions\/artifacts$/) && method === 'GET') {
      const named = stub.artifacts.filter((artifact) => !url.searchParams.has('name') || artifact.name === url.searchParams.get('name'));
      return send(response, 200, { total_count: named.length, artifacts: page(url, named) });
    }

    // ---- GitLab ----
    if (url.pathname === '/api/v4/user' && method === 'GET') return send(response, 200, { id: account.userId, username: account.login });
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/merge_requests\/(\d+)\/notes$/))) {
      const iid = Number(match[1]);
      if (method === 'GET') return send(response, 200, page(url, stub.comments.filter((c) => c.target === undefined || c.target === iid)).map(gitlabNote));
      if (method === 'POST' && typeof body?.['body'] === 'string') {
        const comment: StoredComment = { id: nextId++, body: body['body'], target: iid, author: String(account.userId) };
        stub.comments.push(comment);
        return send(response, 201, gitlabNote(comment));
      }
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/merge_requests\/\d+\/notes\/(\d+)$/)) && method === 'PUT' && typeof body?.['body'] === 'string') {
      const comment = stub.comments.find((entry) => entry.id === Number(match?.[1]));
      if (!comment) return send(response, 404, { message: 'Not Found' });
      comment.body = body['body'];
      return send(response, 200, gitlabNote(comment));
    }
    if (route(/^\/api\/v4\/projects\/[^/]+\/issues$/)) {
      if (method === 'GET') return send(response, 200, page(url, stub.issues.filter((issue) => url.searchParams.get('state') !== 'opened' || issue.state === 'open')).map(gitlabIssue));
      if (method === 'POST' && typeof body?.['title'] === 'string') {
        const issue: StoredIssue = { number: stub.issues.length + 1, title: body['title'], body: String(body['description'] ?? ''), state: 'open', author: String(account.userId), notes: [] };
        stub.issues.push(issue);
        return send(response, 201, gitlabIssue(issue));
      }
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/issues\/(\d+)(\/notes)?$/))) {
      const issue = stub.issues.find((entry) => entry.number === Number(match?.[1]));
      if (!issue) return send(response, 404, { message: '404 Not found' });
      if (match[2] && method === 'POST' && typeof body?.['body'] === 'string') {
        issue.notes.push(body['body']);
        return send(response, 201, { id: nextId++, body: body['body'] });
      }
      if (!match[2] && method === 'PUT') {
        if (typeof body?.['title'] === 'string') issue.title = body['title'];
        if (typeof body?.['description'] === 'string') issue.body = body['description'];
        if (body?.['state_event'] === 'close') issue.state = 'closed';
        return send(response, 200, gitlabIssue(issue));
      }
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/repository\/commits\/([0-9a-f]+)\/merge_requests$/)) && method === 'GET') {
      return send(response, 200, stub.mergeRequests.filter((request) => request.merge_commit_sha === match?.[1] || request.squash_commit_sha === match?.[1] || request.sha === match?.[1]));
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/merge_requests\/(\d+)\/pipelines$/)) && method === 'GET') {
      const iid = Number(match[1]);
      return send(response, 200, stub.pipelines.filter((pipeline) => pipeline.mergeRequest === iid).map(({ id, sha, ref }) => ({ id, sha, ref: ref ?? `refs/merge-requests/${iid}/head`, status: 'success' })));
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/pipelines\/(\d+)\/jobs$/)) && method === 'GET') {
      return send(response, 200, page(url, stub.jobs.filter((job) => job.pipeline === Number(match?.[1])).map(({ id, name, status }) => ({ id, name, status }))));
    }
    if ((match = route(/^\/api\/v4\/projects\/[^/]+\/jobs\/(\d+)\/artifacts\/(.+)$/)) && method === 'GET') {
      const file = stub.jobs.find((job) => job.id === Number(match?.[1]))?.artifacts[decodeURIComponent(match[2] ?? '')];
      if (file === undefined) return send(response, 404, { message: '404 Not Found' });
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return response.end(file);
    }
    return send(response, 404, { message: `no route ${method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  stub.url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}
