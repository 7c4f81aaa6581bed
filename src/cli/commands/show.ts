/**
 * `portalctl show PLANFILE [--format text|markdown|json]`: a saved plan rendered later, for the
 * reviewer or auditor who opens the artifact. Reads only the file: no portal, no state.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseSavedPlans } from '../../engine/plan/saved-plan.js';
import { fleetMarkdownTitle, fleetSectionMarkdown } from '../../engine/render/fleet.js';
import { renderPlan, renderPlanHeading } from '../../engine/render/plan-output.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';
import { UsageError } from '../../core/errors.js';
import { plannedEnvironments, requestedEnvironments, type EnvironmentOptions } from '../environments.js';

export interface ShowOptions extends EnvironmentOptions {
  format: 'text' | 'markdown' | 'json';
}

export async function showCommand(planFile: string, options: ShowOptions, io: CommandIO): Promise<number> {
  const text = await withFile('Could not read the plan file', planFile, () => readFile(resolve(io.cwd, planFile), 'utf8'));
  const saved = parseSavedPlans(text, planFile);
  const request = requestedEnvironments(options, io.env);
  // The plans of several environments (`plan --env a,b --out FILE`): each under its environment's name, those --env names.
  if ('fleet' in saved) {
    const names = plannedEnvironments(saved.fleet, request);
    const fleet = { ...saved.fleet, fleet: names.flatMap((name) => saved.fleet.fleet.filter((entry) => entry.environment === name)) };
    if (options.format === 'json') {
      io.stdout(`${JSON.stringify(fleet, null, 2)}\n`);
      return 0;
    }
    const render = { color: io.color, ...(io.width ? { width: io.width } : {}), savedTo: planFile };
    if (options.format === 'markdown') {
      // As `plan --all-envs --format markdown` nests them: each plan's headings under its environment's.
      const sections = fleet.fleet.map((entry) =>
        fleetSectionMarkdown(entry.environment, entry.plan?.portal.url, entry.plan ? renderPlan(entry.plan, 'markdown', render) : `No plan: ${entry.error ?? entry.outcome}.`).join('\n'),
      );
      io.stdout(`${[fleetMarkdownTitle('plan', fleet.fleet.length), ...sections].join('\n\n')}\n`);
      return 0;
    }
    for (const entry of fleet.fleet) {
      io.stdout(`=== ${entry.environment} ===\n`);
      if (!entry.plan) {
        io.stdout(`No plan: ${entry.error ?? entry.outcome}.\n\n`);
        continue;
      }
      io.stdout(renderPlanHeading(entry.plan));
      io.stdout(`${renderPlan(entry.plan, 'text', render)}\n`);
    }
    return 0;
  }
  const { plan } = saved;
  if (request.kind === 'names' && (request.names.length > 1 || request.names[0] !== plan.environment)) {
    throw new UsageError(`${planFile} holds the plan of ${plan.environment === undefined ? 'a config without environments' : `environment ${plan.environment}`} alone, not of ${request.names.join(', ')}.`);
  }
  // Saved plans are already redacted (plan/saved-plan.ts): shown as they are.
  if (options.format === 'text') io.stdout(renderPlanHeading(plan));
  io.stdout(renderPlan(plan, options.format, { color: io.color, ...(io.width ? { width: io.width } : {}), savedTo: planFile }));
  return 0;
}
