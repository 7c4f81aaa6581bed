/**
 * Federation fields the portal may leave out of its answer (userType, userCreditAssignment,
 * updateGroupsAtSignin, level, userLicenseType: whether GET echoes them is not in the public
 * docs), through the real CLI against the emulator, whose answer has no userCreditAssignment (as
 * the documented one): unknown at first, so the declared value is sent once; then what portalctl
 * recorded stands for it, so a plan is empty, and a changed declaration is sent again.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

const federation = (credits: number) => `${CONFIG_HEADER}federations:
  - id: J55ajJJ7MsY1QoQs
    name: Campus federation
    userCreditAssignment: ${credits}
`;

let portal: CliPortal;
let config: string;

beforeEach(async () => {
  portal = await startCliPortal();
  config = await portal.writeConfig(federation(500));
});

afterEach(async () => portal.dispose());

async function sentCredits(): Promise<(string | undefined)[]> {
  const writes = await portal.requests({ writesOnly: true });
  return writes.map((request) => request.params['userCreditAssignment']);
}

describe('a field the portal does not report', () => {
  it('is sent when nothing was recorded, then taken as recorded: no change forever, and a new declared value is sent', async () => {
    const first = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toContain('federation[J55ajJJ7MsY1QoQs]');

    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    expect(await sentCredits()).toEqual(['500']);
    // The sample organization's federation held -1, which its answer does not show.
    expect((await portal.state()).federation?.userCreditAssignment).toBe(500);
    const again = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    const drift = await portal.run(['drift', config]);
    expect(drift.code, drift.stdout).toBe(0);

    await portal.clearRequests();
    await writeFile(join(config, 'portalctl.yaml'), federation(1000));
    expect((await portal.run(['apply', config, '--auto-approve'])).code).toBe(0);
    expect(await sentCredits()).toEqual(['1000']);
    expect((await portal.run(['plan', config, '--detailed-exitcode'])).code).toBe(0);
  });
});
