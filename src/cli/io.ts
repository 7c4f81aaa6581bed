/** The process edges a command may touch, passed in so commands can run inside tests. */
import { InterruptHandling } from './interrupts.js';
import type { StateStore } from '../state/index.js';

export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Colour and progress only on a TTY (and not with --no-color). */
  color: boolean;
  /** The terminal's width in columns when stdout is a terminal; renderings fit values to it. */
  width?: number;
  isTTY: boolean;
  /** Ask a yes/no question on the TTY; absent when there is no TTY. */
  confirm?: (question: string) => Promise<boolean>;
  /**
   * While writing to the portal: the first Ctrl-C calls `stop` (finish what is in flight, then
   * stop); a second one ends the process at once. Returns the function that removes the hook.
   */
  onInterrupt?: (stop: () => void) => () => void;
  /** What an interrupt now would leave behind, e.g. "nothing was changed" (outside onInterrupt). */
  interruptNote?: (note: string) => void;
  /** The store with its locks released by an interrupt that ends the process. */
  guardLocks?: (store: StateStore) => StateStore;
}

async function askOnTerminal(question: string): Promise<boolean> {
  // Loaded only when a question is asked: every command pays for what it imports at start-up.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // The terminal is in raw mode while asking: Ctrl-C reaches readline, not the process.
  rl.on('SIGINT', () => void process.emit('SIGINT'));
  try {
    return (await rl.question(`${question} Only 'yes' is accepted: `)).trim() === 'yes';
  } finally {
    rl.close();
  }
}

/**
 * A stream whose reader went away (`portalctl plan | head`) is closed quietly: later output is
 * dropped, the command goes on to its normal end (an apply still records what it applied).
 */
function quietWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let open = true;
  stream.on('error', () => {
    open = false;
  });
  return (text) => {
    if (open && !stream.destroyed) stream.write(text);
  };
}

/** Colour only on a terminal, and never with --no-color or NO_COLOR set (https://no-color.org). */
export function wantsColor(isTTY: boolean, flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return isTTY && flag !== false && !env['NO_COLOR'];
}

export function processIO(options: { color?: boolean; interrupts?: boolean } = {}): CommandIO {
  const isTTY = Boolean(process.stdout.isTTY);
  const columns = isTTY ? process.stdout.columns : undefined;
  const interactive = isTTY && Boolean(process.stdin.isTTY);
  const stdout = quietWriter(process.stdout);
  const stderr = quietWriter(process.stderr);
  const io: CommandIO = {
    stdout,
    stderr,
    env: process.env,
    cwd: process.cwd(),
    color: wantsColor(isTTY, options.color, process.env),
    ...(columns ? { width: columns } : {}),
    isTTY: interactive,
    ...(interactive ? { confirm: askOnTerminal } : {}),
  };
  if (options.interrupts === false) return io;
  const interrupts = new InterruptHandling(stderr);
  interrupts.install();
  return {
    ...io,
    onInterrupt: (stop) => interrupts.gracefully(stop),
    interruptNote: (note) => interrupts.setNote(note),
    guardLocks: (store) => interrupts.trackLocks(store),
  };
}
