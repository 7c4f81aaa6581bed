/**
 * Fleet runs (README "Environments"): one command over several environments, at most
 * `--env-parallelism` at once, each with its own config layers, portal, credentials and state
 * (and so its own state lock). A failure in one environment never stops the others: it becomes
 * that environment's outcome, with its message. Each environment's output is collected and
 * printed whole, in the order the environments were named, then the summary table; the exit
 * code is the worst of all.
 */
import pLimit from 'p-limit';
import { UsageError } from '../core/errors.js';
import type { Plan } from '../engine/plan/plan.js';
import { fleetSummaryLine, renderFleetMarkdown, renderFleetTable, type FleetEntry } from '../engine/render/fleet.js';
import { describeError, errorDocument, worstExitCode } from './exit.js';
import type { CommandIO } from './io.js';
import { parsePositiveInt } from './flag-values.js';
import { stopwatch } from '../core/stopwatch.js';

/** What one environment's run produced. */
export interface MemberResult {
  outcome: string;
  exitCode: number;
  changes?: number;
  drift?: number;
  url?: string;
  /** Its text output (what the command prints for one environment). */
  text: string;
  /** Its markdown report, when the format is markdown. */
  markdown?: string;
  /** Its JSON value, when the format is JSON. */
  json?: unknown;
  /** `plan --out`: the environment's plan as saved (redacted), for the file of the fleet's plans. */
  saved?: Plan;
}

/**
 * A failed environment's run that got far enough to count (an apply that applied some operations
 * before it failed or was interrupted): the summary then shows its counts with the failure.
 */
export class MemberFailure extends Error {
  constructor(
    readonly failure: unknown,
    readonly counted: Pick<MemberResult, 'changes' | 'drift' | 'url'>,
  ) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }
}

export interface FleetMember extends FleetEntry {
  text: string;
  markdown?: string;
  json?: unknown;
  saved?: MemberResult['saved'];
}

/** Output of one environment's run goes to its own buffers; the rest of the process edges are shared. */
export function memberIO(io: CommandIO): CommandIO & { output(): string } {
  let output = '';
  const write = (text: string): void => void (output += text);
  const { confirm: _confirm, onInterrupt: _onInterrupt, interruptNote: _interruptNote, ...shared } = io;
  return { ...shared, stdout: write, stderr: write, isTTY: false, color: false, output: () => output };
}

export const DEFAULT_ENV_PARALLELISM = 4;

export function envParallelism(text: string | undefined): number {
  return text === undefined ? DEFAULT_ENV_PARALLELISM : parsePositiveInt(text, '--env-parallelism');
}

/**
 * Runs `run` for every environment, at most `parallelism` at once; `shouldStart` false leaves
 * the environments not yet started out (an interrupt). Progress goes to stderr as each ends.
 */
export async function runFleet(
  names: readonly string[],
  parallelism: number,
  io: CommandIO,
  verbose: boolean,
  run: (environment: string, io: CommandIO & { output(): string }) => Promise<MemberResult>,
  shouldStart: () => boolean = () => true,
): Promise<FleetMember[]> {
  if (names.length === 0) throw new UsageError('No environment to run in.');
  const limit = pLimit(parallelism);
  return Promise.all(
    names.map((environment) =>
      limit(async (): Promise<FleetMember> => {
        if (!shouldStart()) return { environment, outcome: 'not run', exitCode: 130, ms: 0, text: 'Not started: interrupted.\n' };
        const elapsed = stopwatch();
        const own = memberIO(io);
        let member: FleetMember;
        try {
          const result = await run(environment, own);
          member = { environment, ...result, ms: elapsed(), text: `${own.output()}${result.text}` };
        } catch (caught) {
          const error = caught instanceof MemberFailure ? caught.failure : caught;
          const described = describeError(error, io, verbose);
          const outcome = described.code === 130 ? 'interrupted' : 'failed';
          member = {
            environment,
            ...(caught instanceof MemberFailure ? caught.counted : {}),
            outcome,
            exitCode: described.code,
            ms: elapsed(),
            error: firstLine(described.summary),
            text: `${own.output()}${described.text}`,
            markdown: failureMarkdown(`${own.output()}${described.text}`),
            // Under --format json, the error document a single run prints (with the result an apply had).
            json: errorDocument(error),
          };
        }
        io.stderr(`${environment}: ${member.outcome}${member.error ? ` (${member.error})` : ''} in ${(member.ms / 1000).toFixed(1)} s\n`);
        return member;
      }),
    ),
  );
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

function failureMarkdown(text: string): string {
  const shown = text.length > 8_000 ? `…${text.slice(-8_000)}` : text;
  return `**Failed.**\n\n\`\`\`\n${shown.trimEnd().replace(/```/g, "'''")}\n\`\`\`\n`;
}

/** Prints the fleet's report in `format` and returns the worst exit code. */
export function printFleet(command: string, members: readonly FleetMember[], format: 'text' | 'json' | 'markdown', io: CommandIO): number {
  const exitCode = worstExitCode(members.map((member) => member.exitCode));
  const entries: FleetEntry[] = members.map(({ text: _text, markdown: _markdown, json: _json, saved: _saved, ...entry }) => entry);
  if (format === 'json') {
    const environments = members.map(({ text, markdown: _markdown, json, saved: _saved, ...entry }) => ({ ...entry, ms: Math.round(entry.ms), ...(json === undefined ? { output: text } : { report: json }) }));
    io.stdout(`${JSON.stringify({ command, exitCode, environments }, null, 2)}\n`);
  } else if (format === 'markdown') {
    io.stdout(renderFleetMarkdown(command, entries, new Map(members.map((member) => [member.environment, member.markdown ?? member.text]))));
  } else {
    for (const member of members) io.stdout(`=== ${member.environment}${member.url ? ` (${member.url})` : ''} ===\n${member.text.trimEnd()}\n\n`);
    io.stdout(`${fleetSummaryLine(command, entries)}\n${renderFleetTable(entries)}`);
  }
  return exitCode;
}
