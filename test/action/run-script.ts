/** Runs one of the CI scripts (scripts/action/*.mjs) as CI would: a child process with only the given environment. */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CLI, REPO_ROOT } from '../support/cli.js';

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment minus anything that would steer the script or the CLI. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(PORTALCTL_|VITEST|INPUT_|GITHUB_|CI_|NODE_OPTIONS$|FORCE_COLOR$)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

export function runScript(script: 'github.mjs' | 'github-reviewed-plan.mjs' | 'gitlab.mjs', env: Record<string, string>, cwd: string): Promise<ScriptResult> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/action', script)], {
    cwd,
    env: { ...cleanEnv(), PORTALCTL_BIN: CLI, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const tempDir = (prefix: string): Promise<string> => mkdtemp(join(tmpdir(), prefix));

/** GITHUB_OUTPUT / dotenv lines as a record (later lines win, as on GitHub). */
export async function readKeyValues(file: string): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) values[line.slice(0, at)] = line.slice(at + 1);
  }
  return values;
}

/** The outputs action.yml declares: a step reads only these (a composite action exposes no other). */
export async function declaredActionOutputs(): Promise<string[]> {
  return Object.keys((parse(await readFile(join(REPO_ROOT, 'action.yml'), 'utf8')) as { outputs: Record<string, unknown> }).outputs);
}
