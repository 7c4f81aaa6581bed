import { ConfigError } from '../engine/config/errors.js';
import { StalePlanError } from '../engine/plan/saved-plan.js';
import { ReadsRefusedError, refusalText } from '../engine/read/refused-reads.js';
import { ApiError, ApiNetworkError, UntrustedCertificateError, isMissingPrivilege, isNotFound, tokenProblem } from '../api/errors.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { InterruptedError, PortalctlError, UsageError } from '../core/errors.js';
import { counted } from '../core/words.js';
import { terminalText } from '../engine/render/escape.js';
import { renderDiagnostics } from './diagnostics.js';
import type { CommandIO } from './io.js';

/**
 * A failure whose command already has a result to show (an apply that failed half-way): under
 * --format json the result goes into the one error document instead of a second document.
 */
export class FailureWithResult extends PortalctlError {
  constructor(
    readonly failure: PortalctlError,
    readonly result: unknown,
  ) {
    super(failure.message, { cause: failure });
  }
}

/** `StateLockedError` -> `state-locked`: a stable code for an error that has no diagnostic code. */
function codeOf(error: Error): string {
  return error.name.replace(/Error$/, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase() || 'error';
}

/** What kind of failure a request's was, for scripts: `api/missing-privilege`, `api/timeout`, ... */
function apiCode(error: ApiError): string {
  if (error instanceof UntrustedCertificateError) return 'api/untrusted-certificate';
  if (error instanceof ApiNetworkError) return `api/${error.failure}`;
  if (isMissingPrivilege(error)) return 'api/missing-privilege';
  if (isNotFound(error)) return 'api/not-found';
  const token = tokenProblem(error);
  if (token) return token === 'invalid' ? 'api/invalid-token' : 'api/token-required';
  return 'api/request-failed';
}

/** An error as the diagnostics `validate --format json` prints (non-config errors become one). */
function diagnosticsOf(error: unknown): Diagnostic[] {
  if (error instanceof ConfigError) return [...error.diagnostics];
  if (error instanceof ReadsRefusedError) {
    return error.refused.map(({ address, location, error: refusal }) => ({
      ...(diagnosticsOf(refusal)[0] as Diagnostic),
      message: `Refused for want of a privilege: ${refusalText(refusal)}`,
      address,
      ...(location ? { location } : {}),
    }));
  }
  if (error instanceof ApiError) {
    const portal = [error.code === undefined ? '' : String(error.code), error.messageCode ?? ''].filter(Boolean).join(' ');
    return [{ severity: 'error', code: apiCode(error), message: error.message, ...(portal ? { value: portal } : {}), expected: `${error.method} ${error.path} to succeed` }];
  }
  // What changed since the plan was saved, for pipelines that re-plan with the reason (scripts/action).
  if (error instanceof StalePlanError) return [{ severity: 'error', code: codeOf(error), message: error.message, value: error.reasons.join('; ') }];
  if (error instanceof Error) return [{ severity: 'error', code: codeOf(error), message: error.message }];
  return [{ severity: 'error', code: 'error', message: String(error) }];
}

function exitCodeOf(error: unknown): number {
  return error instanceof InterruptedError || (error instanceof FailureWithResult && error.failure instanceof InterruptedError) ? 130 : 1;
}

/** The JSON error document: the fields of `validate --format json`, the exit code, and a command's result when it has one. */
function jsonReport(error: unknown): string {
  const failure = error instanceof FailureWithResult ? error.failure : error;
  const diagnostics = diagnosticsOf(failure);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const message = failure instanceof Error ? failure.message : String(failure);
  return `${JSON.stringify(
    {
      valid: false,
      errors,
      warnings: diagnostics.length - errors,
      diagnostics,
      error: message,
      exitCode: exitCodeOf(error),
      ...(error instanceof FailureWithResult ? { result: error.result } : {}),
    },
    null,
    2,
  )}\n`;
}

/** What a failure means for a person: the exit code, the text to show, and its message in one line. */
export interface DescribedError {
  code: number;
  text: string;
  summary: string;
}

/** An error's text may quote the portal (an API error's message): its lines kept, nothing the terminal would act on. */
const shown = (text: string): string => terminalText(text, { lines: true });

/** The text of a failure (stderr), its exit code and its message. */
export function describeError(error: unknown, io: Pick<CommandIO, 'cwd' | 'color'>, verbose: boolean): DescribedError {
  const failure = error instanceof FailureWithResult ? error.failure : error;
  const summary = failure instanceof Error ? failure.message : String(failure);
  if (failure instanceof ConfigError) {
    const errors = failure.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    return { code: 1, text: `${renderDiagnostics(failure.diagnostics, io)}Error: invalid configuration (${counted(errors, 'error')} above); nothing was changed on the portal.\n`, summary };
  }
  if (failure instanceof InterruptedError) return { code: 130, text: `${shown(failure.message)}\n`, summary };
  let text = `Error: ${shown(summary)}\n`;
  // A portal slower than the wait is the usual cause; the flag that sets it is the CLI's to name.
  if (failure instanceof ApiNetworkError && failure.failure === 'timeout') text += '  A slow portal may need a longer wait for each answer: --request-timeout (default 30s), e.g. --request-timeout 2m.\n';
  if (failure instanceof PortalctlError) {
    if (verbose && failure.cause) text += `Caused by: ${shown(String(failure.cause))}\n`;
  } else if (failure instanceof Error && verbose && failure.stack) {
    text += `${shown(failure.stack)}\n`;
  }
  return { code: 1, text, summary };
}

/**
 * A mistake in the command line that commander reports itself (an unknown option, a missing
 * argument), as the JSON error document when `--format json` was asked for: a script reads one
 * document either way.
 */
export function commandLineErrorDocument(commanderText: string): string {
  return jsonReport(new UsageError(commanderText.replace(/^error: /, '').trim()));
}

/** Whether the command line asks for `--format json` (read before commander could parse it). */
export function asksForJson(argv: readonly string[]): boolean {
  return argv.some((arg, index) => arg === '--format=json' || (arg === '--format' && argv[index + 1] === 'json'));
}

/** A failure as the JSON error document of `--format json` (for one environment of a fleet: inside its entry). */
export function errorDocument(error: unknown): unknown {
  return JSON.parse(jsonReport(error)) as unknown;
}

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1, an interrupt 130. An
 * invalid config shows every problem once, as `validate` does, then a one-line summary. Under
 * `--format json` the error is a JSON document on stdout instead.
 */
export function reportError(
  error: unknown,
  io: Pick<CommandIO, 'stdout' | 'stderr' | 'cwd' | 'color'>,
  { verbose = false, json = false }: { verbose?: boolean; json?: boolean } = {},
): number {
  if (json) {
    io.stdout(jsonReport(error));
    return exitCodeOf(error);
  }
  const described = describeError(error, io, verbose);
  io.stderr(described.text);
  return described.code;
}

/** The exit code of several runs (a fleet): the worst of them. Interrupted, then error, then drift, then changes. */
export function worstExitCode(codes: readonly number[]): number {
  const rank = (code: number): number => (code === 130 ? 5 : code === 3 ? 3 : code === 2 ? 2 : code === 0 ? 0 : 4);
  return codes.reduce((worst, code) => (rank(code) > rank(worst) ? code : worst), 0);
}
