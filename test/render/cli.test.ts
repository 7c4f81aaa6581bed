/**
 * The renderings through the real CLI against the emulator: `drift --format markdown` with drift
 * and pending side by side, `portalctl graph`, and colour only on a terminal (a pseudo-terminal
 * from script(1)) unless --no-color or NO_COLOR.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wantsColor } from '../../src/cli/io.js';
import { CLI, POLICY_AND_ROLE, startCliPortal, type CliPortal } from '../support/cli.js';
import { screenLines } from '../support/terminal.js';

const CONFIG = POLICY_AND_ROLE;

let portal: CliPortal;
let config: string;

beforeEach(async () => {
  portal = await startCliPortal();
  config = await portal.writeConfig(CONFIG);
  expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
});

afterEach(async () => portal.dispose());

describe('drift --format markdown', () => {
  it('shows drift and pending changes side by side, per kind, and writes nothing', async () => {
    const state = await portal.state();
    const role = state.roles.find((r) => r.id === 'r7HkQ2');
    if (role) role.description = 'Changed in the portal by hand';
    await portal.replaceState(state);
    await writeFile(join(config, 'portalctl.yaml'), CONFIG.replace('minLength: 12', 'minLength: 14'));
    await portal.clearRequests();

    const result = await portal.run(['drift', config, '--format', 'markdown']);
    expect(result.code).toBe(3);
    const md = result.stdout;
    expect(md).toContain('**Drift: 1 object changed outside portalctl; pending: 2 operations the configuration asks for.**');
    expect(md).toContain('| kind | drift (changed in the portal) | pending (configuration ahead) |\n|---|---|---|\n| organization.securityPolicy | 0 | 1 |\n| role | 1 | 1 |');
    expect(md).toContain('<details><summary><b>role</b>: 1 changed outside portalctl</summary>');
    expect(md).toContain('! role[r7HkQ2]  (recorded -> now)\n-   description: recorded "Edits field data"\n+   description: now "Changed in the portal by hand"');
    expect(md).toContain('<details><summary><b>organization.securityPolicy</b>: 1 to update</summary>');
    expect(md).toContain('-   minLength: 12\n+   minLength: 14');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });
});

describe('portalctl graph', () => {
  it('prints the dependencies of the plan as Mermaid or DOT, and rejects another format', async () => {
    await writeFile(join(config, 'portalctl.yaml'), CONFIG.replace('Edits field data', 'Edits and checks field data'));
    // Nothing depends on anything: the operation drawn alone (a pipe into a renderer takes it), why no arrows on stderr.
    const mermaid = await portal.run(['graph', config]);
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout.startsWith('flowchart LR\n')).toBe(true);
    expect(mermaid.stdout).toContain('  op1["~ role[r7HkQ2] — Field Analyst"]:::update\n');
    expect(mermaid.stdout).not.toContain('-->');
    expect(mermaid.stderr).toBe("No operation depends on another: the plan's 1 operation can run in any order, so the graph draws it without arrows.\n");
    const dot = await portal.run(['graph', config, '--format', 'dot']);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toBe('digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname="Helvetica"];\n  op1 [label="~ role[r7HkQ2] — Field Analyst", color="#9a6700"];\n}\n');
    expect(dot.stderr).toBe(mermaid.stderr);
    const wrong = await portal.run(['graph', config, '--format', 'svg']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/argument 'svg' is invalid.*mermaid, dot/);
  });
});

describe('colour', () => {
  it('is used on a terminal only, and never with --no-color or NO_COLOR', () => {
    expect(wantsColor(true, undefined, {})).toBe(true);
    expect(wantsColor(false, undefined, {})).toBe(false);
    expect(wantsColor(true, false, {})).toBe(false);
    expect(wantsColor(true, undefined, { NO_COLOR: '1' })).toBe(false);
  });

  const onTerminal = async (extraArgs: string[], env: Record<string, string> = {}): Promise<string> => {
    const command = [process.execPath, CLI, 'plan', config, '--portal', portal.url, '--state', portal.statePath, ...extraArgs].map((arg) => `'${arg}'`).join(' ');
    const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'] ?? '', PORTALCTL_TOKEN: 'admin-token', TERM: 'xterm', ...env },
    });
    return stdout;
  };

  it('colours the plan on a terminal; --no-color and NO_COLOR give the same text without it', async () => {
    await writeFile(join(config, 'portalctl.yaml'), CONFIG.replace('minLength: 12', 'minLength: 14'));
    const coloured = await onTerminal([]);
    expect(coloured).toContain('\x1b[33m~\x1b[39m organization.securityPolicy');
    // What stays on the screen (the progress line is rewritten in place, then cleared).
    const screen = (output: string): string => screenLines(output).join('\n');
    const plain = await onTerminal(['--no-color']);
    expect(plain).toContain('  ~ organization.securityPolicy');
    // eslint-disable-next-line no-control-regex -- escape sequences are what is checked here
    expect(plain).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(screen(await onTerminal([], { NO_COLOR: '1' }))).toBe(screen(plain));
    // screenLines drops every escape sequence: the coloured screen reads as the plain one.
    expect(screen(coloured)).toBe(screen(plain));
  });
});
