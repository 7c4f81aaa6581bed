/** `plan` output in each format, from the one (redacted) plan value. */
import type { Plan } from '../plan.js';
import { renderPlanMarkdown } from './markdown.js';
import { renderPlanText } from './text.js';

export interface PlanRenderOptions {
  color: boolean;
  /** The terminal's width, when the output is a terminal. */
  width?: number;
  /** Where the full plan is saved (`plan --out`), named by the markdown when it must cut. */
  savedTo?: string;
}

export function renderPlan(plan: Plan, format: 'text' | 'json' | 'markdown', options: PlanRenderOptions): string {
  if (format === 'json') return `${JSON.stringify(plan, null, 2)}\n`;
  if (format === 'markdown') return renderPlanMarkdown(plan, options.savedTo ? { fullPlanHint: `the saved plan file \`${options.savedTo}\`` } : {});
  return renderPlanText(plan, { color: options.color, ...(options.width ? { width: options.width } : {}) });
}
