/**
 * The plan as a pull-request comment: summary first, a table of operations, field diffs folded
 * in <details>, destructive operations called out, drift in its own section, and never more
 * than `maxLength` characters (a note says where the full plan is).
 */
import type { Plan, PlannedOperation } from '../plan.js';
import { fieldChanges, formatValue } from './fields.js';
import { summaryLine } from './text.js';

export const MARKDOWN_LIMIT = 60_000;

const ACTION_LABEL = { create: '➕ create', update: '✏️ update', delete: '🗑️ delete' } as const;

/** Markdown table cells: pipes and newlines would break the row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (text: string): string => `\`${cell(text).replace(/`/g, "'")}\``;

function operationRow(op: PlannedOperation): string {
  return `| ${ACTION_LABEL[op.action]} | ${code(op.address)} | ${op.operation.id} ${cell(op.operation.name)} | ${op.destructive ? '**yes**' : ''} |`;
}

function diffBlock(title: string, lines: string[]): string {
  return [`<details><summary>${title}</summary>`, '', '```diff', ...lines, '```', '', '</details>'].join('\n');
}

function operationDetails(op: PlannedOperation): string {
  const lines = fieldChanges(op.before, op.after, op.patch).flatMap((f) => [`- ${f.path}: ${formatValue(f.before, 400)}`, `+ ${f.path}: ${formatValue(f.after, 400)}`]);
  return diffBlock(`${op.destructive ? '⚠️ ' : ''}<code>${op.address.replace(/</g, '&lt;')}</code>`, lines);
}

export interface MarkdownOptions {
  maxLength?: number;
  /** Where a reader finds the whole plan when this comment is truncated. */
  fullPlanHint?: string;
}

export function renderPlanMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_LIMIT;
  const head: string[] = [`### portalctl plan`, '', `**${summaryLine(plan)}**`];
  if (plan.summary.drift) head.push('', `⚠️ **Drift:** ${plan.summary.drift} object(s) changed outside portalctl since the last apply (see below).`);
  if (plan.summary.destructive) {
    const destructive = plan.operations.filter((op) => op.destructive).map((op) => code(op.address));
    head.push('', `⚠️ **Destructive operations (${destructive.length}):** ${destructive.join(', ')}. \`apply\` needs \`--allow-destructive\`.`);
  }
  const warnings = plan.warnings ?? [];
  if (warnings.length) {
    head.push('', `⚠️ **Warnings (${warnings.length}):**`, '', ...warnings.map((warning) => `- ${code(warning.address)}: ${cell(warning.message)}`));
  }
  if (!plan.refreshed) head.push('', '_Planned against the recorded state (`--refresh=false`); the portal was not read._');

  const body: string[] = [];
  if (plan.operations.length) {
    body.push('', '| action | address | operation | destructive |', '|---|---|---|---|', ...plan.operations.map(operationRow));
    body.push('', '#### Changes', '', ...plan.operations.map(operationDetails));
  }
  if (plan.drift.length) {
    body.push('', '#### Drift', '', '| address | changed fields |', '|---|---|');
    for (const entry of plan.drift) {
      const fields = fieldChanges(entry.before, entry.after, entry.patch).map((f) => f.path);
      body.push(`| ${code(entry.address)} | ${cell(fields.join(', '))} |`);
    }
    body.push('', ...plan.drift.map((d) => diffBlock(`<code>${d.address.replace(/</g, '&lt;')}</code> (recorded → now)`, fieldChanges(d.before, d.after, d.patch).flatMap((f) => [`- ${f.path}: ${formatValue(f.before, 400)}`, `+ ${f.path}: ${formatValue(f.after, 400)}`]))));
  }

  const full = [...head, ...body].join('\n') + '\n';
  if (full.length <= maxLength) return full;
  return truncate(head, body, maxLength, options.fullPlanHint ?? 'run `portalctl plan` locally or save it with `--out`');
}

/** Keeps whole lines (never half a table row or an open <details>) and ends with a note. */
function truncate(head: string[], body: string[], maxLength: number, hint: string): string {
  const note = (shown: number) =>
    `\n\n---\n✂️ **Truncated:** this comment shows ${shown} of ${body.length} lines of the plan to stay under ${maxLength} characters. Full plan: ${hint}.\n`;
  const kept: string[] = [...head];
  let length = kept.join('\n').length;
  let openDetails = 0;
  let shown = 0;
  const budget = maxLength - note(body.length).length - 64;
  for (const line of body) {
    if (length + line.length + 1 > budget) break;
    kept.push(line);
    length += line.length + 1;
    shown++;
    if (line.startsWith('<details>')) openDetails++;
    if (line === '</details>') openDetails--;
  }
  // Close an open code fence and <details> so the rest of the comment renders.
  if (openDetails > 0) {
    if (kept.filter((l) => l.startsWith('```')).length % 2 === 1) kept.push('```');
    kept.push('', '</details>');
  }
  return kept.join('\n') + note(shown);
}
