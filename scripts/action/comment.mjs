// Shared by the GitHub Action and the GitLab template: one comment per (command, config) on a
// pull or merge request, and one drift issue per (config, state), each found by a hidden marker
// AND by its author (the token's own account) and edited in place, never a new one per run.

/** Both forges refuse bodies past 65,536 characters; the markdown plan keeps under the same cap. */
export const COMMENT_LIMIT = 60_000;

/** The hidden line that identifies our comment among the others. */
export function commentMarker(id) {
  return `<!-- portalctl-comment: ${String(id).replace(/--+/g, '-').replace(/>/g, '')} -->`;
}

/** The hidden line that identifies the drift issue of one config and state. */
export function issueMarker(id) {
  return `<!-- portalctl-drift-issue: ${String(id).replace(/--+/g, '-').replace(/>/g, '')} -->`;
}

/**
 * The comment body: the marker, then the markdown, cut at whole lines (never half a table row)
 * with a note when it would pass `limit`. A fenced block left open by the cut is closed.
 */
export function commentBody(marker, markdown, { limit = COMMENT_LIMIT, hint = 'the job log' } = {}) {
  const full = `${marker}\n${markdown.trimEnd()}\n`;
  if (full.length <= limit) return full;
  const note = `\n\n---\n✂️ **Truncated** to stay under ${limit} characters. Full output: ${hint}.\n`;
  const budget = limit - note.length - 16;
  const kept = [];
  let length = 0;
  let fenceOpen = false;
  for (const line of full.split('\n')) {
    if (length + line.length + 1 > budget) break;
    kept.push(line);
    length += line.length + 1;
    if (line.startsWith('```')) fenceOpen = !fenceOpen;
  }
  if (fenceOpen) kept.push('```');
  return `${kept.join('\n')}${note}`;
}

/** fetch with a JSON body and answer; an HTTP error names the method, path and status, never the token. */
export async function requestJson(url, { method = 'GET', headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) {
    const path = new URL(url).pathname;
    throw new Error(`${method} ${path} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return text ? JSON.parse(text) : undefined;
}

/**
 * The comments (or issues) carrying `marker` that the token's own account wrote. Anyone taking
 * part can post a comment holding the marker; editing it would put our report (and later "No
 * changes") into their comment, so only our own count.
 */
async function ownWithMarker(items, forge, marker) {
  const me = await forge.identity();
  return items.filter((item) => item.author === me && typeof item.body === 'string' && item.body.includes(marker));
}

/**
 * Creates or updates the one comment carrying `marker` written by the token's own account.
 * `forge` knows the endpoints: identity() -> the account's id, list() -> [{ id, body, author }],
 * create(body), update(id, body). Returns what was done.
 */
export async function upsertComment(forge, marker, body) {
  const [existing] = await ownWithMarker(await forge.list(), forge, marker);
  if (existing) {
    await forge.update(existing.id, body);
    return { action: 'updated', id: existing.id };
  }
  const created = await forge.create(body);
  return { action: 'created', id: created?.id };
}

/**
 * What tells one drift issue apart: the config, the state name and the environments (`env` as
 * given: one name, `a,b` or `all`), so that two environments of one config never share an issue.
 */
export function driftIssueId({ config, stateName = '', env = '' }) {
  return `${config}${stateName ? `:${stateName}` : ''}${env ? `:${env}` : ''}`;
}

/** The drift issue's title: the portal's name (one portal), else the config and its environments. */
export function driftIssueTitle({ config, stateName = '', env = '' }, portal) {
  const where = portal?.name || portal?.url || config;
  const environments = env && !portal ? ` (environments: ${env})` : '';
  return `Portal drift: ${where}${stateName ? ` (${stateName})` : ''}${environments}`;
}

/**
 * Keeps ONE open issue per marker: opened on the first drift, updated in place while the drift
 * lasts, closed (with a note) once it is gone. `forge.issues` knows the endpoints: listOpen() ->
 * [{ id, body, author, url }], create({ title, body }), update(id, { title, body }),
 * close(id, note). `drift` false with no open issue does nothing. Returns what was done.
 */
export async function syncDriftIssue(forge, marker, { drift, title, body, closingNote }) {
  const [existing] = await ownWithMarker(await forge.issues.listOpen(), forge, marker);
  if (drift) {
    if (existing) {
      await forge.issues.update(existing.id, { title, body });
      return { action: 'updated', id: existing.id, url: existing.url };
    }
    const created = await forge.issues.create({ title, body });
    return { action: 'opened', id: created.id, url: created.url };
  }
  if (!existing) return { action: 'none' };
  await forge.issues.close(existing.id, closingNote);
  return { action: 'closed', id: existing.id, url: existing.url };
}

/** Every page of a paginated list (`?per_page=100&page=N`), until a short page. */
export async function allPages(fetchPage) {
  const all = [];
  for (let page = 1; page <= 100; page++) {
    const items = await fetchPage(page);
    if (!Array.isArray(items)) break;
    all.push(...items);
    if (items.length < 100) break;
  }
  return all;
}

/** Remembers the first answer of `ask` (the token's account is asked once per run). */
export function once(ask) {
  let answer;
  return () => (answer ??= ask());
}
