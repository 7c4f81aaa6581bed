import { ConfigError } from '../engine/config/errors.js';
import { InterruptedError, PortalctlError } from '../core/errors.js';
import { renderDiagnostics } from './diagnostics.js';
import type { CommandIO } from './io.js';

/** What a failure means for the user: the exit code, the text to show, and its one-line summary. */
export interface DescribedError {
  code: number;
  text: string;
  summary: string;
}

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1, an interrupt 130. An
 * invalid config shows every problem once, as `validate` does, then a one-line summary.
 */
export function describeError(error: unknown, io: Pick<CommandIO, 'cwd' | 'color'>, verbose: boolean): DescribedError {
  if (error instanceof ConfigError) {
    const errors = error.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    const summary = `invalid configuration (${errors} error${errors === 1 ? '' : 's'} above); nothing was sent to the portal.`;
    return { code: 1, text: `${renderDiagnostics(error.diagnostics, io)}Error: ${summary}\n`, summary: error.message };
  }
  if (error instanceof InterruptedError) return { code: 130, text: `${error.message}\n`, summary: error.message };
  const message = error instanceof Error ? error.message : String(error);
  let text = `Error: ${message}\n`;
  if (error instanceof PortalctlError) {
    if (verbose && error.cause) text += `Caused by: ${String(error.cause)}\n`;
  } else if (error instanceof Error && verbose && error.stack) {
    text += `${error.stack}\n`;
  }
  return { code: 1, text, summary: message };
}

export function reportError(error: unknown, io: Pick<CommandIO, 'stderr' | 'cwd' | 'color'>, verbose: boolean): number {
  const described = describeError(error, io, verbose);
  io.stderr(described.text);
  return described.code;
}

/** The exit code of several runs (a fleet): the worst of them. Interrupted, then error, then drift, then changes. */
export function worstExitCode(codes: readonly number[]): number {
  const rank = (code: number): number => (code === 130 ? 5 : code === 3 ? 3 : code === 2 ? 2 : code === 0 ? 0 : 4);
  return codes.reduce((worst, code) => (rank(code) > rank(worst) ? code : worst), 0);
}
