/**
 * `portalctl emulator` through the real CLI: the warning when the unauthenticated control API is
 * exposed beyond this machine, and a quiet exit when its output pipe is closed (`| head`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/bin/portalctl.js', import.meta.url));

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', ...args], { stdio: 'pipe' });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString('utf8')));
  return run;
}

/** Resolves once the emulator's output holds `text` (on the output event), or fails when it exits first. */
function printed(run: Run, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!run.stdout.includes(text)) return;
      run.child.stdout.off('data', check);
      resolve();
    };
    run.child.stdout.on('data', check);
    void run.exited.then((code) => reject(new Error(`the emulator exited (${code}) before printing "${text}":\n${run.stderr}`)));
    check();
  });
}

describe('portalctl emulator', () => {
  it('warns that the control API is exposed when listening on a non-loopback host', async () => {
    const run = start(['--host', '0.0.0.0']);
    await printed(run, 'Press Ctrl+C');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr).toMatch(/Warning: the emulator listens on 0\.0\.0\.0, reachable from other machines/);
    expect(run.stderr).toContain('/_emulator/');
    expect(run.stderr).toContain('no authentication');
  });

  it('prints no warning on loopback', async () => {
    const run = start(['--host', '127.0.0.1']);
    await printed(run, 'Press Ctrl+C');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stdout).toContain('Emulator stopped.');
    expect(run.stderr).toBe('');
  });

  it('exits quietly, without a stack trace, when its output pipe is closed', async () => {
    const run = start([]);
    await printed(run, 'REST URL');
    // What `| head -n 2` does once it has its lines: the reading end goes away.
    run.child.stdout.destroy();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stderr).toBe('');
  });
});
