// The GitHub REST (and one GraphQL) calls the action makes, as small functions over fetch.
// Endpoints: https://docs.github.com/rest (issues, issue comments, commits, actions artifacts).
import { allPages, once, requestJson } from './comment.mjs';

/** A bot's login reads `name[bot]` in REST answers and `name` in GraphQL authors: compared without it. */
const loginKey = (login) => String(login ?? '').replace(/\[bot\]$/, '').toLowerCase();

export function githubApi(env = process.env) {
  const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/$/, '');
  const graphqlUrl = env.GITHUB_GRAPHQL_URL || `${api}/graphql`;
  const repo = env.GITHUB_REPOSITORY;
  const headers = { authorization: `Bearer ${env.GITHUB_TOKEN}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'portalctl-action' };
  const get = (path) => requestJson(`${api}${path}`, { headers });
  const send = (method, path, body) => requestJson(`${api}${path}`, { method, headers, body });

  /**
   * The token's own account. The workflow token (GITHUB_TOKEN) may not call GET /user ("Resource
   * not accessible by integration"), but GraphQL's `viewer` answers for it (`github-actions[bot]`),
   * as it does for personal and app tokens; GET /user is the fallback.
   */
  const identity = once(async () => {
    const failures = [];
    try {
      const answer = await requestJson(graphqlUrl, { method: 'POST', headers, body: { query: 'query { viewer { login } }' } });
      if (answer?.data?.viewer?.login) return loginKey(answer.data.viewer.login);
      failures.push(`GraphQL viewer: ${JSON.stringify(answer?.errors ?? answer).slice(0, 200)}`);
    } catch (error) {
      failures.push(error.message);
    }
    try {
      const user = await get('/user');
      if (user?.login) return loginKey(user.login);
    } catch (error) {
      failures.push(error.message);
    }
    throw new Error(`could not tell which account the token belongs to (${failures.join('; ')}), so no comment was edited`);
  });

  const comment = (entry) => ({ id: entry.id, body: entry.body, author: loginKey(entry.user?.login), url: entry.html_url });

  return {
    identity,
    /** The comments of one pull request (an issue, to the API). */
    issueComments(number) {
      return {
        identity,
        list: async () => (await allPages((page) => get(`/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`))).map(comment),
        create: (body) => send('POST', `/repos/${repo}/issues/${number}/comments`, { body }),
        update: (id, body) => send('PATCH', `/repos/${repo}/issues/comments/${id}`, { body }),
      };
    },
    /** Open issues (pull requests left out), for the drift issue. */
    issues: {
      listOpen: async () =>
        (await allPages((page) => get(`/repos/${repo}/issues?state=open&per_page=100&page=${page}`)))
          .filter((issue) => !issue.pull_request)
          .map((issue) => ({ id: issue.number, body: issue.body, author: loginKey(issue.user?.login), url: issue.html_url })),
      create: async ({ title, body }) => {
        const issue = await send('POST', `/repos/${repo}/issues`, { title, body });
        return { id: issue.number, url: issue.html_url };
      },
      update: (number, { title, body }) => send('PATCH', `/repos/${repo}/issues/${number}`, { title, body }),
      close: async (number, note) => {
        await send('POST', `/repos/${repo}/issues/${number}/comments`, { body: note });
        await send('PATCH', `/repos/${repo}/issues/${number}`, { state: 'closed', state_reason: 'completed' });
      },
    },
    /**
     * The pull request merged as `sha` (GET /repos/{repo}/commits/{sha}/pulls lists the pull
     * requests a commit belongs to): the merged one whose merge commit it is, else the first merged.
     */
    async mergedPullRequest(sha) {
      const pulls = (await get(`/repos/${repo}/commits/${sha}/pulls?per_page=100`)) ?? [];
      const merged = pulls.filter((pull) => pull.merged_at);
      const pull = merged.find((entry) => entry.merge_commit_sha === sha) ?? merged[0];
      return pull ? { number: pull.number, headSha: pull.head?.sha, url: pull.html_url } : undefined;
    },
    /** Unexpired artifacts of the repository with this exact name, newest first. */
    async artifactsNamed(name) {
      const pages = await allPages(async (page) => (await get(`/repos/${repo}/actions/artifacts?name=${encodeURIComponent(name)}&per_page=100&page=${page}`))?.artifacts);
      return pages.filter((artifact) => artifact.name === name && !artifact.expired).sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
    },
  };
}

/**
 * The artifact that carries a pull request's saved plan from the plan job to the apply job:
 * `<base>-pr<number>`, base `portalctl-plan[-<state-name>][-<env>]` unless given: two plan jobs
 * of one pull request that differ only in their environment(s) must not save under one name. Artifact names may not
 * hold `/ \ : < > | * ? "` or line breaks.
 */
export function planArtifactName({ base = '', stateName = '', env = '', number }) {
  const name = base || ['portalctl-plan', stateName, env].filter(Boolean).join('-');
  return `${name}-pr${number}`.replace(/[^A-Za-z0-9._-]+/g, '-');
}
