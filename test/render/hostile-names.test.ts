/**
 * Names, titles and descriptions from the portal are untrusted. An organization whose every
 * name holds HTML, a markdown fence, an @mention and terminal escape sequences goes through
 * every renderer by the real CLI (text plan, markdown plan, drift text and markdown, graph in
 * Mermaid and DOT, apply output, the CI script's apply report): nothing reaches a terminal that
 * it would act on, nothing reaches markdown that would render as HTML, mention anyone or close
 * a fence, and the names are still there to read.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/index.js';
import { runPortalctl } from '../../scripts/action/run-portalctl.mjs';
import { CLI, REPO_ROOT, SAMPLE_ORG, startCliPortal, type CliPortal } from '../support/cli.js';

/** The red team's name: closes the markdown's <details>, runs script, opens a comment, pings, closes a fence, retitles and clears the terminal. */
const HOSTILE = '</summary></details><img src=x onerror=alert(1)><!-- @octocat\n```\n\u001b]0;owned\u0007\u001b[2J\u001b[1A\u001b[2K\u202eTRAP';

/** What a terminal acts on, or what hides or reorders text. */
// eslint-disable-next-line no-control-regex -- the test looks for control characters.
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

/** Every string field that holds a name, title or description of the sample organization, made hostile. */
function hostile(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => hostile(item, key));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hostile(v, k)]));
  if (typeof value === 'string' && key !== undefined && ['name', 'title', 'fullName', 'description'].includes(key)) return `${value} ${HOSTILE}`;
  return value;
}

/**
 * Markdown as GitHub reads it: every fence one of ours, opened and closed in turn (inside them
 * text is literal), and outside them no raw HTML, comment or mention.
 */
function expectInertMarkdown(markdown: string, { namesInProse = false } = {}): void {
  expect(markdown).not.toMatch(ACTIVE);
  const outside: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    if (fence === undefined && /^```(diff|mermaid)?$/.test(line)) fence = line;
    else if (fence !== undefined && line === '```') fence = undefined;
    else if (fence === undefined) outside.push(line);
    else expect(line.startsWith('```'), `a line inside ${fence}: ${line}`).toBe(false);
  }
  expect(fence).toBeUndefined();
  const prose = outside.join('\n');
  expect(prose).not.toContain('<img');
  expect(prose).not.toContain('<!--');
  expect(prose).not.toContain('@octocat');
  expect(prose).not.toContain('</summary></details><');
  // The names are still shown, escaped (in tables and lists; diffs show them in their fences).
  if (namesInProse) expect(prose).toContain('&lt;img src=x onerror=alert(1)&gt;');
}

function expectInertTerminal(text: string): void {
  expect(text).not.toMatch(ACTIVE);
  expect(text).toContain('\\x1b]0;owned\\x07\\x1b[2J\\x1b[1A\\x1b[2K\\u202eTRAP');
}

describe('hostile names from the portal through every renderer', () => {
  let portal: CliPortal;
  let config: string;
  const examples = join(REPO_ROOT, 'examples/full');

  beforeAll(async () => {
    const sample = parse(await readFile(SAMPLE_ORG, 'utf8')) as EmulatorState;
    portal = await startCliPortal({ data: hostile(sample) as EmulatorState });
    config = examples;
  }, 60_000);
  afterAll(async () => portal?.dispose());

  it('the text plan and the markdown plan', async () => {
    const text = await portal.run(['plan', config, '--no-color']);
    expect(text.code, text.stderr).toBe(0);
    expectInertTerminal(text.stdout);
    const markdown = await portal.run(['plan', config, '--format', 'markdown']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expectInertMarkdown(markdown.stdout, { namesInProse: true });
    expect(markdown.stdout).toContain('```mermaid');
  });

  it('the graph, in Mermaid and in DOT', async () => {
    const mermaid = await portal.run(['graph', config]);
    expect(mermaid.code, mermaid.stderr).toBe(0);
    expect(mermaid.stdout).not.toMatch(ACTIVE);
    // One statement per line, every label closed on its own line.
    for (const line of mermaid.stdout.trimEnd().split('\n').slice(1)) expect(line).toMatch(/^ {2}(op\d+\["[^"\n]*"\]:::(create|update|delete)|op\d+ --> op\d+|classDef .*|%% .*)$/);
    expect(mermaid.stdout).not.toContain('<img');
    const dot = await portal.run(['graph', config, '--format', 'dot']);
    expect(dot.code, dot.stderr).toBe(0);
    expect(dot.stdout).not.toMatch(ACTIVE);
    for (const line of dot.stdout.split('\n').filter((entry) => entry.includes('[label='))) expect(line).toMatch(/^ {2}op\d+ \[label="(?:[^"\\\n]|\\.)*", color="#[0-9a-f]{6}"\];$/);
  });

  it('the apply output, then drift in text and markdown', async () => {
    const applied = await portal.run(['apply', config, '--auto-approve', '--no-color', '--invites-dir', join(portal.dir, 'invites')]);
    expect(applied.code, applied.stderr).toBe(0);
    expectInertTerminal(applied.stdout);
    // Changed behind portalctl's back, to another hostile value: drift shows recorded and now.
    const state = await portal.state();
    for (const role of state.roles) role.description = `${HOSTILE} again`;
    await portal.replaceState(state);
    const drift = await portal.run(['drift', config, '--no-color']);
    expect(drift.code, drift.stderr).toBe(3);
    expect(drift.stdout).not.toMatch(ACTIVE);
    // Values are shown as JSON strings, whose escapes show the controls too.
    expect(drift.stdout).toContain('\\u001b[2J');
    const driftMarkdown = await portal.run(['drift', config, '--format', 'markdown']);
    expect(driftMarkdown.code).toBe(3);
    expectInertMarkdown(driftMarkdown.stdout);
  });

  it("a failed operation's portal message, in the apply output and the CI script's report", async () => {
    const state = await portal.state();
    for (const role of state.roles) role.description = 'reset by the test';
    await portal.replaceState(state);
    await portal.fault({ path: '/roles/r7HkQ2/update', error: { code: 400, message: HOSTILE }, count: 0 });
    const applied = await portal.run(['apply', config, '--auto-approve', '--no-color', '--target', 'role']);
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).not.toMatch(ACTIVE);
    expect(applied.stdout).toContain('FAILED   role[r7HkQ2]');
    const report = await runPortalctl({ command: 'apply', config, args: `--target role --portal ${portal.url} --state ${portal.statePath}`, appliedPlanFile: join(portal.dir, 'applied-plan.json') }, { ...process.env, PORTALCTL_BIN: CLI, PORTALCTL_TOKEN: 'admin-token' });
    expect(report.exitCode).toBe(1);
    expectInertMarkdown(report.markdown);
    await portal.clearFaults();
  });
});
