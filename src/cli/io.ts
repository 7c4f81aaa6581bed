/** The process edges a command may touch, passed in so commands can run inside tests. */
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
   * Ctrl-C during a long command: the first calls `stop` (finish what is in flight, then
   * stop); a second one ends the process at once. Returns the function that removes the hook.
   */
  onInterrupt?: (stop: () => void) => () => void;
}

async function askOnTerminal(question: string): Promise<boolean> {
  // Loaded only when a question is asked: every command pays for what it imports at start-up.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(`${question} Only 'yes' is accepted: `)).trim() === 'yes';
  } finally {
    rl.close();
  }
}

function interruptHook(stop: () => void): () => void {
  let interrupts = 0;
  const handler = (): void => {
    interrupts += 1;
    if (interrupts === 1) {
      process.stderr.write('\nInterrupted: finishing the operations in flight and recording them. Press Ctrl-C again to stop at once.\n');
      stop();
    } else {
      process.stderr.write('\nStopped at once. Operations in flight may or may not have completed; run plan to see.\n');
      process.exit(130);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Colour only on a terminal, and never with --no-color or NO_COLOR set (https://no-color.org). */
export function wantsColor(isTTY: boolean, flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return isTTY && flag !== false && !env['NO_COLOR'];
}

export function processIO(options: { color?: boolean } = {}): CommandIO {
  const isTTY = Boolean(process.stdout.isTTY);
  const columns = isTTY ? process.stdout.columns : undefined;
  const interactive = isTTY && Boolean(process.stdin.isTTY);
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    color: wantsColor(isTTY, options.color, process.env),
    ...(columns ? { width: columns } : {}),
    isTTY: interactive,
    ...(interactive ? { confirm: askOnTerminal } : {}),
    onInterrupt: interruptHook,
  };
}
