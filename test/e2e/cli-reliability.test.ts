/**
 * The CLI's edges through the real binary: a reader that goes away (broken pipe), interrupts
 * while the portal is read, targets that match nothing, files that cannot be read or written,
 * messages printed once and in good English, the invites directory, Retry-After notices.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { FileStateStore, PostgresStateStore, newState } from '../../src/state/index.js';
import { CLI, CONFIG_HEADER, REPO_ROOT, startCliPortal, THREE_CHANGES, waitFor, type CliPortal, type CliResult } from '../support/cli.js';

const INVITATION = `${CONFIG_HEADER}collaborations:
  - id: c0ffee
    participants:
      - guestPortalUrl: https://partner.example.org/portal
        workspaces: { w1: sendAndReceive }
`;

const POLICY_UPDATE = '/portals/self/securityPolicy/update';
const POLICY_READ = '/portals/self/securityPolicy';

/** Lets the requests held by `hold` faults go on. */
async function releaseHeld(portal: CliPortal): Promise<void> {
  const response = await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
  if (!response.ok) throw new Error(`release: HTTP ${response.status}`);
}

const noStackTrace = (result: CliResult): void => {
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toMatch(/EPIPE|ENOENT|node:internal/);
};

describe('CLI reliability', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(THREE_CHANGES);
  });
  afterEach(async () => portal.dispose());

  it('a reader that goes away (plan | head) ends the command quietly', async () => {
    for (const args of [['plan', config, '--format', 'json'], ['schema']]) {
      const running = portal.start(args);
      // The read end is closed before the child writes anything: every write meets a broken pipe.
      running.child.stdout?.destroy();
      const result = await running.done;
      expect(result.stderr, args.join(' ')).toBe('');
      expect(result.code, args.join(' ')).toBe(0);
    }
  });

  it('Ctrl-C or SIGTERM while the portal is read: says nothing was changed, releases the lock, exits 130', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      await portal.clearRequests();
      await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', delayMs: 30_000, count: 1 });
      const running = portal.start(['apply', config, '--auto-approve']);
      await waitFor(async () => (await portal.requests()).some((entry) => entry.path === '/portals/self/securityPolicy'), 'the slow read', running.done);
      expect(await portal.store.currentLock()).toBeDefined();
      running.child.kill(signal);
      const result = await running.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('Interrupted: nothing was changed.');
      expect(result.stderr).toContain('Released the state lock');
      noStackTrace(result);
      expect(await portal.store.currentLock()).toBeUndefined();
      expect(await portal.requests({ writesOnly: true })).toEqual([]);
      await portal.clearFaults();
    }
    // The lock is free: the next apply runs at once.
    const again = await portal.run(['apply', config, '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('Ctrl-C while apply checks the result abandons the check and reports what was applied, as the other interrupted phases do', async () => {
    const applied = ['organization.securityPolicy', 'item[1105a1562c9c4dd98e557595bf8a2617].status', 'user[jsmith].task[a1b2c3]'];
    for (const format of ['text', 'json'] as const) {
      await portal.fault({ path: POLICY_UPDATE, method: 'POST', hold: true });
      const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '1', '--format', format]);
      await waitFor(async () => (await portal.requests()).some((entry) => entry.path === POLICY_UPDATE), 'the held write', running.done);
      // The writes finish; the check that follows is held at its read of the policy.
      await portal.fault({ path: POLICY_READ, method: 'GET', hold: true });
      await releaseHeld(portal);
      await waitFor(async () => (await portal.requests()).filter((entry) => entry.path === POLICY_READ).length === 2, 'the check to read the policy again', running.done);
      const readsWhenStopped = (await portal.requests()).length;
      running.child.kill('SIGINT');
      const result = await running.done;
      expect(result.code, result.stderr).toBe(130);
      const interrupted = 'Apply was interrupted: 3 applied and recorded; the check that the portal converged did not finish (run plan to see what is left).';
      if (format === 'text') {
        // What the apply summary says, and each operation named as it was applied, then the interrupt.
        for (const address of applied) expect(result.stdout).toMatch(new RegExp(`^applied  ${address.replace(/[[\].]/g, '\\$&')}`, 'm'));
        expect(result.stdout).toMatch(/\nApply finished: 3 applied, 0 failed, 0 skipped\.\n$/);
        expect(result.stderr).toBe(`\nInterrupted: abandoning the check that the portal converged; what was applied is recorded.\n${interrupted}\n`);
      } else {
        // The error document carries the result: the operations applied, by address.
        const document = JSON.parse(result.stdout) as { exitCode: number; error: string; result: { applied: string[]; interrupted: boolean; converged: boolean } };
        expect(document).toMatchObject({ exitCode: 130, error: interrupted, result: { interrupted: true, converged: false } });
        expect([...document.result.applied].sort()).toEqual([...applied].sort());
      }
      expect(result.stderr).not.toContain('may or may not have completed');
      noStackTrace(result);
      expect(await portal.store.currentLock()).toBeUndefined();
      // The check's read in flight was abandoned, and no other was sent.
      expect((await portal.requests()).length).toBe(readsWhenStopped);
      await portal.clearFaults();
      await releaseHeld(portal);
      const recorded = await portal.recorded();
      expect(Object.keys(recorded?.resources ?? {}).sort()).toEqual(['item[1105a1562c9c4dd98e557595bf8a2617].status', 'organization.securityPolicy', 'user[jsmith].task[a1b2c3]']);
      // The next plan shows that nothing is left.
      const plan = await portal.run(['plan', config, '--detailed-exitcode']);
      expect(plan.stdout).toBe('No changes. The portal matches the configuration.\n');
      expect(plan.code).toBe(0);
      // Afresh for the next format: the sample organization, no state.
      await fetch(`${portal.emulator.controlUrl}/reset`, { method: 'POST' });
      await rm(portal.statePath);
      await portal.clearRequests();
    }
  });

  it('a mistyped database URL (one slash) is refused before anything is read, its password never printed', async () => {
    const result = await portal.run(['plan', config], { state: 'postgres:/ci:S3cretPw@db.example.com/portalctl' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: --state postgres:/ci@db.example.com/portalctl is not a valid PostgreSQL URL');
    expect(result.stdout + result.stderr).not.toContain('S3cretPw');
    noStackTrace(result);
    expect(await portal.requests()).toEqual([]);
  });

  it('Ctrl-C while plan reads the portal says so and exits 130', async () => {
    await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', delayMs: 30_000, count: 1 });
    const running = portal.start(['plan', config]);
    await waitFor(async () => (await portal.requests()).some((entry) => entry.path === '/portals/self/securityPolicy'), 'the slow read', running.done);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupted: nothing was changed.');
  });

  it('a --target that selects no declared object is an error naming it and the closest addresses', async () => {
    const plan = await portal.run(['plan', config, '--target', 'user[jsmiht]']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('--target "user[jsmiht]" selects no declared object. Did you mean user[jsmith]?');
    expect(plan.stdout).not.toContain('No changes');

    const apply = await portal.run(['apply', config, '--auto-approve', '--target', 'organization.securityPolicyy']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('--target "organization.securityPolicyy" selects no declared object. Did you mean organization.securityPolicy?');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // Whole first steps of a declared address still target it.
    const prefix = await portal.run(['plan', config, '--target', 'user[jsmith]', '--detailed-exitcode']);
    expect(prefix.code).toBe(2);
  });

  it('a missing --plan file and a bad --out path get clear messages, not Node errors; --out never overwrites a config', async () => {
    const missing = await portal.run(['apply', '--plan', 'no-such-plan.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error: Could not read the plan file no-such-plan.json: no such file or directory.\n');

    // A missing directory is created (a pipeline's artifacts/ folder), as import --out creates it; a path through a file cannot be one.
    const saved = await portal.run(['plan', config, '--out', 'artifacts/plans/plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(portal.dir, 'artifacts/plans/plan.json'), 'utf8'))).toHaveProperty('formatVersion');
    await writeFile(join(portal.dir, 'not-a-directory'), '');
    const out = await portal.run(['plan', config, '--out', 'not-a-directory/plan.json']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('Error: Could not write the plan to not-a-directory/plan.json: a part of the path is not a directory; nothing was read or written.');
    noStackTrace(out);

    const directory = await portal.run(['plan', config, '--out', '.']);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toContain('Error: --out . names a directory: name a file in it, e.g. --out plan.json; nothing was read or written.');
    // A path ending in a slash names one too, existing or not (it wrote a file named `plans`).
    const slash = await portal.run(['plan', config, '--out', 'plans/']);
    expect(slash.code).toBe(1);
    expect(slash.stderr).toContain('Error: --out plans/ names a directory: name a file in it, e.g. --out plans/plan.json; nothing was read or written.');
    expect(existsSync(join(portal.dir, 'plans'))).toBe(false);

    // --out replaces a plan saved before, never another file: a config named by mistake is kept, and nothing is read.
    await portal.clearRequests();
    const configFile = join(config, 'portalctl.yaml');
    const configText = await readFile(configFile, 'utf8');
    const overConfig = await portal.run(['plan', config, '--out', configFile]);
    expect(overConfig.code).toBe(1);
    expect(overConfig.stderr).toContain(`${configFile} exists and is not a saved plan: --out replaces only a plan file. Choose another path, or remove ${configFile}; nothing was read or written.`);
    expect(await readFile(configFile, 'utf8')).toBe(configText);
    // Nor a state file, whose JSON starts with a formatVersion too (the plan was written over it).
    const stateFile = join(portal.dir, 'portalctl.state.json');
    await new FileStateStore({ path: stateFile }).write(newState({ url: portal.url, id: '0123456789ABCDEF' }));
    const stateText = await readFile(stateFile, 'utf8');
    const overState = await portal.run(['plan', config, '--out', 'portalctl.state.json']);
    expect(overState.code).toBe(1);
    expect(overState.stderr).toBe('Error: portalctl.state.json is a portalctl state file: --out replaces only a plan file. Save the plan to another path, such as plan.json; nothing was read or written.\n');
    expect(await readFile(stateFile, 'utf8')).toBe(stateText);
    for (const args of [['apply', '--plan', 'portalctl.state.json'], ['show', 'portalctl.state.json']]) {
      const given = await portal.run(args);
      expect(given.stderr, args[0]).toBe('Error: portalctl.state.json is a portalctl state file, not a saved plan: save a plan with `portalctl plan --out plan.json` and give that file.\n');
    }
    expect(await portal.requests()).toEqual([]);
    const first = await portal.run(['plan', config, '--out', 'again.plan.json']);
    expect(first.code, first.stderr).toBe(0);
    expect((await stat(join(portal.dir, 'again.plan.json'))).mode & 0o777).toBe(0o600);
    const again = await portal.run(['plan', config, '--out', 'again.plan.json']);
    expect(again.code, again.stderr).toBe(0);
    // A pipe (`--out /dev/stdout` in a shell pipeline) is written to as it is, never read first or replaced.
    const fifo = join(portal.dir, 'plan.fifo');
    execFileSync('mkfifo', [fifo]);
    const received = readFile(fifo, 'utf8');
    const piped = await portal.run(['plan', config, '--out', fifo]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(await received).toMatch(/^\{\n {2}"formatVersion": 1,/);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    // This command's own standard output is refused: the plan's text goes there too (and a socket,
    // as a Node parent gives, cannot even be opened by that name).
    await portal.clearRequests();
    const toStdout = await portal.run(['plan', config, '--out', '/dev/stdout']);
    expect(toStdout.code).toBe(1);
    expect(toStdout.stderr).toContain("--out /dev/stdout is this command's standard output, where the plan's text goes too");
    expect(toStdout.stdout).toBe('');
    expect(await portal.requests()).toEqual([]);
    // Standard output redirected to a file (`>> plan.txt`): the same refusal; the rename replaced that file with the plan.
    const redirected = join(portal.dir, 'plan.txt');
    await writeFile(redirected, '');
    const inode = (await stat(redirected)).ino;
    const output = openSync(redirected, 'a');
    const toFile = spawnSync(process.execPath, [CLI, 'plan', config, '--out', '/dev/stdout', '--portal', portal.url, '--state', portal.statePath], {
      env: { ...process.env, PORTALCTL_TOKEN: 'admin-token' },
      stdio: ['ignore', output, 'pipe'],
      encoding: 'utf8',
    });
    closeSync(output);
    expect(toFile.status).toBe(1);
    expect(toFile.stderr).toContain("--out /dev/stdout is this command's standard output, where the plan's text goes too");
    expect((await stat(redirected)).ino).toBe(inode);
    expect(await readFile(redirected, 'utf8')).toBe('');

    // import --out creates missing directories; a path through a file cannot be one, which is
    // said before the portal is read (it was said after reading the whole organization).
    await writeFile(join(portal.dir, 'a-file'), '');
    await portal.clearRequests();
    const imported = await portal.run(['import', '--out', 'a-file/portal.yaml']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe('Error: Could not write the config to a-file/portal.yaml: a part of the path is not a directory; nothing was read.\n');
    expect(await portal.requests()).toEqual([]);
    // A directory is no file to write the config to: not "already exists, pass --force".
    await mkdir(join(portal.dir, 'configs'));
    for (const out of ['configs', 'new-config/']) {
      const intoDirectory = await portal.run(['import', '--out', out]);
      expect(intoDirectory.code, out).toBe(1);
      expect(intoDirectory.stderr).toBe(`Error: --out ${out} names a directory: name a file in it, e.g. --out ${join(out, 'portalctl.yaml')}; nothing was read.\n`);
    }
    expect(existsSync(join(portal.dir, 'new-config'))).toBe(false);
    // import --out /dev/stdout writes the config there, as without --out (opened by name, a Node
    // parent's socket failed with ENXIO after the whole organization was read); the JSON report,
    // which goes there too, is refused before anything is read.
    const plain = await portal.run(['import']);
    const importedToStdout = await portal.run(['import', '--out', '/dev/stdout']);
    expect(importedToStdout.code, importedToStdout.stderr).toBe(0);
    expect(importedToStdout.stdout).toBe(plain.stdout);
    expect(importedToStdout.stdout).toContain('securityPolicy:');
    await portal.clearRequests();
    const report = await portal.run(['import', '--out', '/dev/stdout', '--format', 'json']);
    expect(report.code).toBe(1);
    // The refusal is the one JSON document on standard output, as every error with --format json.
    expect((JSON.parse(report.stdout) as { error: string }).error).toContain("--out /dev/stdout is this command's standard output, where the JSON report goes too");
    expect(await portal.requests()).toEqual([]);
  });

  // Root may write anywhere: the refusal is for everyone else.
  it.runIf(process.getuid?.() !== 0)('an --out directory that may not be written in is said before the portal is read, for import and plan', async () => {
    const config = await portal.writeConfig(THREE_CHANGES);
    await mkdir(join(portal.dir, 'read-only'));
    await chmod(join(portal.dir, 'read-only'), 0o555);
    await portal.clearRequests();
    const imported = await portal.run(['import', '--out', 'read-only/new/portal.yaml']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe('Error: Could not write the config to read-only/new/portal.yaml: permission denied; nothing was read.\n');
    const planned = await portal.run(['plan', config, '--out', 'read-only/plan.json']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toBe('Error: Could not write the plan to read-only/plan.json: permission denied; nothing was read or written.\n');
    expect(await portal.requests()).toEqual([]);
    await chmod(join(portal.dir, 'read-only'), 0o755);
  });

  it('--request-timeout bounds each attempt: a slow first answer is waited for that long, then asked again', async () => {
    // The first answer of portals/self would take 20 s; the second comes at once.
    await portal.fault({ path: '/portals/self', method: 'GET', delayMs: 20_000, count: 1 });
    const plan = await portal.run(['plan', config, '--request-timeout', '1s', '--verbose']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(/^GET \/portals\/self timeout \d+ms\n/m);
    expect(plan.stderr).toMatch(/^GET \/portals\/self 200 \d+ms \(attempt 2\)$/m);
    for (const value of ['0s', 'soon']) {
      const refused = await portal.run(['plan', config, '--request-timeout', value]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`--request-timeout takes a duration`);
    }
    // Past what a Node timer takes, a wait would end at once (every request timed out, with Node's warning).
    await portal.clearRequests();
    for (const flag of ['--request-timeout', '--lock-timeout']) {
      const tooLong = await portal.run(['apply', config, '--auto-approve', flag, '1000h']);
      expect(tooLong.code).toBe(1);
      expect(tooLong.stderr).toBe(`Error: ${flag} takes a duration of at most 596h (about 24 days), not "1000h".\n`);
    }
    expect(await portal.requests()).toEqual([]);
    const longest = await portal.run(['plan', config, '--request-timeout', '596h']);
    expect(longest.code, longest.stderr).toBe(0);
    expect(longest.stderr).toBe('');
  });

  it('a portal with nothing listening: the error says how many attempts were made before giving up', async () => {
    await portal.close();
    const plan = await portal.run(['plan', config]);
    expect(plan.code).toBe(1);
    // Only the error line: a progress heartbeat may come before it, as the retries take seconds.
    const error = plan.stderr.split('\n').filter((line) => line.startsWith('Error: '));
    // The default: 4 retries after the first attempt. The time is measured, not asserted.
    expect(error.map((line) => line.replace(/ over \d+(\.\d+)? m?s$/, ' over <duration>'))).toEqual([
      `Error: GET /portals/self failed: could not reach the portal at ${new URL(portal.url).host} (ECONNREFUSED); tried 5 times over <duration>`,
    ]);
    noStackTrace(plan);
  });

  it('a portal that answers 503 to every attempt: the error says how many attempts were made, as for no answer', async () => {
    // Retry-After 0: the retries do not wait.
    await portal.fault({ path: '/portals/self', method: 'GET', status: 503, retryAfter: 0, count: 0 });
    const plan = await portal.run(['plan', config]);
    expect(plan.code).toBe(1);
    const error = plan.stderr.split('\n').filter((line) => line.startsWith('Error: '));
    expect(error.map((line) => line.replace(/ over \d+(\.\d+)? m?s$/, ' over <duration>'))).toEqual([
      'Error: GET /portals/self failed: HTTP 503 Service Unavailable (code 503); tried 5 times over <duration>',
    ]);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('config errors are printed once', async () => {
    const invalid = await portal.writeConfig(`${CONFIG_HEADER}roles:\n  - { id: r1, name: 5 }\n`, 'invalid');
    const plan = await portal.run(['plan', invalid]);
    expect(plan.code).toBe(1);
    expect(plan.stderr.split('roles[0].name must be a string').length - 1).toBe(1);
    expect(plan.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');
  });

  it('"An organization", not "A organization"', async () => {
    const result = await portal.run(['validate', join(REPO_ROOT, 'test/config/fixtures/rules/organization-too-many-categories.yaml')]);
    expect(result.stdout).toContain('An organization holds at most');
    expect(result.stdout).not.toMatch(/\bA organization\b/);
  });

  it('a Retry-After wait is said while it lasts (--verbose)', async () => {
    await portal.fault({ path: '/portals/self/securityPolicy/update', status: 429, retryAfter: 1 });
    const apply = await portal.run(['apply', config, '--auto-approve', '--verbose']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('Waiting 1s before retrying POST /portals/self/securityPolicy/update, as the portal asked (Retry-After).');
    // The notice comes before the retried request.
    expect(apply.stderr.indexOf('Waiting 1s')).toBeLessThan(apply.stderr.lastIndexOf('POST /portals/self/securityPolicy/update 200'));
  });

  it('an invites directory others can write, or a symbolic link, is refused before anything is sent', async () => {
    const inviting = await portal.writeConfig(INVITATION, 'inviting');
    const open = join(portal.dir, 'open-invites');
    await mkdir(open);
    await chmod(open, 0o777);
    const shared = await portal.run(['apply', inviting, '--auto-approve', '--invites-dir', 'open-invites']);
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain(`The invites directory ${open} can be written by everyone (mode 777).`);
    expect(shared.stderr).toContain('Nothing was sent.');

    const real = join(portal.dir, 'private');
    await mkdir(real, { mode: 0o700 });
    await symlink(real, join(portal.dir, 'linked'));
    const linked = await portal.run(['apply', inviting, '--auto-approve', '--invites-dir', 'linked']);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain('is a symbolic link');
    // chmod would follow the link and change nothing: the directory it leads to is named instead.
    expect(linked.stderr).toContain(`Nothing was sent. Name the directory it leads to with --invites-dir (${await realpath(real)}), or another.`);
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    const fine = await portal.run(['apply', inviting, '--auto-approve', '--invites-dir', 'private']);
    expect(fine.code, fine.stderr).toBe(0);
    expect(await readdir(real)).toEqual(['collaboration-partner.example.org.invite']);
  });
});

describe('interrupts with the state in PostgreSQL', () => {
  const url = inject('postgresUrl');
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  it('Ctrl-C while the portal is read releases the database lock', async () => {
    const config = await portal.writeConfig(THREE_CHANGES);
    const name = `interrupt-${process.pid}-${Date.now()}`;
    const store = new PostgresStateStore({ url, name });
    try {
      await portal.fault({ path: '/portals/self/securityPolicy', method: 'GET', delayMs: 30_000, count: 1 });
      const running = portal.start(['apply', config, '--auto-approve', '--state-name', name], { state: url });
      await waitFor(async () => (await portal.requests()).some((entry) => entry.path === '/portals/self/securityPolicy'), 'the slow read', running.done);
      expect(await store.currentLock()).toBeDefined();
      running.child.kill('SIGINT');
      const result = await running.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('Interrupted: nothing was changed.');
      expect(await store.currentLock()).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a second Ctrl-C while a write is in flight stops at once, says so, releases the database lock; the next plan shows what is left', async () => {
    const config = await portal.writeConfig(THREE_CHANGES);
    const name = `interrupt-twice-${process.pid}-${Date.now()}`;
    const store = new PostgresStateStore({ url, name });
    try {
      await portal.fault({ path: POLICY_UPDATE, method: 'POST', hold: true });
      const running = portal.start(['apply', config, '--auto-approve', '--parallelism', '1', '--state-name', name], { state: url });
      await waitFor(async () => (await portal.requests()).some((entry) => entry.path === POLICY_UPDATE), 'the held write', running.done);
      running.child.kill('SIGINT');
      await waitFor(() => running.output().stderr.includes('Interrupted: finishing the operations in flight'), 'the first interrupt to be acknowledged', running.done);
      running.child.kill('SIGINT');
      const result = await running.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('\nStopped at once. Operations in flight may or may not have completed; run plan to see.\nReleased the state lock on postgres://');
      noStackTrace(result);
      expect(await store.currentLock()).toBeUndefined();
      // The portal had the write whole: released, it performs it for a client that is gone.
      await releaseHeld(portal);
      await waitFor(async () => (await portal.state()).organization.securityPolicy.minLength === 12, 'the held write to be performed');
      expect(Object.keys((await store.read())?.resources ?? {})).toEqual(['item[1105a1562c9c4dd98e557595bf8a2617].status']);
      const plan = await portal.run(['plan', config, '--detailed-exitcode', '--state-name', name], { state: url });
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.\n');
      expect(plan.stdout).toContain('  ~ user[jsmith].task[a1b2c3] — Survey culverts (Jane Smith)  (E7 Enable task)\n');
      const apply = await portal.run(['apply', config, '--auto-approve', '--state-name', name], { state: url });
      expect(apply.code, apply.stderr).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe('the PostgreSQL password kept out of the URL', () => {
  const url = inject('postgresUrl');
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  it('comes from PGPASSWORD, or from a password file (PGPASSFILE, ~/.pgpass) without any warning', async () => {
    const config = await portal.writeConfig(THREE_CHANGES);
    const parsed = new URL(url);
    const password = decodeURIComponent(parsed.password);
    parsed.password = '';
    const bare = parsed.toString();
    const passwordFile = join(portal.dir, 'pgpass');
    await writeFile(passwordFile, `# host:port:database:user:password\n${parsed.hostname}:${parsed.port}:*:${parsed.username}:${password}\n`, { mode: 0o600 });
    const environments: Record<string, string>[] = [{ PGPASSWORD: password }, { PGPASSFILE: passwordFile }];
    for (const env of environments) {
      const result = await portal.run(['plan', config, '--state-name', `password-${Object.keys(env)[0]}`, '--detailed-exitcode'], { state: bare, env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe('');
    }
    // Without either, the message says where a password goes (and the command ends).
    const refused = await portal.run(['plan', config], { state: bare, env: { PGPASSFILE: join(portal.dir, 'none') } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the server asks for a password and none was given. Set PGPASSWORD, or put it in a password file (~/.pgpass, or the file PGPASSFILE names).');
  });
});
