/**
 * Unknown outcomes through the real CLI and engine: an E13 invitation whose answer never came
 * (the process killed while it was in flight, a timeout, a dropped connection) is recorded as
 * such at once; the next run looks the invitation up on the portal, recovers its file when it
 * exists, sends it again (once) when it does not, and never makes two invitations for one
 * declared participant. And: the state could not be written mid-apply, so no further write was
 * sent, and the next apply converges without repeating anything.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import type { EmulatorState } from '../../src/emulator/index.js';
import { applyConfig } from '../../src/engine/apply/apply.js';
import { InterruptedError } from '../../src/core/errors.js';
import { RECOVERY_FORMAT, writeRecovery } from '../../src/state/recovery.js';
import { saveInvitationFile } from '../../src/cli/invites.js';
import { CONFIG_HEADER, SAMPLE_ORG, startCliPortal, waitFor, whilePaused, type CliPortal } from '../support/cli.js';
import { HEADER, startTestPortal, type TestPortal } from '../support/portal.js';

const GUEST = 'https://partner.example.org/portal';
const ADDRESS = `collaboration[c0ffee].invitation[${GUEST}]`;
const INVITATION = `collaborations:
  - id: c0ffee
    participants:
      - guestPortalUrl: ${GUEST}
        workspaces: { w1: sendAndReceive }
`;
const INVITE_PATH = '/portals/self/collaborations/c0ffee/inviteParticipant';

const invitationsFor = (state: EmulatorState): unknown[] =>
  (state.collaborations.find((collaboration) => collaboration.id === 'c0ffee')?.invitations ?? []).filter(
    (invitation) => (invitation as { guestPortalUrl: string }).guestPortalUrl === GUEST,
  );

describe('unknown outcomes through the CLI', () => {
  let portal: CliPortal;
  let config: string;
  beforeEach(async () => {
    portal = await startCliPortal();
    config = await portal.writeConfig(`${CONFIG_HEADER}${INVITATION}`);
  });
  afterEach(async () => portal.dispose());

  const invites = async () => (await portal.requests({ writesOnly: true })).filter((entry) => entry.path === INVITE_PATH);

  /** The recorded invitation turned back into what a kill while it was in flight leaves: the in-flight mark, no record. */
  async function leaveInFlightMark(): Promise<void> {
    const recorded = await portal.recorded();
    if (!recorded) throw new Error('no state');
    const { [ADDRESS]: entry, ...others } = recorded.resources;
    if (!entry) throw new Error('not recorded');
    const mark = { kind: entry.kind, ids: entry.ids, operation: 'E13 Invite collaboration participant', value: entry.value, reason: 'in flight', since: new Date().toISOString() };
    await portal.store.write({ ...recorded, resources: others, unknownOutcomes: { [ADDRESS]: mark } });
  }

  /** The next apply sends the invitation once more: two sent in all, one on the portal, no mark left, its file saved. */
  async function expectSentOnceMore(): Promise<string> {
    const second = await portal.run(['apply', config, '--auto-approve']);
    expect(second.code, second.stderr).toBe(0);
    expect(await invites()).toHaveLength(2);
    expect(invitationsFor(await portal.state())).toHaveLength(1);
    expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();
    expect(await readdir(join(portal.dir, 'invites'))).toEqual(['collaboration-partner.example.org.invite']);
    return second.stdout;
  }

  it('killed while the invitation was in flight: the mark survives, the next run recovers the file and invites no one twice', async () => {
    await portal.fault({ path: '*/inviteParticipant', delayMs: 1500 });
    const first = portal.start(['apply', config, '--auto-approve']);
    await waitFor(async () => (await invites()).length === 1, 'the invitation to be in flight', first.done);
    // Paused at once, it cannot take the answer when it comes: it dies with the request in flight.
    first.child.kill('SIGSTOP');
    // Marked in the state before it was sent.
    const marked = await portal.recorded();
    expect(marked?.unknownOutcomes?.[ADDRESS]).toMatchObject({ reason: 'in flight', operation: 'E13 Invite collaboration participant' });
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    // The portal performed it after all: the answer (the file) went to a dead process.
    await waitFor(async () => invitationsFor(await portal.state()).length === 1, 'the portal to create the invitation');
    await portal.run(['state', 'unlock']);

    const plan = await portal.run(['plan', config, '--format', 'json']);
    const planned = JSON.parse(plan.stdout) as { operations: unknown[]; warnings: { address: string; message: string }[] };
    expect(planned.operations).toEqual([]);
    expect(planned.warnings.find((warning) => warning.address === ADDRESS)?.message).toMatch(/unknown .*the portal shows it performed; apply records it and recovers the invitation file/);

    const second = await portal.run(['apply', config, '--auto-approve']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`${ADDRESS}: the outcome of E13 Invite collaboration participant was unknown (in flight)`);
    expect(second.stderr).toMatch(/Recovered its invitation file from the portal: .*invites\/collaboration-partner\.example\.org\.invite/);
    const files = await readdir(join(portal.dir, 'invites'));
    expect(files).toEqual(['collaboration-partner.example.org.invite']);
    const content = JSON.parse(await readFile(join(portal.dir, 'invites', files[0] as string), 'utf8')) as { invitationRequest: { guestPortalUrl: string } };
    expect(content.invitationRequest.guestPortalUrl).toBe(GUEST);
    expect((await stat(join(portal.dir, 'invites', files[0] as string))).mode & 0o777).toBe(0o600);

    expect(await invites()).toHaveLength(1);
    expect(invitationsFor(await portal.state())).toHaveLength(1);
    const recorded = await portal.recorded();
    expect(recorded?.unknownOutcomes).toBeUndefined();
    expect(recorded?.resources[ADDRESS]?.status).toBe('present');
    const after = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(after.code).toBe(0);
  });

  it('apply --refresh-only leaves a performed invitation whose answer was lost to apply: its mark stays, and the next apply recovers the file', async () => {
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code, first.stderr).toBe(0);
    await rm(join(portal.dir, 'invites'), { recursive: true });
    await leaveInFlightMark();
    const refreshed = await portal.run(['apply', config, '--refresh-only', '--auto-approve']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain(`+ ${ADDRESS}  (not recorded yet)`);
    // The file is apply's to get again: the mark that says so survives the refresh.
    expect((await portal.recorded())?.unknownOutcomes?.[ADDRESS]).toMatchObject({ reason: 'in flight' });
    expect(existsSync(join(portal.dir, 'invites'))).toBe(false);
    const again = await portal.run(['apply', config, '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Recovered its invitation file from the portal: .*invites\/collaboration-partner\.example\.org\.invite\./);
    expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();
    expect(await invites()).toHaveLength(1);
  });

  it('drift does not call a performed invitation whose answer was lost in sync: it is pending for apply, which records it and recovers its file', async () => {
    await portal.fault({ path: '*/inviteParticipant', drop: true, afterRoute: true });
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(1);
    expect(invitationsFor(await portal.state())).toHaveLength(1);

    const drift = await portal.run(['drift', config]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).not.toContain('In sync');
    expect(drift.stdout).toContain(
      `Not recorded yet: 1 operation whose answer was lost, which the portal shows performed; \`portalctl apply\` records it without sending it again.\n  ! ${ADDRESS}: The outcome of E13 Invite collaboration participant on ${ADDRESS} is unknown (no answer: `,
    );
    expect(drift.stdout).toContain('the portal shows it performed; apply records it and recovers the invitation file without sending it again.\n');
    const json = JSON.parse((await portal.run(['drift', config, '--format', 'json'])).stdout) as { status: string };
    expect(json.status).toBe('pending');
    const markdown = await portal.run(['drift', config, '--format', 'markdown']);
    expect(markdown.code).toBe(2);
    expect(markdown.stdout).toContain('#### Not recorded yet');
    // plan agrees: nothing to send, but apply has work (CI that applies on exit 2 recovers the file).
    const plan = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout.split('\n')[0]).toBe(
      'No changes. The portal matches the configuration. Still to record: 1 write the portal shows performed, whose answer was lost (`portalctl apply` records it without sending it again).',
    );

    const applied = await portal.run(['apply', config, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(await readdir(join(portal.dir, 'invites'))).toHaveLength(1);
    const after = await portal.run(['drift', config]);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe('In sync: the portal matches the configuration and the recorded state.\n');
    expect(await invites()).toHaveLength(1);
  });

  it('its file could not be written: the invitation is kept as an unknown outcome, no empty file is left, the next run saves the file from the portal', async () => {
    // Every name the file could take is taken (by directories): the invitation is made, its file cannot be written.
    const invitesDir = join(portal.dir, 'invites');
    await mkdir(invitesDir, { mode: 0o700 });
    const names = ['collaboration-partner.example.org.invite', ...Array.from({ length: 999 }, (_, n) => `collaboration-partner.example.org-${n + 1}.invite`)];
    for (const name of names) await mkdir(join(invitesDir, name));
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/FAILED {3}collaboration\[c0ffee\]\.invitation\[https:\/\/partner\.example\.org\/portal\] {2}\(E13\): the portal performed it, but its invitation file could not be saved \(Could not find a free file name for collaboration-partner\.example\.org\.invite in .*invites\)\. It is recorded as an unknown outcome/);
    expect(first.stdout).toContain('the next apply finds it on the portal and saves its file from there, without sending it again');
    expect(await invites()).toHaveLength(1);
    expect((await portal.recorded())?.unknownOutcomes?.[ADDRESS]?.reason).toMatch(/^performed, but its file could not be saved/);
    // Nothing but the blockers: no file, empty or not, and no temporary one.
    for (const name of await readdir(invitesDir)) expect((await stat(join(invitesDir, name))).isDirectory(), name).toBe(true);

    for (const name of names) await rm(join(invitesDir, name), { recursive: true });
    const second = await portal.run(['apply', config, '--auto-approve']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/Recovered its invitation file from the portal: .*invites\/collaboration-partner\.example\.org\.invite/);
    expect(await readdir(invitesDir)).toEqual(['collaboration-partner.example.org.invite']);
    expect(await invites()).toHaveLength(1);
    expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();
  });

  it('killed after the file was saved but before it was recorded: the next run recovers it into the same file, never a second one', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const invitesDir = join(portal.dir, 'invites');
    expect(await readdir(invitesDir)).toEqual(['collaboration-partner.example.org.invite']);
    // What such a kill leaves: the in-flight mark, no record, and the file. And a temporary file of a process long gone.
    await leaveInFlightMark();
    await writeFile(join(invitesDir, '.collaboration-partner.example.org.invite.tmp-999999999-0a1b2c'), '');

    const again = await portal.run(['apply', config, '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Recovered its invitation file from the portal: .*invites\/collaboration-partner\.example\.org\.invite\./);
    expect(await readdir(invitesDir)).toEqual(['collaboration-partner.example.org.invite']);
    expect(await invites()).toHaveLength(1);
  });

  it('Ctrl-C while a performed invitation is recorded and its file got again: that small recording finishes, then the apply stops, saying what it recorded', async () => {
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    const invitesDir = join(portal.dir, 'invites');
    // Its answer lost: the in-flight mark and no record, as a kill leaves them.
    await leaveInFlightMark();
    await rm(invitesDir, { recursive: true });
    await portal.clearRequests();
    // Every read of the invitations waits at the portal: the plan's first, then the one that gets the file again.
    await portal.fault({ path: '*/invitations', method: 'GET', hold: true, count: 0 });
    const invitationReads = async () => (await portal.requests()).filter((request) => request.path.endsWith('/invitations'));
    const run = portal.start(['apply', config, '--auto-approve']);
    await waitFor(async () => (await invitationReads()).length === 1, "the plan's read of the invitations", run.done);
    await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
    await waitFor(async () => (await invitationReads()).some((request, index) => index === 1 && request.response === undefined), 'the read that gets the file again', run.done);
    run.child.kill('SIGINT');
    await waitFor(() => run.output().stderr.includes('Interrupted: finishing recording'), 'the interrupt noted', run.done);
    await portal.clearFaults();
    await fetch(`${portal.emulator.controlUrl}/faults/release`, { method: 'POST', body: '{}' });
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    const file = join(invitesDir, 'collaboration-partner.example.org.invite');
    expect(result.stderr).toContain(
      '\nInterrupted: finishing recording what an earlier apply left (nothing is sent to the portal), then stopping. Press Ctrl-C again to stop at once.\n' +
        `${ADDRESS}: the outcome of E13 Invite collaboration participant was unknown (in flight); the portal shows it performed, so it was recorded and not sent again. Recovered its invitation file from the portal: ${file}.\n` +
        `Apply was interrupted: 1 operation whose outcome was unknown and that the portal shows performed was recorded in the state (${ADDRESS}), and its invitation file was saved: ${file}; nothing was sent to the portal.\n`,
    );
    expect(result.stderr).not.toContain('nothing was changed');
    expect(await readdir(invitesDir)).toEqual(['collaboration-partner.example.org.invite']);
    const after = await portal.recorded();
    expect(after?.unknownOutcomes).toBeUndefined();
    expect(after?.resources[ADDRESS]?.status).toBe('present');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
    expect(await portal.store.currentLock()).toBeUndefined();
  });

  it('performed, then answered with a server failure (a gateway timeout page, an envelope with code 500): recorded as unknown, never cleared, and the next apply recovers the file without inviting again', async () => {
    const gatewayPage = '<html><head><title>504 Gateway Time-out</title></head><body><h1>504 Gateway Time-out</h1><hr>nginx</body></html>';
    for (const answer of [{ status: 504, body: gatewayPage }, { error: { code: 500, message: 'Unable to invite participant.', details: null } }]) {
      await portal.fault({ path: '*/inviteParticipant', afterRoute: true, ...answer });
      const first = await portal.run(['apply', config, '--auto-approve']);
      expect(first.code).toBe(1);
      const said = 'status' in answer ? 'HTTP 504 Gateway Timeout: 504 Gateway Time-out 504 Gateway Time-out nginx (code 504)' : 'Unable to invite participant. (code 500)';
      expect(first.stdout).toContain(
        `FAILED   ${ADDRESS}  (E13): POST ${INVITE_PATH} failed: ${said}. The outcome is unknown: the portal may or may not have performed it. It is recorded as such; the next apply checks the portal before doing anything for this address.\n`,
      );
      expect((await portal.recorded())?.unknownOutcomes?.[ADDRESS]?.reason).toBe(`answered with a server failure: POST ${INVITE_PATH} failed: ${said}`);
      expect(invitationsFor(await portal.state())).toHaveLength(1);

      const second = await portal.run(['apply', config, '--auto-approve']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain(`${ADDRESS}: the outcome of E13 Invite collaboration participant was unknown (answered with a server failure: `);
      expect(second.stderr).toMatch(/Recovered its invitation file from the portal: .*invites\/collaboration-partner\.example\.org\.invite\.\n/);
      expect(await invites()).toHaveLength(1);
      expect(invitationsFor(await portal.state())).toHaveLength(1);
      expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();
      // Afresh for the next answer: no invitation, no state, no file.
      await fetch(`${portal.emulator.controlUrl}/reset`, { method: 'POST' });
      await rm(portal.statePath);
      await rm(join(portal.dir, 'invites'), { recursive: true });
      await portal.clearRequests();
    }
  });

  it('answered 429 (too many requests): not performed, so not unknown; not sent again, and the advice is to run apply later', async () => {
    await portal.fault({ path: '*/inviteParticipant', status: 429, retryAfter: 30, error: { code: 429, message: 'Too many requests.' } });
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain(
      `FAILED   ${ADDRESS}  (E13): POST ${INVITE_PATH} failed: Too many requests. (code 429); ` +
        'The portal turned it away (too many requests): it was not performed. It is not repeated automatically (a request that could act twice never is); run apply again later.\n',
    );
    expect(first.stdout).not.toContain('check the portal');
    expect(await invites()).toHaveLength(1);
    expect((await portal.recorded())?.unknownOutcomes).toBeUndefined();
    expect(invitationsFor(await portal.state())).toHaveLength(0);
  });

  it('a server failure before the portal performed it: recorded as unknown, planned again as a retry, one invitation in the end', async () => {
    await portal.fault({ path: '*/inviteParticipant', status: 503, body: '<html><body>Service Unavailable</body></html>' });
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('The outcome is unknown: the portal may or may not have performed it. It is recorded as such;');
    expect(invitationsFor(await portal.state())).toHaveLength(0);
    const plan = await portal.run(['plan', config]);
    expect(plan.stdout).toContain('the portal does not show it performed, so it is planned again as the retry of an unknown outcome.');
    await expectSentOnceMore();
  });

  it('a web page answered with 200 in place of the invitation file (a firewall\'s): never saved as the file nor recorded as applied; the next apply checks the portal and sends it once more', async () => {
    const blocked = '<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Please consult with your administrator.</body></html>';
    await portal.fault({ path: '*/inviteParticipant', status: 200, body: blocked });
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code).toBe(1);
    const said = `POST ${INVITE_PATH} failed: expected a file, got a web page (text/html; charset=utf-8): Request Rejected The requested URL was rejected. Please consult with your administrator.`;
    expect(first.stdout).toContain(
      `FAILED   ${ADDRESS}  (E13): ${said}. The outcome is unknown: the portal may or may not have performed it. It is recorded as such; the next apply checks the portal before doing anything for this address.\n`,
    );
    expect(first.stdout).not.toContain('invitation saved to');
    expect(await readdir(join(portal.dir, 'invites')).catch(() => [])).toEqual([]);
    expect((await portal.recorded())?.unknownOutcomes?.[ADDRESS]?.reason).toBe(`its answer could not be read: ${said}`);
    // What the check after the writes read (no invitation), never a record of it applied.
    expect((await portal.recorded())?.resources[ADDRESS]).toMatchObject({ status: 'absent', value: null });
    expect((await portal.recorded())?.resources[ADDRESS]?.appliedAt).toBeUndefined();

    expect(await expectSentOnceMore()).toContain('the portal does not show it performed, so it is planned again as the retry of an unknown outcome.');
    expect(JSON.parse(await readFile(join(portal.dir, 'invites', 'collaboration-partner.example.org.invite'), 'utf8'))).toMatchObject({ invitationRequest: { guestPortalUrl: GUEST } });
  });

  it('a dropped connection: recorded as unknown, planned again as a retry, sent once more, one invitation in the end', async () => {
    await portal.fault({ path: '*/inviteParticipant', drop: true });
    const first = await portal.run(['apply', config, '--auto-approve']);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/FAILED\s+collaboration\[c0ffee\]\.invitation\[https:\/\/partner\.example\.org\/portal\].*outcome is unknown.*recorded as such/);
    expect((await portal.recorded())?.unknownOutcomes?.[ADDRESS]?.reason).toMatch(/^no answer: /);
    const listed = await portal.run(['state', 'list']);
    expect(listed.stdout).toContain(`${ADDRESS}\tcollaboration.invitation\toutcome unknown (no answer: `);

    const plan = await portal.run(['plan', config]);
    expect(plan.stdout).toContain('planned again as the retry of an unknown outcome');

    await expectSentOnceMore();
  });
});

describe('unknown outcomes in the engine', () => {
  let portal: TestPortal;
  beforeEach(async () => {
    portal = await startTestPortal();
  });
  afterEach(async () => portal.close());

  it('a stop asked while a recovery file is recorded lets that recording finish, then stops before reading, saying what it recorded', async () => {
    const config = await portal.config(`${HEADER}${INVITATION}`);
    const recoveryFile = join(portal.dir, 'portalctl.state.json.recovery.json');
    await writeRecovery(recoveryFile, {
      format: RECOVERY_FORMAT,
      state: portal.store.describe(),
      lineage: '1bad86b2-82db-4849-83e0-0e30b713e0b9',
      portal: { url: portal.url },
      createdAt: '2026-11-25T12:00:00.000Z',
      resources: { 'role[r1]': { kind: 'role', ids: { roleId: 'r1' }, value: { name: 'Analyst' }, appliedAt: '2026-11-25T12:00:00.000Z' } },
      unknownOutcomes: {},
    });
    await portal.clearRequests();
    let stop = false;
    const phases: string[] = [];
    const applying = applyConfig({
      config,
      url: portal.url,
      store: portal.store,
      client: portal.client,
      lockTimeoutMs: 0,
      targets: [],
      parallelism: 2,
      allowDestructive: false,
      recoveryFile,
      stopRequested: () => stop,
      // The stop comes while the recovery file is being recorded (a Ctrl-C then).
      onPhase: (phase, { recorded }) => {
        phases.push(`${phase}: ${recorded.join('; ')}`);
        if (phase === 'recording') stop = true;
      },
    });
    const stopped: unknown = await applying.catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(InterruptedError);
    expect((stopped as InterruptedError).message).toBe(`Apply was interrupted: the 1 operation kept in the recovery file ${recoveryFile} was recorded in the state; nothing was sent to the portal.`);
    expect(phases).toEqual(['recording: ', `reading: the 1 operation kept in the recovery file ${recoveryFile} was recorded in the state`]);
    expect((await portal.store.read())?.resources['role[r1]']).toMatchObject({ value: { name: 'Analyst' } });
    expect(existsSync(recoveryFile)).toBe(false);
    // It stopped before reading the portal.
    expect(await portal.requests()).toEqual([]);
    expect(await portal.store.currentLock()).toBeUndefined();
  });

  it('a timeout on E13: the portal created it late; the next apply recovers the file instead of inviting again', async () => {
    const config = await portal.config(`${HEADER}${INVITATION}`);
    await portal.fault({ path: '*/inviteParticipant', delayMs: 4000 });
    // Reads that time out on a busy machine are retried; the invitation (not idempotent) never is.
    const impatient = createApiClient({ url: portal.url, credentials: { type: 'token', token: 'admin-token' }, timeoutMs: 1500, maxRetries: 4, baseDelayMs: 1 });
    const invitesDir = join(portal.dir, 'invites');
    const request = {
      config,
      url: portal.url,
      store: portal.store,
      lockTimeoutMs: 0,
      targets: [],
      parallelism: 2,
      allowDestructive: false,
      saveInvitation: (filename: string, content: Uint8Array) => saveInvitationFile(invitesDir, filename, content),
    };
    try {
      const first = await applyConfig({ ...request, client: impatient });
      expect(first.result.failed.map(({ op }) => op.address)).toEqual([ADDRESS]);
      expect(String(first.result.failed[0]?.error)).toMatch(/no answer within 1.5 s.*outcome is unknown/s);
    } finally {
      await impatient.close();
    }
    expect((await portal.store.read())?.unknownOutcomes?.[ADDRESS]?.reason).toMatch(/^no answer: .*no answer within 1.5 s/);
    await waitFor(async () => invitationsFor(await portal.state()).length === 1, 'the late invitation');

    const notices: string[] = [];
    const second = await applyConfig({ ...request, client: portal.client, onNotice: (message) => notices.push(message) });
    expect(second.prepared.plan.operations).toEqual([]);
    expect(Object.keys(second.invitations)).toEqual([ADDRESS]);
    expect(notices.join('\n')).toContain('Recovered its invitation file from the portal');
    expect((await portal.requests({ writesOnly: true })).filter((entry) => entry.path === INVITE_PATH)).toHaveLength(1);
    expect(invitationsFor(await portal.state())).toHaveLength(1);
    expect((await portal.store.read())?.unknownOutcomes).toBeUndefined();
  });
});

describe('the state cannot be written mid-apply', () => {
  const ITEMS = 12;
  const itemId = (n: number): string => `e2e${n.toString(16).padStart(29, '0')}`;
  let portal: CliPortal;
  beforeEach(async () => {
    const sample = parse(await readFile(SAMPLE_ORG, 'utf8')) as EmulatorState & { items: unknown[] };
    const items = Array.from({ length: ITEMS }, (_, n) => ({ id: itemId(n), title: `Layer ${n}`, owner: 'publisher1', access: 'org' }));
    portal = await startCliPortal({ data: { ...sample, items: [...sample.items, ...items] } as EmulatorState });
  });
  afterEach(async () => portal.dispose());

  it('stops sending at the first recording failure, keeps what was applied in a recovery file, and the next apply repeats nothing', async () => {
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}items:\n${Array.from({ length: ITEMS }, (_, n) => `  - { id: ${itemId(n)}, status: deprecated }\n`).join('')}${INVITATION}`,
    );
    await portal.latency(150);
    // --force: changing every one of these items is over the default change threshold, on purpose.
    const running = portal.start(['apply', config, '--auto-approve', '--force', '--parallelism', '1']);
    await waitFor(async () => ((await portal.recorded().catch(() => undefined))?.serial ?? 0) >= 2, 'two recorded writes', running.done);
    // The state file's place now refuses every write (a directory stands where the file was),
    // made so while the apply is paused: it meets the refusal at its next record.
    const aside = join(portal.dir, 'state-aside.json');
    await whilePaused(running.child, async () => {
      await rename(portal.statePath, aside);
      await mkdir(portal.statePath);
      await writeFile(join(portal.statePath, 'occupied'), '');
    });
    const failed = await running.done;
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(/\n\s+at /);
    const sent = (await portal.requests({ writesOnly: true })).filter((entry) => entry.response?.status === 200);
    expect(sent.length).toBeLessThan(ITEMS + 1);
    expect(failed.stderr).toContain('so no further write was sent');
    const notRecorded = /(\d+) operations? (?:was|were) applied on the portal but not recorded: (.*?)\. (?:It is|They are) kept/.exec(failed.stderr);
    expect(notRecorded, failed.stderr).not.toBeNull();
    const [it, them] = notRecorded?.[1] === '1' ? ['It is', 'it'] : ['They are', 'them'];
    expect(failed.stderr).toContain(`${it} kept in ${portal.statePath}.recovery.json; the next apply records ${them} first. Fix what kept the state from being written and run apply again.\n`);
    // The store's "Nothing was changed." was its own, of a command it stopped: here writes were sent.
    expect(failed.stderr).toContain(`(The state ${portal.statePath} is a directory: name a file in it, e.g. ${portal.statePath}/portalctl.state.json), so no further write was sent.`);
    expect(failed.stdout).toMatch(/NOT RECORDED/);
    const recovery = JSON.parse(await readFile(`${portal.statePath}.recovery.json`, 'utf8')) as { resources: Record<string, unknown> };
    expect(Object.keys(recovery.resources).sort()).toEqual((notRecorded?.[2] ?? '').split(', ').sort());

    // The place is fixed; the next apply records the recovery file first and converges.
    await rm(portal.statePath, { recursive: true });
    await rename(aside, portal.statePath);
    await portal.run(['state', 'unlock']);
    await portal.latency(0);
    const again = await portal.run(['apply', config, '--auto-approve', '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Recorded \d+ operations? kept in the recovery file/);
    for (const address of Object.keys(recovery.resources)) expect((await portal.recorded())?.resources[address]?.appliedAt).toBeDefined();
    // Nothing was sent twice.
    const writes = (await portal.requests({ writesOnly: true })).filter((entry) => entry.response?.status === 200);
    const perPath = new Map<string, number>();
    for (const write of writes) perPath.set(`${write.path} ${JSON.stringify(write.params)}`, (perPath.get(`${write.path} ${JSON.stringify(write.params)}`) ?? 0) + 1);
    expect([...perPath.values()].every((count) => count === 1)).toBe(true);
    expect(writes.filter((entry) => entry.path === INVITE_PATH)).toHaveLength(1);
    const plan = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
  });
});
