/** The process edges a command may touch, passed in so commands can run inside tests. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Colour and progress only on a TTY (and not with --no-color). */
  color: boolean;
  isTTY: boolean;
  /** Ask a yes/no question on the TTY; absent when there is no TTY. */
  confirm?: (question: string) => Promise<boolean>;
}

export function processIO(options: { color?: boolean } = {}): CommandIO {
  const isTTY = Boolean(process.stdout.isTTY);
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    color: isTTY && options.color !== false && !process.env['NO_COLOR'],
    isTTY: isTTY && Boolean(process.stdin.isTTY),
  };
}
