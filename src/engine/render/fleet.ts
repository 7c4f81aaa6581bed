/**
 * A fleet run (`plan`, `drift` or `apply` over several environments): one summary table
 * (environment, changes, drift, outcome, time) and one report with a section per environment,
 * as text, markdown or JSON. The sections are each environment's own rendering.
 */
import { MARKDOWN_LIMIT, fitted } from './markdown.js';

/** One environment's run, as the summary shows it. */
export interface FleetEntry {
  environment: string;
  /** Its portal's REST root, when it got as far as knowing it. */
  url?: string;
  /** `no changes`, `changes`, `to record`, `in sync`, `pending`, `drift`, `applied`, `failed`, `interrupted`, `not run`. */
  outcome: string;
  exitCode: number;
  /** Operations planned (plan, drift: pending) or applied (apply); undefined when it failed before counting. */
  changes?: number;
  /** Objects changed outside portalctl; undefined when unknown. */
  drift?: number;
  ms: number;
  /** The failure, in one line, when it failed. */
  error?: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const count = (value: number | undefined): string => (value === undefined ? '-' : String(value));

function rows(entries: readonly FleetEntry[]): string[][] {
  return entries.map((entry) => [entry.environment, count(entry.changes), count(entry.drift), entry.error ? `${entry.outcome}: ${entry.error}` : entry.outcome, seconds(entry.ms)]);
}

const HEADER = ['environment', 'changes', 'drift', 'outcome', 'time'];

/** The summary table for a terminal: aligned columns; a failure's message in its outcome. */
export function renderFleetTable(entries: readonly FleetEntry[]): string {
  const body = rows(entries).map((row) => row.map((cell) => cell.replace(/\s+/g, ' ')));
  const widths = HEADER.map((title, index) => Math.max(title.length, ...body.map((row) => Math.min(60, (row[index] ?? '').length))));
  const line = (cells: readonly string[]) => cells.map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ').trimEnd();
  return `${[line(HEADER), ...body.map(line)].join('\n')}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** A line that names what the fleet did: "3 environments: 2 with changes, 1 failed." */
export function fleetSummaryLine(command: string, entries: readonly FleetEntry[]): string {
  const outcomes = new Map<string, number>();
  for (const entry of entries) outcomes.set(entry.outcome, (outcomes.get(entry.outcome) ?? 0) + 1);
  // Environments by outcome: "3 with changes" (as "changes 3" it read as three changes).
  const parts = [...outcomes.entries()].map(([outcome, number]) => `${number} ${outcome === 'changes' || outcome === 'drift' ? `with ${outcome}` : outcome}`);
  return `portalctl ${command} over ${entries.length} environment${entries.length === 1 ? '' : 's'} (${parts.join(', ')}).`;
}

/**
 * One markdown report: the summary table, then a section per environment with its own report
 * (its first heading replaced by the environment's), each given an equal share of the limit.
 */
export function renderFleetMarkdown(command: string, entries: readonly FleetEntry[], sections: ReadonlyMap<string, string>): string {
  const head = [
    fleetMarkdownTitle(command, entries.length),
    '',
    `**${fleetSummaryLine(command, entries)}**`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...rows(entries).map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
  const body: string[] = [];
  for (const entry of entries) body.push('', ...fleetSectionMarkdown(entry.environment, entry.url, sections.get(entry.environment) ?? ''));
  // Each section keeps to its share, but past ~28 environments the shares' floor adds up to more than the limit.
  return fitted(head, body, MARKDOWN_LIMIT, `run \`portalctl ${command}\` with \`--env NAME\` for one environment`);
}

/** The title of a markdown report over several environments, the level above their sections. */
export function fleetMarkdownTitle(command: string, environments: number): string {
  return `### portalctl ${command}: ${environments} environment${environments === 1 ? '' : 's'}`;
}

/**
 * One environment's section of a markdown report over several: its heading (name and portal),
 * then its own report without its title, every heading a level below the environment's.
 */
export function fleetSectionMarkdown(environment: string, url: string | undefined, report: string): string[] {
  const withoutHeading = report.replace(/^### portalctl [a-z]+\n+/, '');
  return [`#### ${environment}${url ? ` — ${url}` : ''}`, '', ...headingsUnder(withoutHeading.trimEnd())];
}

/**
 * An environment's section, its headings a level below the environment's own (its `#### Changes`
 * was the environment heading's sibling); fenced blocks are left as they are.
 */
function headingsUnder(section: string): string[] {
  let fenced = false;
  return section.split('\n').map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && /^#{1,5} /.test(line) ? `#${line}` : line;
  });
}

/** The share of the markdown limit each environment's section may use. */
export function sectionLimit(environments: number): number {
  return Math.max(2_000, Math.floor((MARKDOWN_LIMIT - 2_000 - environments * 200) / Math.max(1, environments)));
}
