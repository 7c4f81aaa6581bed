/** `plan` output in each format, from the one (redacted) plan value. */
import type { Plan } from '../plan/plan.js';
import { renderPlanMarkdown } from './markdown.js';
import { portalText, renderPlanText } from './text.js';

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

/** The heading of a saved plan shown as text (`portalctl show`): when, for which portal and state, from what. */
export function renderPlanHeading(plan: Plan): string {
  const state = plan.state ? `serial ${plan.state.serial} of lineage ${plan.state.lineage}` : 'no recorded state';
  const lines = [`Saved plan of ${plan.createdAt} for ${portalText(plan.portal)}, made against ${state}${plan.refreshed ? '' : ' (not reading the portal)'}.`];
  if (plan.about) lines.push(`${plan.about.environment ? `Environment: ${plan.about.environment}; state` : 'State'}: ${plan.about.state}; config: ${plan.about.config.join(' ')}; portalctl ${plan.about.portalctl}.`);
  return `${lines.join('\n')}\n\n`;
}
