/** The plan for a terminal: summary first, one line per operation, then each change as a reviewable block. */
import type { Action } from '../../kinds/toolkit/contract.js';
import { isTargeted, type DriftResolution, type Plan, type PlannedOperation } from '../plan/plan.js';
import { describeName, type ResolvedName } from '../read/names.js';
import { valueLines } from './diff.js';
import { terminalText } from './escape.js';
import type { DiffLine } from './lines.js';
import type { ShownPlan } from '../plan/redact.js';
import { MARK_TONE, painter, type Paint } from './style.js';
import { DEFAULT_VALUE_STYLE, type ValueStyle } from './values.js';
import { counted, listed } from '../../core/words.js';
import { unrecordedPerformed } from '../plan/unknown-outcomes.js';

export const SYMBOL: Record<Action, '+' | '~' | '-'> = { create: '+', update: '~', delete: '-' };

/**
 * `The portal matches the configuration.`, said only of what the plan compared: the recorded
 * state when the portal was not read (--refresh=false), the targets alone with --target.
 */
export function matchesLine(plan: Pick<Plan, 'refreshed' | 'targets'>, now = ''): string {
  return `${plan.refreshed ? 'The portal' : 'The recorded state'} ${now}matches the configuration${plan.targets.length ? ' within the targets' : ''}.`;
}

/**
 * How to keep the portal's value of a drifted object (README "Accepting drift"). Where the
 * configuration asks for another value, `apply --refresh-only` only records the portal's value:
 * the next `apply` sets the configured one back, so keeping it means writing it in the YAML.
 */
export const RESOLUTION: Record<DriftResolution, string> = {
  adopt: 'keep it with `portalctl apply` (the configuration already asks for this value; nothing is sent)',
  'refresh-only': 'to keep it, write it in the configuration: `portalctl apply` would set the configured value back (`portalctl apply --refresh-only` records it as seen meanwhile)',
};

/** What `apply` would refuse in this plan, one line each, with the flag that overrides it. */
export function refusalTextLines(plan: Pick<Plan, 'refusals'>): string[] {
  return (plan.refusals ?? []).map((refusal) => `apply will refuse this plan without ${refusal.override}: ${refusal.message}`);
}

export interface TextOptions {
  color: boolean;
  /** The terminal's width in columns; long values are cut to fit (default: 120-column values). */
  width?: number;
}

export function summaryLine(plan: Plan): string {
  const { create, update, delete: del, destructive } = plan.summary;
  if (plan.operations.length === 0) return `No changes. ${matchesLine(plan)}`;
  const parts = [`${create} to create`, `${update} to update`, `${del} to delete`];
  return `Plan: ${parts.join(', ')}${destructive ? ` (${destructive} destructive)` : ''}.`;
}

/** A plan's summary: with nothing to send, also what `apply` still has to record (writes whose answers were lost). */
export function planSummaryLine(plan: Plan): string {
  const toRecord = plan.operations.length === 0 ? unrecordedPerformed(plan).length : 0;
  if (toRecord === 0) return summaryLine(plan);
  const them = toRecord === 1 ? 'it' : 'them';
  return `${summaryLine(plan)} Still to record: ${counted(toRecord, 'write')} the portal shows performed, whose answer was lost (\`portalctl apply\` records ${them} without sending ${them} again).`;
}

/** The portal as a person knows it: its name (from `portals/self`, live text) and its URL. */
export const portalText = (portal: Plan['portal']): string => (portal.name ? `${portal.name} (${portal.url})` : portal.url);

/** The address, and the object's name as a person knows it when the plan has one. */
export const named = (address: string, label: string | undefined): string => (label ? `${address} — ${label}` : address);

/** `"Field Analyst" → r7HkQ2`: the names the config gave instead of ids, beside the ids they resolved to. */
export function namesNote(names: readonly ResolvedName[] | undefined): string {
  if (!names?.length) return '';
  return `  (by name: ${names.map((entry) => `${entry.field === undefined ? '' : `${entry.field}: `}${entry.noun} ${describeName(entry.name)} → ${entry.id}`).join(', ')})`;
}

/** An operation's address, its label, and the names it was declared by. */
export const nameOf = (op: Pick<PlannedOperation, 'address' | 'label' | 'names'>): string => `${named(op.address, op.label)}${namesNote(op.names)}`;

/** How values are cut for this output: to the terminal's width when known. */
export function valueStyle(plan: Plan, width?: number): ValueStyle {
  const references = (plan as ShownPlan).references ?? {};
  return { ...DEFAULT_VALUE_STYLE, references, ...(width ? { maxInline: Math.max(40, width - 24) } : {}) };
}

/** Lines of a change for the terminal: a mark column, then the text indented by depth. */
export function textLines(lines: readonly DiffLine[], paint: Paint, indent: string, phrase: (from: string, to: string) => string = (from, to) => `${from} -> ${to}`): string[] {
  return lines.map((entry) => {
    const text = entry.change ? `${entry.change.key}: ${phrase(entry.change.from, entry.change.to)}` : entry.mark === '#' ? `# ${entry.text}` : entry.text;
    const mark = entry.mark === '#' ? ' ' : entry.mark;
    const body = `${'  '.repeat(entry.depth)}${terminalText(text)}`;
    const tone = MARK_TONE[entry.mark];
    return `${indent}${tone ? paint(tone, mark) : mark} ${tone && entry.mark !== '~' ? paint(tone, body) : body}`;
  });
}

function operationLine(op: PlannedOperation, paint: Paint): string {
  const mark = paint(MARK_TONE[SYMBOL[op.action]] ?? 'bold', SYMBOL[op.action]);
  const flags = [op.destructive ? 'DESTRUCTIVE' : '', op.dependsOn.length ? `after ${op.dependsOn.map((address) => terminalText(address)).join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  return `  ${mark} ${terminalText(nameOf(op))}  (${op.operation.id} ${op.operation.name})${flags ? `  [${op.destructive ? paint('red', flags) : flags}]` : ''}`;
}

/**
 * ` (with role[r7HkQ2], which they wait for; 2 more changes outside them are left out of this
 * plan)`, or '' when there is neither; `shown` writes an address for the medium.
 */
export function outsideTargetsNote(plan: Plan, shown: (address: string) => string = terminalText): string {
  const waitedFor = plan.operations.filter((op) => !isTargeted(op.address, plan.targets)).map((op) => shown(op.address));
  const outside = plan.summary.outsideTargets ?? 0;
  const notes = [
    waitedFor.length > 0 ? `with ${listed(waitedFor.slice(0, 5))}${waitedFor.length > 5 ? ` and ${waitedFor.length - 5} more` : ''}, which they wait for` : '',
    outside > 0 ? `${outside === 1 ? '1 more change outside them is' : `${outside} more changes outside them are`} left out of this plan` : '',
  ].filter(Boolean);
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}

export function renderPlanText(plan: Plan, options: TextOptions): string {
  const paint = painter(options.color);
  const style = valueStyle(plan, options.width);
  const lines: string[] = [paint('bold', planSummaryLine(plan)), ...refusalTextLines(plan).map((text) => paint('red', terminalText(text)))];
  if (!plan.refreshed) lines.push('Planned against the recorded state (--refresh=false): the portal was not read.');
  if (plan.targets.length) lines.push(`Targets: ${terminalText(plan.targets.join(', '))}${outsideTargetsNote(plan)}`);

  if (plan.operations.length) {
    const kinds = Object.entries(plan.summary.byKind).sort(([a], [b]) => (a < b ? -1 : 1));
    lines.push('', 'By kind:', ...kinds.map(([kind, count]) => `  ${kind}: ${count}`));
    lines.push('', 'Operations, in order:', ...plan.operations.map((op) => operationLine(op, paint)));
    lines.push('', 'Changes:');
    for (const op of plan.operations) {
      lines.push(`  ${paint(MARK_TONE[SYMBOL[op.action]] ?? 'bold', SYMBOL[op.action])} ${paint('bold', terminalText(nameOf(op)))}`);
      lines.push(...textLines(valueLines(op.before, op.after, style), paint, '    '));
    }
  }

  const warnings = plan.warnings ?? [];
  if (warnings.length) {
    lines.push('', `Warnings (${warnings.length}):`, ...warnings.map((warning) => `  ${paint('yellow', '!')} ${terminalText(`${warning.address}: ${warning.message}`)}`));
  }

  if (plan.drift.length) {
    lines.push('', `Drift: ${counted(plan.drift.length, 'object')} changed outside portalctl since the last apply:`);
    lines.push(...driftTextLines(plan, paint, style));
  }
  return `${lines.join('\n')}\n`;
}

/** Each drifted object and what changed, recorded versus now. */
export function driftTextLines(plan: Plan, paint: Paint, style: ValueStyle): string[] {
  const lines: string[] = [];
  for (const entry of plan.drift) {
    lines.push(`  ${paint('yellow', '!')} ${terminalText(named(entry.address, entry.label))}`);
    const changes = valueLines(entry.before, entry.after, style).map((change) => (change.change ? { ...change, mark: ' ' as const } : change));
    lines.push(...textLines(changes, paint, '    ', (from, to) => `recorded ${from}, now ${to}`));
    if (entry.resolution) lines.push(`      ${paint('dim', `→ ${RESOLUTION[entry.resolution]}`)}`);
  }
  return lines;
}
