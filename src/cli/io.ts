/** The process edges a command may touch, passed in so commands can run inside tests. */
import { fstatSync, writeSync } from 'node:fs';
import { InterruptHandling, type GracefulStopTexts } from './interrupts.js';
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
   * stop); a second one ends the process at once. `texts` say so (default: writes in flight).
   * Returns the function that removes the hook.
   */
  onInterrupt?: (stop: () => void, texts?: GracefulStopTexts) => () => void;
  /** What an interrupt now would leave behind, e.g. "nothing was changed" (outside onInterrupt). */
  interruptNote?: (note: string) => void;
  /** The store with its locks released by an interrupt that ends the process. */
  guardLocks?: (store: StateStore) => StateStore;
  /** A live line at the bottom of the terminal, when stderr is one (progress.ts); other output goes above it. */
  statusLine?: StatusLine;
}

/** One line of the terminal rewritten in place; what else is written clears it first and shows it again after. */
export interface StatusLine {
  show(text: string): void;
  clear(): void;
}

/**
 * The status line on a terminal: `\r` and erase-line (ECMA-48 EL, as Node's readline.clearLine
 * writes it), the text cut to the terminal's width so it never wraps (a wrapped line could not be
 * erased in place). `wrap` makes a writer of the same terminal clear the line before writing and
 * show it again after a complete line.
 */
function terminalStatusLine(write: (text: string) => void, columns: () => number | undefined): StatusLine & { wrap(writer: (text: string) => void): (text: string) => void } {
  let shown: string | undefined;
  const erase = (): void => {
    if (shown !== undefined) write('\r\u001b[2K');
  };
  return {
    show(text) {
      const width = columns();
      const fitted = width && width > 1 && text.length >= width ? `${text.slice(0, width - 2)}…` : text;
      if (fitted === shown) return;
      write(`\r\u001b[2K${fitted}`);
      shown = fitted;
    },
    clear() {
      erase();
      shown = undefined;
    },
    wrap: (writer) => (text) => {
      if (shown === undefined) return writer(text);
      erase();
      writer(text);
      if (text.endsWith('\n')) write(shown);
      else shown = undefined;
    },
  };
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

/**
 * Output to a pipe or a file, written straight to the descriptor. Creating process.stdout or
 * process.stderr for a pipe loads Node's net and stream modules, which a short command does not
 * otherwise need. Writes are synchronous, as the streams' are for pipes and files on Linux.
 * A descriptor in non-blocking mode (EAGAIN) hands the rest to the stream; any other failure
 * (the reader went away) closes the output quietly, as quietWriter does.
 */
function descriptorWriter(fd: number, stream: () => NodeJS.WriteStream): (text: string) => void {
  let open = true;
  let viaStream: ((text: string) => void) | undefined;
  return (text) => {
    if (viaStream) return viaStream(text);
    if (!open) return;
    let rest = Buffer.from(text);
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
        open = false;
        return;
      }
      const writer = stream();
      viaStream = quietWriter(writer);
      if (!writer.destroyed) writer.write(rest);
    }
  };
}

/** Only a character device can be a terminal; pipes, sockets and files are written directly. */
function outputWriter(fd: 1 | 2, stream: () => NodeJS.WriteStream): { write: (text: string) => void; mayBeTerminal: boolean } {
  let mayBeTerminal = true;
  try {
    mayBeTerminal = fstatSync(fd).isCharacterDevice();
  } catch {
    // Unknown: leave it to the stream.
  }
  return { write: mayBeTerminal ? quietWriter(stream()) : descriptorWriter(fd, stream), mayBeTerminal };
}

/**
 * Colour: never with --no-color; with FORCE_COLOR set (not 0 or false) also off a terminal, as in
 * CI logs that show colour (Node's and chalk's convention: it wins over NO_COLOR); never with
 * NO_COLOR set (https://no-color.org); otherwise on a terminal only.
 */
export function wantsColor(isTTY: boolean, flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flag === false) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  return isTTY && !env['NO_COLOR'];
}

export function processIO(options: { color?: boolean; interrupts?: boolean } = {}): CommandIO {
  const output = outputWriter(1, () => process.stdout);
  const errors = outputWriter(2, () => process.stderr);
  // Asked only when stdout may be a terminal, so that a pipe never creates the stream.
  const isTTY = output.mayBeTerminal && Boolean(process.stdout.isTTY);
  const status = errors.mayBeTerminal && process.stderr.isTTY ? terminalStatusLine(errors.write, () => process.stderr.columns) : undefined;
  const stderr = status ? status.wrap(errors.write) : errors.write;
  // Only output to the same terminal must make room for the status line.
  const stdout = status && isTTY ? status.wrap(output.write) : output.write;
  const columns = isTTY ? process.stdout.columns : undefined;
  const interactive = isTTY && Boolean(process.stdin.isTTY);
  const io: CommandIO = {
    stdout,
    stderr,
    env: process.env,
    cwd: process.cwd(),
    color: wantsColor(isTTY, options.color, process.env),
    ...(columns ? { width: columns } : {}),
    isTTY: interactive,
    ...(interactive ? { confirm: askOnTerminal } : {}),
    ...(status ? { statusLine: status } : {}),
  };
  if (options.interrupts === false) return io;
  const interrupts = new InterruptHandling(stderr);
  interrupts.install();
  return {
    ...io,
    onInterrupt: (stop, texts) => interrupts.gracefully(stop, texts),
    interruptNote: (note) => interrupts.setNote(note),
    guardLocks: (store) => interrupts.trackLocks(store),
  };
}
