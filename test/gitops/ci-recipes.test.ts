/**
 * The CI recipes in examples/ci/ are valid YAML and call only commands and flags the CLI has
 * (checked against each command's own --help), so they cannot silently rot.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'dist/bin/portalctl.js');
const recipes = readdirSync(join(root, 'examples/ci')).filter((name) => name.endsWith('.yml'));

function helpOf(command: string): string {
  return spawnSync(process.execPath, [cli, command, '--help'], { encoding: 'utf8' }).stdout;
}

/** Every `portalctl ...` line of every `run:` step. */
function invocations(recipe: string): string[][] {
  const workflow = parse(readFileSync(join(root, 'examples/ci', recipe), 'utf8')) as { jobs: Record<string, { steps: { run?: string }[] }> };
  return Object.values(workflow.jobs)
    .flatMap((job) => job.steps.map((step) => step.run ?? ''))
    .flatMap((script) => script.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('portalctl '))
    .map((line) => line.split(/\s+/).filter((word) => !['>', '2>&1'].includes(word) && !word.endsWith('.md')));
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
      for (const flag of args.filter((arg) => arg.startsWith('--'))) expect(help, `${recipe}: ${command} ${flag}`).toContain(flag.split('=')[0]);
    }
  });
});
