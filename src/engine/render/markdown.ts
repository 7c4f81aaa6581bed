/**
 * The plan as a pull-request comment: summary first, destructive operations and warnings
 * called out, the order of operations as a Mermaid graph when there are dependencies, then one
 * collapsible section per kind (counts in its summary) with a table and a `diff` block, drift
 * in its own section, and never more than `maxLength` characters (a note says where the full
 * plan is).
 */
import { counted } from '../../core/words.js';
import type { Action } from '../../kinds/toolkit/contract.js';
import type { DriftEntry, DriftResolution, Plan, PlannedOperation } from '../plan/plan.js';
import { valueLines } from './diff.js';
import { fencedLine, htmlText, markdownCode, markdownMessage, markdownText } from './escape.js';
import { fieldChanges } from './fields.js';
import { planGraph, renderMermaid } from './graph.js';
import type { DiffLine } from './lines.js';
import { RESOLUTION, SYMBOL, nameOf, namesNote, outsideTargetsNote, planSummaryLine, valueStyle } from './text.js';
import type { ValueStyle } from './values.js';

export const MARKDOWN_LIMIT = 60_000;

const ACTION_LABEL = { create: '➕ create', update: '✏️ update', delete: '🗑️ delete' } as const;

// Every text that is not our own goes through escape.ts for its medium.
const cell = markdownText;
const code = markdownCode;
const html = htmlText;
const fenced = fencedLine;

function operationRow(op: PlannedOperation): string {
  return `| ${ACTION_LABEL[op.action]} | ${code(op.address)} | ${op.label ? cell(op.label) : ''}${cell(namesNote(op.names))} | ${op.operation.id} ${cell(op.operation.name)} | ${op.destructive ? '**yes**' : ''} |`;
}

/** Change lines in a `diff` block: a one-line change becomes a removed and an added line. */
export function diffBlockLines(lines: readonly DiffLine[], phrase: { from: string; to: string } = { from: '', to: '' }): string[] {
  return lines.flatMap((entry) => {
    const indent = '  '.repeat(entry.depth);
    if (entry.change) {
      return [fenced(`- ${indent}${entry.change.key}: ${phrase.from}${entry.change.from}`), fenced(`+ ${indent}${entry.change.key}: ${phrase.to}${entry.change.to}`)];
    }
    if (entry.mark === '#') return [fenced(`  ${indent}# ${entry.text}`)];
    return [fenced(`${entry.mark} ${indent}${entry.text}`)];
  });
}

function counts(ops: readonly PlannedOperation[]): string {
  const by = (action: Action) => ops.filter((op) => op.action === action).length;
  const parts = [by('create') ? `${by('create')} to create` : '', by('update') ? `${by('update')} to update` : '', by('delete') ? `${by('delete')} to delete` : ''].filter(Boolean);
  const destructive = ops.filter((op) => op.destructive).length;
  return `${parts.join(', ')}${destructive ? ` (${destructive} destructive)` : ''}`;
}

function byKind<T extends { kind: string }>(entries: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const entry of entries) groups.set(entry.kind, [...(groups.get(entry.kind) ?? []), entry]);
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One collapsible section per kind: the operations' table, then every change in one `diff` block. */
export function operationSections(plan: Plan, style: ValueStyle): string[] {
  return byKind(plan.operations).flatMap(([kind, ops]) => [
    `<details><summary><b>${html(kind)}</b>: ${counts(ops)}</summary>`,
    '',
    '| action | address | name | operation | destructive |',
    '|---|---|---|---|---|',
    ...ops.map(operationRow),
    '',
    '```diff',
    ...ops.flatMap((op) => [fenced(`${SYMBOL[op.action]} ${nameOf(op)}${op.destructive ? '  (destructive)' : ''}`), ...diffBlockLines(valueLines(op.before, op.after, style, 1))]),
    '```',
    '',
    '</details>',
    '',
  ]);
}

/** Each drifted object, recorded versus now, one section per kind, with how to accept it. */
export function driftSections(drift: readonly DriftEntry[], style: ValueStyle): string[] {
  return byKind(drift).flatMap(([kind, entries]) => [
    `<details><summary><b>${html(kind)}</b>: ${entries.length} changed outside portalctl</summary>`,
    '',
    '```diff',
    ...entries.flatMap((entry) => [
      fenced(`! ${entry.address}  (recorded -> now)`),
      ...diffBlockLines(valueLines(entry.before, entry.after, style, 1), { from: 'recorded ', to: 'now ' }),
      ...(entry.resolution ? [fenced(`  # ${RESOLUTION[entry.resolution]}`)] : []),
    ]),
    '```',
    '',
    '</details>',
    '',
  ]);
}

/** How to accept a drift entry, in a table cell. */
const RESOLUTION_CELL: Record<DriftResolution, string> = {
  adopt: '`portalctl apply` (the configuration already asks for it)',
  'refresh-only': 'write it in the configuration (`portalctl apply` would set it back; `portalctl apply --refresh-only` records it as seen)',
};

/** The drift table: each drifted address, its changed fields, and how to keep the portal's value. */
export function driftTable(drift: readonly DriftEntry[]): string[] {
  return [
    '| address | changed fields | to keep the portal\'s value |',
    '|---|---|---|',
    ...drift.map((entry) => {
      const fields = fieldChanges(entry.before, entry.after, entry.patch).map((f) => f.path);
      return `| ${code(entry.address)} | ${cell(fields.join(', '))} | ${entry.resolution ? RESOLUTION_CELL[entry.resolution] : ''} |`;
    }),
  ];
}

/**
 * What a report is about, so two environments' comments are told apart at a glance: the portal
 * (name from `portals/self`, URL), the state, the config paths and the portalctl release.
 * The portal's name is live text: it goes through the cell escaping like every live value.
 */
export function aboutLine(plan: Pick<Plan, 'portal' | 'about'>): string {
  const portal = plan.portal.name ? `**${cell(plan.portal.name)}** ${code(plan.portal.url)}` : code(plan.portal.url);
  const parts = [`Portal ${portal}`];
  if (plan.about) {
    parts.push(...(plan.about.environment ? [`environment ${code(plan.about.environment)}`] : []), `state ${code(plan.about.state)}`, `config ${plan.about.config.map(code).join(' ')}`, `portalctl ${cell(plan.about.portalctl)}`);
  }
  return parts.join(' · ');
}

/** What `apply` would refuse, each with the flag that overrides it. */
export function refusalLines(plan: Pick<Plan, 'refusals'>): string[] {
  return (plan.refusals ?? []).flatMap((refusal) => ['', `⛔ **\`apply\` will refuse this plan** without \`${refusal.override}\`: ${markdownMessage(refusal.message)}`]);
}

/** The Mermaid graph of the operations when some depend on others; left out (with a note) when it would take over the comment. */
export function graphSection(plan: Plan, maxLength: number): string[] {
  const graph = planGraph(plan, 'ordered');
  if (graph.edges.length === 0) return [];
  const mermaid = renderMermaid(graph);
  if (mermaid.length > maxLength / 4) {
    return ['', '#### Order of operations', '', `_${graph.edges.length} dependencies between ${graph.nodes.length} operations: too many to draw here; \`portalctl graph\` prints the graph._`];
  }
  return ['', '#### Order of operations', '', '```mermaid', ...mermaid.trimEnd().split('\n'), '```'];
}

export interface MarkdownOptions {
  maxLength?: number;
  /** Where a reader finds the whole plan when this comment is truncated. */
  fullPlanHint?: string;
}

const DEFAULT_HINT = 'run `portalctl plan` locally or save it with `--out`';

export function renderPlanMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_LIMIT;
  const style = valueStyle(plan);
  const head: string[] = [`### portalctl plan`, '', `**${planSummaryLine(plan)}**`, '', aboutLine(plan)];
  head.push(...refusalLines(plan));
  if (plan.summary.drift) head.push('', `⚠️ **Drift:** ${counted(plan.summary.drift, 'object')} changed outside portalctl since the last apply (see below).`);
  if (plan.summary.destructive) {
    const destructive = plan.operations.filter((op) => op.destructive).map((op) => `${code(op.address)}${op.label ? ` (${cell(op.label)})` : ''}`);
    head.push('', `⚠️ **Destructive operations (${destructive.length}):** ${destructive.join(', ')}. \`apply\` needs \`--allow-destructive\`.`);
  }
  const warnings = plan.warnings ?? [];
  if (warnings.length) {
    head.push('', `⚠️ **Warnings (${warnings.length}):**`, '', ...warnings.map((warning) => `- ${code(warning.address)}: ${markdownMessage(warning.message)}`));
  }
  if (!plan.refreshed) head.push('', '_Planned against the recorded state (`--refresh=false`); the portal was not read._');
  if (plan.targets.length) head.push('', `_Targets: ${plan.targets.map(code).join(', ')}${outsideTargetsNote(plan, code)}._`);

  const body: string[] = [];
  if (plan.operations.length) {
    body.push(...graphSection(plan, maxLength));
    body.push('', '#### Changes', '', ...operationSections(plan, style));
  }
  if (plan.drift.length) body.push('', '#### Drift', '', ...driftTable(plan.drift), '', ...driftSections(plan.drift, style));
  return fitted(head, body, maxLength, options.fullPlanHint ?? DEFAULT_HINT);
}

/** Room left under the cap for what a CI job wraps around the comment (its marker line). */
const WRAPPER_ROOM = 200;

/** The whole comment, or its first lines and a note when it is longer than `maxLength` (less room for a wrapper). */
export function fitted(head: string[], body: string[], maxLength: number, hint: string): string {
  const full = [...head, ...body].join('\n') + '\n';
  if (full.length <= maxLength - WRAPPER_ROOM) return full;
  return truncate(head, body, maxLength, hint);
}

/** Keeps whole lines (never half a table row or an open <details> or code block) and ends with a note. */
function truncate(head: string[], body: string[], maxLength: number, hint: string): string {
  const note = (shown: number) =>
    `\n\n---\n✂️ **Truncated:** this comment shows ${shown} of ${body.length} lines of the plan to stay under ${maxLength} characters. Full plan: ${hint}.\n`;
  const kept: string[] = [...head];
  let length = kept.join('\n').length;
  let openDetails = 0;
  let inFence = false;
  let shown = 0;
  const budget = maxLength - note(body.length).length - WRAPPER_ROOM;
  for (const line of body) {
    if (length + line.length + 1 > budget) break;
    kept.push(line);
    length += line.length + 1;
    shown++;
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence && line.startsWith('<details>')) openDetails++;
    else if (!inFence && line === '</details>') openDetails--;
  }
  // Close an open code block and every open <details> so the rest of the comment renders.
  if (inFence) kept.push('```');
  for (; openDetails > 0; openDetails--) kept.push('', '</details>');
  return kept.join('\n') + note(shown);
}
