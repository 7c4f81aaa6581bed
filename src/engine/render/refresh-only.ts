/**
 * `apply --refresh-only` output: what will be recorded from the portal (shown before asking),
 * then what was recorded. Values come redacted (redactRecords), like every plan value shown.
 */
import { counted } from '../../core/words.js';
import { namesRecordedLine } from './apply.js';
import type { LiveRecord } from '../record/record-live.js';
import type { Plan } from '../plan/plan.js';
import { valueLines } from './diff.js';
import { shownValues, type Redactor } from '../plan/redact.js';
import { painter } from './style.js';
import { named, textLines, valueStyle, type TextOptions } from './text.js';

/** The records with their values as any output shows them (shownValues): no resolved secret, no secret-like field's value. */
export function redactRecords(records: readonly LiveRecord[], redact: Redactor): LiveRecord[] {
  const shown = shownValues(redact);
  return records.map((record) => ({ ...record, before: record.before === undefined ? undefined : shown(record.before), after: shown(record.after) }));
}

/** Nothing to record; with `--target`, said of the targets only (objects outside them were not compared). */
function nothingToRecord(targets: readonly string[]): string {
  if (targets.length === 0) return 'No changes to record: the state already holds what the portal has.';
  return `No changes to record within the targets (${targets.join(', ')}): the state already holds what the portal has for them.`;
}

/** What will be recorded, recorded value against the portal's, one block per address. */
export function renderRefreshOnlyPlan(records: readonly LiveRecord[], plan: Plan, options: TextOptions): string {
  if (records.length === 0) return `${nothingToRecord(plan.targets)}\n`;
  const paint = painter(options.color);
  const style = valueStyle(plan, options.width);
  const drift = records.filter((record) => record.reason === 'drift').length;
  const lines = [
    paint('bold', `Refresh-only: ${counted(records.length, 'object')} to record from the portal (${drift} changed outside portalctl, ${records.length - drift} not recorded yet). Nothing is sent to the portal.`),
  ];
  for (const record of records) {
    const mark = record.reason === 'drift' ? '!' : '+';
    lines.push(`  ${paint(record.reason === 'drift' ? 'yellow' : 'green', mark)} ${named(record.address, record.label)}${record.reason === 'new' ? '  (not recorded yet)' : ''}`);
    const changes = valueLines(record.before ?? null, record.after, style).map((change) => (change.change ? { ...change, mark: ' ' as const } : change));
    lines.push(...textLines(changes, paint, '    ', (from, to) => `recorded ${from}, now ${to}`));
    if (!record.matchesConfig) lines.push(paint('dim', '      the configuration asks for another value: `portalctl plan` will show it as a change until the configuration matches'));
  }
  return `${lines.join('\n')}\n`;
}

export interface RefreshOnlyOutcome {
  records: readonly LiveRecord[];
  plan: Plan;
  state: { lineage: string; serial: number } | undefined;
  /** Where the state lives, as the store describes itself. */
  where: string;
  /** Only names were written (RefreshOnlyResult.namesRecorded). */
  namesRecorded?: boolean;
}

/** The result: what was recorded, and what the configuration still asks for. */
export function renderRefreshOnlyResult({ records, plan, state, where, namesRecorded }: RefreshOnlyOutcome, format: 'text' | 'json'): string {
  if (format === 'json') {
    return `${JSON.stringify(
      {
        refreshOnly: true,
        recorded: records.map(({ address, kind, reason, before, after, matchesConfig }) => ({ address, kind, reason, matchesConfig, before: before ?? null, after })),
        pending: plan.operations.length,
        state: state ? { lineage: state.lineage, serial: state.serial } : null,
        namesRecorded: Boolean(namesRecorded),
        portal: plan.portal,
        ...(plan.about ? { about: plan.about } : {}),
      },
      null,
      2,
    )}\n`;
  }
  const lines = records.length === 0 ? [] : [`Recorded ${counted(records.length, 'object')} in the state at ${where}${state ? ` (serial ${state.serial})` : ''}. Nothing was sent to the portal.`];
  if (namesRecorded) lines.push(`${namesRecordedLine(state)} Nothing was sent to the portal.`);
  if (plan.operations.length) lines.push(`The configuration still differs from the portal in ${counted(plan.operations.length, 'operation')}: \`portalctl plan\` shows them.`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}
