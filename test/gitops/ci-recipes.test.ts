/**
 * The CI recipes in examples/ci/ are valid YAML and call only commands and flags the CLI has
 * (checked against each command's own --help), so they cannot silently rot. A step that uses
 * the repository's action counts as the portalctl commands the action's script runs for it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { commandArgs, outputArgs } from '../../scripts/action/run-portalctl.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'dist/bin/portalctl.js');
const recipes = readdirSync(join(root, 'examples/ci')).filter((name) => name.endsWith('.yml'));
const actionInputs = Object.keys((parse(readFileSync(join(root, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> }).inputs);

function helpOf(command: string): string {
  return spawnSync(process.execPath, [cli, command, '--help'], { encoding: 'utf8' }).stdout;
}

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
type Workflow = { jobs: Record<string, { steps: Step[]; services?: unknown }> };

const workflowOf = (recipe: string): Workflow => parse(readFileSync(join(root, 'examples/ci', recipe), 'utf8')) as Workflow;
const isPortalctlAction = (step: Step): boolean => /^(portalctl\/portalctl@|\.\/?$)/.test(step.uses ?? '');

/** Every `portalctl ...` line of every `run:` step, and every command line the action runs. */
function invocations(recipe: string): string[][] {
  const steps = Object.values(workflowOf(recipe).jobs).flatMap((job) => job.steps);
  const fromRun = steps
    .map((step) => step.run ?? '')
    .flatMap((script) => script.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('portalctl '))
    .map((line) => line.split(/\s+/).filter((word) => !['>', '2>&1'].includes(word) && !word.endsWith('.md')));
  const fromAction = steps.filter(isPortalctlAction).flatMap((step) => {
    const inputs = step.with ?? {};
    // An apply of the reviewed plan runs `apply --plan`.
    const reviewedPlan = inputs['command'] === 'apply' && inputs['reviewed-plan'] !== 'false' ? 'portalctl-plan.json' : '';
    const base = commandArgs({ command: inputs['command'] ?? 'plan', config: inputs['config'] ?? '.', state: inputs['state'] ?? '', stateName: inputs['state-name'] ?? '', args: inputs['args'] ?? '', reviewedPlan }) as string[];
    return (outputArgs(base[0]) as string[][]).map((output) => ['portalctl', ...base, ...output]);
  });
  return [...fromRun, ...fromAction];
}

describe('CI recipes', () => {
  it('are there: a pull-request plan, a merge apply and a nightly drift', () => {
    expect(recipes.sort()).toEqual(['merge-apply.yml', 'nightly-drift.yml', 'pull-request-plan.yml']);
  });

  it.each(recipes)('%s uses only commands and flags portalctl has', (recipe) => {
    const calls = invocations(recipe);
    expect(calls.length).toBeGreaterThan(0);
    for (const [, command, ...args] of calls) {
      const help = helpOf(command as string);
      expect(help, `portalctl ${command}`).toContain(`Usage: portalctl ${command}`);
      for (const flag of args.filter((arg) => arg.startsWith('--'))) {
        expect(help, `${recipe}: ${command} ${flag}`).toContain(flag.split('=')[0]);
      }
    }
  });

  it.each(recipes)('%s uses the action with inputs it declares, and PostgreSQL state, never a Git branch', (recipe) => {
    const text = readFileSync(join(root, 'examples/ci', recipe), 'utf8');
    const steps = Object.values(workflowOf(recipe).jobs).flatMap((job) => job.steps);
    const uses = steps.filter(isPortalctlAction);
    expect(uses.length).toBeGreaterThan(0);
    for (const step of uses) {
      for (const input of Object.keys(step.with ?? {})) expect(actionInputs, `${recipe}: input ${input}`).toContain(input);
      const state = step.with?.['state'] ?? step.env?.['PORTALCTL_STATE'] ?? '';
      expect(state, `${recipe}: the state`).toMatch(/^(postgres(ql)?:\/\/|\$\{\{ secrets\.)/);
      expect(step.with?.['state-name'], `${recipe}: a state name`).toBeTruthy();
    }
    expect(text).not.toMatch(/portalctl-state|git push|state\.json/);
  });
});
