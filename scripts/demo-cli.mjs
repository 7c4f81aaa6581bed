// What both demos share: running the built CLI as a user would, with the command shown first.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

// Colour only on a terminal, and never with NO_COLOR (https://no-color.org); the CLI decides the same for itself.
const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const bold = (text) => (colour ? `\x1b[1m${text}\x1b[0m` : text);

/** A function that runs `portalctl ARGS` from `root` with `env`, resolving with its exit code when it is one of `expected`. */
export function portalctlRunner(root, env) {
  const cli = join(root, 'dist', 'bin', 'portalctl.js');
  return (title, args, expected = [0]) => {
    process.stdout.write(`\n${bold(`$ portalctl ${args.join(' ')}`)}   # ${title}\n`);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: root, env, stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', (code) => (expected.includes(code ?? -1) ? resolve(code) : reject(new Error(`portalctl ${args[0]} exited with ${code}`))));
    });
  };
}
