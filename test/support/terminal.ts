/**
 * Runs the real CLI on a pseudo-terminal: `script` from util-linux (Debian's bsdutils, an
 * Essential package, so on every Debian machine) gives the child a terminal for stdin, stdout
 * and stderr and copies what the terminal shows to its own stdout. `stty` sets the terminal's
 * width first.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface TerminalResult {
  code: number | null;
  /** Everything written to the terminal, control characters included (the pty turns \n into \r\n). */
  output: string;
}

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Fails with a clear message when `script` is missing, instead of a confusing spawn error. */
export function assertScriptAvailable(): void {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error('The terminal tests need `script` from util-linux (Debian: bsdutils), which is not on the PATH.');
}

export interface TerminalOptions {
  cwd: string;
  env: Record<string, string>;
  columns?: number;
}

export function runOnTerminal(argv: readonly string[], options: TerminalOptions): Promise<TerminalResult> {
  return startOnTerminal(argv, options).done;
}

/** Starts the CLI on a pseudo-terminal; `output()` is what the terminal has shown so far (to wait for a frame while it runs). */
export function startOnTerminal(argv: readonly string[], options: TerminalOptions): { done: Promise<TerminalResult>; output: () => string } {
  const command = `stty cols ${options.columns ?? 120} rows 40; exec ${argv.map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const done = new Promise<TerminalResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  return { done, output: () => output };
}

/**
 * The lines a terminal shows at the end: each carriage return goes back to the line's start,
 * erase-line (ESC [ 2K) empties it, other escape sequences (colour) take no room.
 */
export function screenLines(output: string): string[] {
  const lines: string[] = [];
  for (const physical of output.replace(/\r\n/g, '\n').split('\n')) {
    let line = '';
    for (const [index, segment] of physical.split('\r').entries()) {
      let text = segment;
      if (text.startsWith('\u001b[2K')) {
        line = '';
        text = text.slice(4);
      }
      // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
      const visible = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
      line = index === 0 ? line + visible : visible + line.slice(visible.length);
    }
    lines.push(line);
  }
  return lines.filter((line, index, all) => line !== '' || index < all.length - 1);
}
