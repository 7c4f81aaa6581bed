/**
 * `portalctl show PLANFILE [--format text|markdown|json]`: a saved plan rendered later, for the
 * reviewer or auditor who opens the artifact. Reads only the file: no portal, no state.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseSavedPlans } from '../../engine/plan/saved-plan.js';
import { renderPlan, renderPlanHeading } from '../../engine/render/plan-output.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';

export interface ShowOptions {
  format: 'text' | 'markdown' | 'json';
}

export async function showCommand(planFile: string, options: ShowOptions, io: CommandIO): Promise<number> {
  const text = await withFile('Could not read the plan file', planFile, () => readFile(resolve(io.cwd, planFile), 'utf8'));
  const saved = parseSavedPlans(text, planFile);
  // The plans of several environments (`plan --env a,b --out FILE`): each under its environment's name.
  if ('fleet' in saved) {
    const { fleet } = saved;
    if (options.format === 'json') {
      io.stdout(`${JSON.stringify(fleet, null, 2)}\n`);
      return 0;
    }
    for (const entry of fleet.fleet) {
      io.stdout(options.format === 'markdown' ? `#### ${entry.environment}\n\n` : `=== ${entry.environment} ===\n`);
      if (!entry.plan) {
        io.stdout(`No plan: ${entry.error ?? entry.outcome}.\n\n`);
        continue;
      }
      if (options.format === 'text') io.stdout(renderPlanHeading(entry.plan));
      io.stdout(`${renderPlan(entry.plan, options.format, { color: io.color, ...(io.width ? { width: io.width } : {}), savedTo: planFile })}\n`);
    }
    return 0;
  }
  const { plan } = saved;
  // Saved plans are already redacted (plan/saved-plan.ts): shown as they are.
  if (options.format === 'text') io.stdout(renderPlanHeading(plan));
  io.stdout(renderPlan(plan, options.format, { color: io.color, ...(io.width ? { width: io.width } : {}), savedTo: planFile }));
  return 0;
}
