/**
 * `drift` output. Drift (recorded versus live: changed outside portalctl) is reported apart
 * from pending changes (desired versus live: Git is ahead); in markdown side by side, per kind.
 */
import { counted } from '../../core/words.js';
import type { Plan } from '../plan/plan.js';
import { unrecordedPerformed } from '../plan/unknown-outcomes.js';
import { MARKDOWN_LIMIT, aboutLine, driftSections, driftTable, fitted, graphSection, operationSections } from './markdown.js';
import { painter } from './style.js';
import { SYMBOL, driftTextLines, nameOf, textLines, valueStyle, type TextOptions } from './text.js';
import { valueLines } from './diff.js';
import { markdownCode, markdownMessage, markdownText, terminalText } from './escape.js';
import { MARK_TONE } from './style.js';

export type DriftStatus = 'inSync' | 'pending' | 'drift';

/**
 * Writes whose answer was lost and which the portal shows performed: the state does not hold
 * them yet, and `apply` records them (an invitation's file recovered) without sending anything.
 */
/** Drift wins over pending changes; an unrecorded outcome is pending work for apply too. */
export function driftStatus(plan: Plan): DriftStatus {
  return plan.drift.length ? 'drift' : plan.operations.length || unrecordedPerformed(plan).length ? 'pending' : 'inSync';
}

function unrecordedHeading(plan: Plan): string {
  const count = unrecordedPerformed(plan).length;
  return `Not recorded yet: ${counted(count, 'operation')} whose answer was lost, which the portal shows performed; \`portalctl apply\` records ${count === 1 ? 'it' : 'them'} without sending ${count === 1 ? 'it' : 'them'} again.`;
}

const IN_SYNC = 'In sync: the portal matches the configuration and the recorded state.';
/** Without a recorded state there is nothing to compare the portal with: drift is not "0 objects". */
const NO_STATE =
  'Drift cannot be judged: there is no recorded state yet. A first `portalctl apply` (or `portalctl apply --refresh-only`, which records what the portal has now without changing it) starts it.';
const MATCHES_NO_STATE = 'The portal matches the configuration.';

function renderDriftText(plan: Plan, hasRecordedState: boolean, options: TextOptions): string {
  const paint = painter(options.color);
  const style = valueStyle(plan, options.width);
  const lines: string[] = [];
  if (!hasRecordedState) {
    lines.push(NO_STATE);
    if (plan.operations.length === 0) lines.push(MATCHES_NO_STATE);
  } else if (driftStatus(plan) === 'inSync') {
    lines.push(IN_SYNC);
  } else {
    lines.push(`Drift: ${counted(plan.drift.length, 'object')} changed outside portalctl since the last apply.`);
    lines.push(...driftTextLines(plan, paint, style));
  }
  if (plan.operations.length) {
    lines.push('', `Pending: ${counted(plan.operations.length, 'operation')} the configuration asks for.`);
    for (const op of plan.operations) {
      lines.push(`  ${paint(MARK_TONE[SYMBOL[op.action]] ?? 'bold', SYMBOL[op.action])} ${terminalText(nameOf(op))}`);
      lines.push(...textLines(valueLines(op.before, op.after, style), paint, '    '));
    }
  }
  const unrecorded = unrecordedPerformed(plan);
  if (unrecorded.length) {
    lines.push('', unrecordedHeading(plan), ...unrecorded.map((warning) => `  ${paint('yellow', '!')} ${terminalText(`${warning.address}: ${warning.message}`)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** Drift and pending changes side by side: a table per kind, then each in its own sections. */
function renderDriftMarkdown(plan: Plan, hasRecordedState: boolean, maxLength: number): string {
  const style = valueStyle(plan);
  const status = driftStatus(plan);
  const head = ['### portalctl drift', ''];
  if (!hasRecordedState) head.push(`**${NO_STATE}**`, '', plan.operations.length ? `Pending: ${counted(plan.operations.length, 'operation')} the configuration asks for.` : MATCHES_NO_STATE);
  else if (status === 'inSync') head.push(`**${IN_SYNC}**`);
  else head.push(`**Drift: ${counted(plan.drift.length, 'object')} changed outside portalctl; pending: ${counted(plan.operations.length, 'operation')} the configuration asks for.**`);
  head.push('', aboutLine(plan));
  const body: string[] = [];
  if (status !== 'inSync' && hasRecordedState) {
    const kinds = [...new Set([...plan.drift.map((d) => d.kind), ...plan.operations.map((op) => op.kind)])].sort();
    body.push('', '| kind | drift (changed in the portal) | pending (configuration ahead) |', '|---|---|---|');
    for (const kind of kinds) {
      body.push(`| ${markdownText(kind)} | ${plan.drift.filter((d) => d.kind === kind).length} | ${plan.operations.filter((op) => op.kind === kind).length} |`);
    }
  }
  if (plan.drift.length) body.push('', '#### Drift (recorded → now)', '', ...driftTable(plan.drift), '', ...driftSections(plan.drift, style));
  if (plan.operations.length) body.push('', '#### Pending', ...graphSection(plan, maxLength), '', ...operationSections(plan, style));
  const unrecorded = unrecordedPerformed(plan);
  if (unrecorded.length) body.push('', '#### Not recorded yet', '', markdownText(unrecordedHeading(plan)), '', ...unrecorded.map((warning) => `- ${markdownCode(warning.address)}: ${markdownMessage(warning.message)}`));
  return fitted(head, body, maxLength, 'run `portalctl drift` locally');
}

/** The drift report of a redacted plan in `format`; markdown is cut to `markdownLimit` characters (a fleet gives each environment a share). */
export function renderDrift(plan: Plan, format: 'text' | 'json' | 'markdown', hasRecordedState: boolean, options: TextOptions & { markdownLimit?: number } = { color: false }): string {
  if (format === 'json') {
    // `driftJudged: false`: no recorded state, so an empty `drift` means "unknown", not "none".
    return `${JSON.stringify({ status: driftStatus(plan), recordedState: plan.state, driftJudged: hasRecordedState, portal: plan.portal, ...(plan.about ? { about: plan.about } : {}), drift: plan.drift, pending: plan.operations }, null, 2)}\n`;
  }
  if (format === 'markdown') return renderDriftMarkdown(plan, hasRecordedState, options.markdownLimit ?? MARKDOWN_LIMIT);
  return renderDriftText(plan, hasRecordedState, options);
}
