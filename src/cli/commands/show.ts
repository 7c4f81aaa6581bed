/**
 * `portalctl show PLANFILE [--format text|markdown|json]`: a saved plan rendered later, for the
 * reviewer or auditor who opens the artifact. Reads only the file: no portal, no state.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parsePlanFile } from '../../engine/plan-file.js';
import { renderPlan, renderPlanHeading } from '../../engine/render/plan.js';
import { withFile } from '../files.js';
import type { CommandIO } from '../io.js';

export interface ShowOptions {
  format: 'text' | 'markdown' | 'json';
}

export async function showCommand(planFile: string, options: ShowOptions, io: CommandIO): Promise<number> {
  const plan = parsePlanFile(await withFile('Could not read the plan file', planFile, () => readFile(resolve(io.cwd, planFile), 'utf8')), planFile);
  // Saved plans are already redacted (plan-file.ts): shown as they are.
  if (options.format === 'text') io.stdout(renderPlanHeading(plan));
  io.stdout(renderPlan(plan, options.format, { color: io.color, ...(io.width ? { width: io.width } : {}), savedTo: planFile }));
  return 0;
}
