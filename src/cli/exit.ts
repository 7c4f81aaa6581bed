import { ConfigError } from '../engine/config/errors.js';
import { InterruptedError, PortalctlError } from '../core/errors.js';
import { terminalText } from '../engine/render/escape.js';
import { renderDiagnostics } from './diagnostics.js';
import type { CommandIO } from './io.js';

/**
 * The one place where failures become exit codes (DESIGN.md "Exit codes"). Commands return
 * 0/2/3 for their outcomes and throw for errors; every error exits 1, an interrupt 130. An
 * invalid config shows every problem once, as `validate` does, then a one-line summary.
 */
/** An error's text may quote the portal (an API error's message): its lines kept, nothing the terminal would act on. */
const shown = (text: string): string => terminalText(text, { lines: true });

export function reportError(error: unknown, io: Pick<CommandIO, 'stderr' | 'cwd' | 'color'>, verbose: boolean): number {
  if (error instanceof ConfigError) {
    io.stderr(renderDiagnostics(error.diagnostics, io));
    const errors = error.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    io.stderr(`Error: invalid configuration (${errors} error${errors === 1 ? '' : 's'} above); nothing was sent to the portal.\n`);
  } else if (error instanceof InterruptedError) {
    io.stderr(`${shown(error.message)}\n`);
    return 130;
  } else if (error instanceof PortalctlError) {
    io.stderr(`Error: ${shown(error.message)}\n`);
    if (verbose && error.cause) io.stderr(`Caused by: ${shown(String(error.cause))}\n`);
  } else if (error instanceof Error) {
    io.stderr(`Error: ${shown(error.message)}\n`);
    if (verbose && error.stack) io.stderr(`${shown(error.stack)}\n`);
  } else {
    io.stderr(`Error: ${shown(String(error))}\n`);
  }
  return 1;
}
