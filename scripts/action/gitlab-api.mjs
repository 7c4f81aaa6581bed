// The GitLab REST API v4 calls the CI template makes (https://docs.gitlab.com/api/): notes,
// issues, the merge request of a commit, its pipelines, a job's artifact file.
import { allPages, once, requestJson } from './comment.mjs';

export function gitlabApi(env = process.env) {
  const base = `${String(env.CI_API_V4_URL ?? '').replace(/\/$/, '')}`;
  const project = `${base}/projects/${encodeURIComponent(env.CI_PROJECT_ID ?? '')}`;
  // CI_JOB_TOKEN may not write notes or issues: a project or group access token with the api scope.
  const headers = { 'private-token': env.PORTALCTL_GITLAB_TOKEN };
  const get = (url) => requestJson(url, { headers });
  const send = (method, url, body) => requestJson(url, { method, headers, body });

  /** The token's own account (GET /user answers for a project access token's bot user too). */
  const identity = once(async () => {
    try {
      const user = await get(`${base}/user`);
      if (user?.id !== undefined) return String(user.id);
      throw new Error('GET /user answered without an id');
    } catch (error) {
      throw new Error(`could not tell which account the token belongs to (${error.message}), so no note was edited`);
    }
  });

  const authored = (entry) => ({ id: entry.id, iid: entry.iid, body: entry.body ?? entry.description, author: entry.author?.id === undefined ? undefined : String(entry.author.id), url: entry.web_url });

  return {
    identity,
    /** The notes of one merge request. */
    mergeRequestNotes(iid) {
      const notes = `${project}/merge_requests/${iid}/notes`;
      return {
        identity,
        list: async () => (await allPages((page) => get(`${notes}?per_page=100&page=${page}&sort=asc`))).map(authored),
        create: (body) => send('POST', notes, { body }),
        update: (id, body) => send('PUT', `${notes}/${id}`, { body }),
      };
    },
    /** Open issues, for the drift issue (ids are the project's issue iids). */
    issues: {
      listOpen: async () =>
        (await allPages((page) => get(`${project}/issues?state=opened&per_page=100&page=${page}`))).map((issue) => ({ ...authored(issue), id: issue.iid })),
      create: async ({ title, body }) => {
        const issue = await send('POST', `${project}/issues`, { title, description: body });
        return { id: issue.iid, url: issue.web_url };
      },
      update: (iid, { title, body }) => send('PUT', `${project}/issues/${iid}`, { title, description: body }),
      close: async (iid, note) => {
        await send('POST', `${project}/issues/${iid}/notes`, { body: note });
        await send('PUT', `${project}/issues/${iid}`, { state_event: 'close' });
      },
    },
    /** The merge request merged as `sha`: the merged one whose merge (or squash) commit it is, else the first merged. */
    async mergedMergeRequest(sha) {
      const requests = (await get(`${project}/repository/commits/${sha}/merge_requests`)) ?? [];
      const merged = requests.filter((request) => request.state === 'merged');
      const request = merged.find((entry) => entry.merge_commit_sha === sha || entry.squash_commit_sha === sha) ?? merged[0];
      return request ? { iid: request.iid, headSha: request.sha, url: request.web_url } : undefined;
    },
    /**
     * The pipelines of merge request `iid` that ran for its last commit `headSha`, newest first:
     * those that ran on that commit itself, and merged-results pipelines (ref
     * `refs/merge-requests/<iid>/merge`, whose commit is GitLab's merge of the source and target
     * branches: which source they merged is known only from what the plan job recorded).
     */
    async mergeRequestPipelines(iid, headSha) {
      const pipelines = (await get(`${project}/merge_requests/${iid}/pipelines?per_page=100`)) ?? [];
      return pipelines
        .filter((entry) => entry.sha === headSha || entry.ref === `refs/merge-requests/${iid}/merge`)
        .map((entry) => ({ id: entry.id, mergedResults: entry.sha !== headSha }))
        .sort((a, b) => b.id - a.id);
    },
    /** The file `path` from the artifacts of the newest successful job `jobName` of pipeline `pipelineId`, and that job; `{ missing }` saying why when there is none. */
    async pipelineArtifact(pipelineId, jobName, path) {
      const jobs = await allPages((page) => get(`${project}/pipelines/${pipelineId}/jobs?per_page=100&page=${page}`));
      const job = jobs.filter((entry) => entry.name === jobName && entry.status === 'success').sort((a, b) => b.id - a.id)[0];
      if (!job) return { missing: `pipeline ${pipelineId} has no successful ${jobName} job` };
      const response = await fetch(`${project}/jobs/${job.id}/artifacts/${path.split('/').map(encodeURIComponent).join('/')}`, { headers });
      if (!response.ok) return { missing: `job ${job.id} (${jobName}) of pipeline ${pipelineId} has no artifact ${path} (HTTP ${response.status})` };
      return { text: await response.text(), job: job.id };
    },
  };
}
