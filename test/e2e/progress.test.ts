/**
 * Progress through the real CLI: on a pseudo-terminal a live line per phase (count, the
 * operation in flight, the time spent), cleared when the phase ends; on a pipe a line for a phase
 * that lasts (or for every phase, with the interval 0) and a heartbeat while it lasts, never a
 * control character.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, THREE_CHANGES, baseEnv, startCliPortal, waitFor, type CliPortal, type CliResult } from '../support/cli.js';
import { assertScriptAvailable, runOnTerminal, screenLines, startOnTerminal } from '../support/terminal.js';

/** Any C0 control character but the newline, or DEL: what a pipe must never receive. */
// eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/** The writes of THREE_CHANGES that tests hold; they start in plan order: item, policy, task. */
const POLICY_WRITE = '/portals/self/securityPolicy/update';
const ITEM_WRITE = '/content/items/*/setContentStatus';

describe('progress', () => {
  let portal: CliPortal;
  let config: string;
  beforeAll(() => assertScriptAvailable());
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(THREE_CHANGES);
  });
  afterEach(async () => portal.dispose());

  /** Lets the requests held by `hold` faults go on: those of the fault on `path`, or all. */
  async function release(path?: string): Promise<void> {
    const control = portal.emulator.controlUrl;
    let id: number | undefined;
    if (path !== undefined) {
      const { faults } = (await (await fetch(`${control}/faults`)).json()) as { faults: { id: number; path: string }[] };
      id = faults.find((fault) => fault.path === path)?.id;
      if (id === undefined) throw new Error(`No fault on ${path}.`);
    }
    const response = await fetch(`${control}/faults/release`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(id === undefined ? {} : { id }) });
    expect(response.ok).toBe(true);
  }

  it('on a pipe: quick phases print nothing by default', async () => {
    const applied = await portal.run(['apply', config, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toBe('');
  });

  it('on a pipe with the interval 0: one plain line per phase, in order, and no control character anywhere', async () => {
    const applied = await portal.run(['apply', config, '--auto-approve'], { env: { PORTALCTL_PROGRESS_INTERVAL: '0' } });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr.split('\n').filter(Boolean)).toEqual([
      'Reading the portal: 3 objects.',
      'Applying: 3 operations.',
      'Verifying what was written: reading 3 objects again.',
    ]);
    expect(applied.stdout).toContain('Apply finished: 3 applied, 0 failed, 0 skipped.');
    expect(applied.stdout + applied.stderr).not.toMatch(CONTROL);
  });

  it('on a pipe: a heartbeat with the count and the time spent while a phase lasts', async () => {
    // The password policy's read is held: the reading phase lasts until the test stops it.
    await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', delayMs: 60_000, count: 1 });
    const running = portal.start(['plan', config], { env: { PORTALCTL_PROGRESS_INTERVAL: '0.05' } });
    await waitFor(() => /Reading the portal: \d of 3 objects \(\d+s\)\n/.test(running.output().stderr), 'a heartbeat line', running.done);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines.slice(0, -1).every((line) => /^Reading the portal: \d of 3 objects \(\d+s\)$/.test(line)), result.stderr).toBe(true);
    expect(lines[lines.length - 1]).toBe('Interrupted: nothing was changed.');
    expect(result.stdout + result.stderr).not.toMatch(CONTROL);
  });

  it('on a pipe: a heartbeat names the operation in flight while applying lasts', async () => {
    await portal.fault({ path: '/portals/self/securityPolicy/update', method: 'POST', delayMs: 60_000, count: 1 });
    const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '1'], { env: { PORTALCTL_PROGRESS_INTERVAL: '0.05' } });
    await waitFor(() => /Applying: \d of 3 operations, now organization\.securityPolicy \(\d+s\)\n/.test(running.output().stderr), 'a heartbeat naming the held write', running.done);
    // The first Ctrl-C waits for the write in flight; the second stops at once.
    running.child.kill('SIGINT');
    await waitFor(() => running.output().stderr.includes('Ctrl-C'), 'the first interrupt acknowledged', running.done);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    expect(result.stdout + result.stderr).not.toMatch(CONTROL);
  });

  it('on a pipe: with several operations at once, the heartbeat names the one waited for longest, not the last started', async () => {
    // Started in plan order (item, policy, task); the policy's write is held, the other two finish.
    await portal.fault({ path: '/portals/self/securityPolicy/update', method: 'POST', delayMs: 60_000, count: 1 });
    const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '3'], { env: { PORTALCTL_PROGRESS_INTERVAL: '0.05' } });
    await waitFor(() => /Applying: 2 of 3 operations, now organization\.securityPolicy \(\d+s\)\n/.test(running.output().stderr), 'a heartbeat naming the held write', running.done);
    running.child.kill('SIGINT');
    await waitFor(() => running.output().stderr.includes('Ctrl-C'), 'the first interrupt acknowledged', running.done);
    running.child.kill('SIGINT');
    expect((await running.done).code).toBe(130);
  });

  it('on a pipe: two writes held, the older named with the count of the others', async () => {
    await portal.fault({ path: '/content/items/*/setContentStatus', method: 'POST', delayMs: 60_000, count: 1 });
    await portal.fault({ path: '/portals/self/securityPolicy/update', method: 'POST', delayMs: 60_000, count: 1 });
    const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '3'], { env: { PORTALCTL_PROGRESS_INTERVAL: '0.05' } });
    await waitFor(
      () => /Applying: 1 of 3 operations, now item\[1105a1562c9c4dd98e557595bf8a2617\]\.status — Parcels 2019 \(owner publisher1\) and 1 more \(\d+s\)\n/.test(running.output().stderr),
      'a heartbeat naming the older held write and one more',
      running.done,
    );
    running.child.kill('SIGINT');
    await waitFor(() => running.output().stderr.includes('Ctrl-C'), 'the first interrupt acknowledged', running.done);
    running.child.kill('SIGINT');
    expect((await running.done).code).toBe(130);
  });

  it('on a pipe: a write retried after a 503 is named while the run waits for its retry, not the one started after it', async () => {
    // The policy's write is answered 503 (Retry-After 0: retried at once), and its retry is held; the item's and the task's finish.
    await portal.fault({ path: POLICY_WRITE, method: 'POST', status: 503, retryAfter: 0, count: 1 });
    await portal.fault({ path: POLICY_WRITE, method: 'POST', hold: true, count: 1 });
    const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '3'], { env: { PORTALCTL_PROGRESS_INTERVAL: '0.05' } });
    const policyWrites = async () => (await portal.requests({ writesOnly: true })).filter((entry) => entry.path === POLICY_WRITE);
    await waitFor(async () => (await policyWrites()).length === 2, 'the retry of the policy write', running.done);
    // Only heartbeats from after the retry was sent count.
    const since = running.output().stderr.length;
    await waitFor(
      () => /Applying: 2 of 3 operations, now organization\.securityPolicy \(\d+s\)\n/.test(running.output().stderr.slice(since)),
      'a heartbeat naming the retried write',
      running.done,
    );
    await release();
    const result = await running.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply finished: 3 applied, 0 failed, 0 skipped.');
    expect((await policyWrites()).map((entry) => entry.response?.status)).toEqual([503, 200]);
  });

  it('on a terminal: with several writes held, the live line names the oldest and how many more, then the next once it is done', async () => {
    await portal.fault({ path: ITEM_WRITE, method: 'POST', hold: true, count: 1 });
    await portal.fault({ path: POLICY_WRITE, method: 'POST', hold: true, count: 1 });
    const running = startOnTerminal([process.execPath, CLI, 'apply', config, '--auto-approve', '--parallelism', '3', '--portal', portal.url, '--state', portal.statePath], {
      cwd: portal.dir,
      env: { ...baseEnv(), PORTALCTL_TOKEN: 'admin-token', PORTAL_URL: portal.url, TERM: 'xterm' },
      columns: 200,
    });
    const ended: Promise<CliResult> = running.done.then(({ code, output }) => ({ code, signal: null, stdout: output, stderr: output }));
    await waitFor(
      // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
      () => /\r\u001b\[2KApplying: 1 of 3 operations, now item\[1105a1562c9c4dd98e557595bf8a2617\]\.status — Parcels 2019 \(owner publisher1\) and 1 more \(\d+s\)/.test(running.output()),
      "the live line naming the item's held write and one more",
      ended,
    );
    await release(ITEM_WRITE);
    await waitFor(
      // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
      () => /\r\u001b\[2KApplying: 2 of 3 operations, now organization\.securityPolicy \(\d+s\)/.test(running.output()),
      "the live line naming the policy's write once the item's is done",
      ended,
    );
    await release();
    const result = await running.done;
    expect(result.code, result.output).toBe(0);
    const screen = screenLines(result.output);
    expect(screen.filter((line) => line.includes('Applying:'))).toEqual([]);
    expect(screen).toContain('Apply finished: 3 applied, 0 failed, 0 skipped.');
  });

  it('on a terminal: a live line per phase with the operation in flight and the time, cleared when done', async () => {
    const result = await runOnTerminal([process.execPath, CLI, 'apply', config, '--auto-approve', '--portal', portal.url, '--state', portal.statePath], {
      cwd: portal.dir,
      env: { ...baseEnv(), PORTALCTL_TOKEN: 'admin-token', PORTAL_URL: portal.url, TERM: 'xterm' },
      columns: 200,
    });
    expect(result.code, result.output).toBe(0);
    // Each frame rewrites the line in place: carriage return, erase-line, then the text.
    // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
    expect(result.output).toMatch(/\r\u001b\[2KReading the portal: \d of 3 objects \(\d+s\)/);
    // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
    expect(result.output).toMatch(/\r\u001b\[2KApplying: \d of 3 operations, now (organization\.securityPolicy|item\[1105a1562c9c4dd98e557595bf8a2617\]\.status — Parcels 2019 \(owner publisher1\)|user\[jsmith\]\.task\[a1b2c3\] — .+) \(\d+s\)/);
    // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
    expect(result.output).toMatch(/\r\u001b\[2KVerifying what was written: \d of 3 objects \(\d+s\)/);
    // No phase line is left on the screen; the result is.
    const screen = screenLines(result.output);
    expect(screen.filter((line) => /Reading the portal|Applying:|Verifying what was written/.test(line))).toEqual([]);
    expect(screen).toContain('Apply finished: 3 applied, 0 failed, 0 skipped.');
    // The plain phase lines are for pipes only.
    expect(result.output).not.toContain('Reading the portal: 3 objects.');
  });

  it('on a narrow terminal the live line is cut to its width, so it never wraps', async () => {
    const result = await runOnTerminal([process.execPath, CLI, 'plan', config, '--portal', portal.url, '--state', portal.statePath], {
      cwd: portal.dir,
      env: { ...baseEnv(), PORTALCTL_TOKEN: 'admin-token', PORTAL_URL: portal.url, TERM: 'xterm' },
      columns: 30,
    });
    expect(result.code, result.output).toBe(0);
    // eslint-disable-next-line no-control-regex -- terminal control characters are what is checked here
    const frames = [...result.output.matchAll(/\r\u001b\[2K([^\r\n]*)/g)].map((match) => match[1] ?? '').filter(Boolean);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames.filter((text) => text.startsWith('Reading'))) expect(frame.length).toBeLessThan(30);
  });
});
