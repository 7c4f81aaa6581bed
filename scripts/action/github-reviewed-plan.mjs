#!/usr/bin/env node
// The GitHub Action's first step of `command: apply` (action.yml): finds the plan that was
// reviewed for what is being applied, for `actions/download-artifact` to fetch and the apply
// step to apply unchanged (`apply --plan`). From the merge commit (GITHUB_SHA) to its merged
// pull request, then to the plan artifact its plan job saved for the pull request's last commit.
// Writes to GITHUB_OUTPUT: pr-number, run-id and artifact when found; otherwise missing (why).
// Plain Node, no dependencies.
import { appendFile } from 'node:fs/promises';
import { githubApi, planArtifactName } from './github-api.mjs';

const env = process.env;
const input = (name, fallback = '') => (env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback).trim();

async function writeOutputs(values) {
  const lines = Object.entries(values).map(([key, value]) => `${key}=${String(value).replace(/[\r\n]+/g, ' ')}\n`).join('');
  if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, lines);
}

async function find() {
  const api = githubApi(env);
  const sha = env.GITHUB_SHA;
  if (!sha) return { missing: 'no commit to look up (GITHUB_SHA is not set)' };
  const pull = input('pr-number') ? { number: Number(input('pr-number')) } : await api.mergedPullRequest(sha);
  if (!pull) return { missing: `commit ${sha.slice(0, 12)} is not the merge of a pull request, so no plan was reviewed for it` };
  const artifact = planArtifactName({ base: input('plan-artifact'), stateName: input('state-name'), env: input('env'), number: pull.number });
  const candidates = await api.artifactsNamed(artifact);
  // The plan of the pull request's last commit: a plan of an earlier push was not the last one reviewed.
  const saved = pull.headSha ? candidates.find((entry) => entry.workflow_run?.head_sha === pull.headSha) : candidates[0];
  if (!saved) {
    const which = pull.headSha ? `its last commit ${pull.headSha.slice(0, 12)}` : 'it';
    return { number: pull.number, missing: `no plan was saved for pull request #${pull.number} (${which}; artifact ${artifact})` };
  }
  return { number: pull.number, runId: saved.workflow_run?.id, artifact };
}

try {
  const found = await find();
  await writeOutputs({
    ...(found.number ? { 'pr-number': found.number } : {}),
    ...(found.runId ? { 'run-id': found.runId, artifact: found.artifact } : {}),
    ...(found.missing ? { missing: found.missing } : {}),
  });
  process.stdout.write(found.missing ? `portalctl: no reviewed plan: ${found.missing}.\n` : `portalctl: the reviewed plan of pull request #${found.number} is artifact ${found.artifact} of run ${found.runId}.\n`);
} catch (error) {
  // Not found is said and handled by the apply step (nothing applied); an API failure too.
  await writeOutputs({ missing: `the reviewed plan could not be looked up (${error.message})` });
  process.stdout.write(`::warning::portalctl: the reviewed plan could not be looked up: ${error.message}\n`);
}
