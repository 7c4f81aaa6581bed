/**
 * A collaboration the portal does not have, through the real CLI. The portal answers its
 * workspaces, a workspace, its participants and its invitations with the same 404 as an unknown
 * workspace of a known collaboration (wire samples: the generic envelope), so `plan` reads the
 * collaboration itself to tell which one is missing, and names the collaboration once, where the
 * config declares it, instead of a missing workspace (or nothing, for a participant removal, or a
 * planned invitation the portal would refuse).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, NOT_FOUND_EXPECTED, startCliPortal, type CliErrorDocument, type CliPortal } from '../support/cli.js';

const GONE = 'nosuchcollab';
const FORMER_PARTNER = '7d7d7d7d-2c3d-4e5f-8a9b-0c1d2e3f4a5b';


describe('a collaboration the portal does not have', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it('is named once at its own place, whatever is declared in it, beside an unknown workspace of a known one; exit 1, nothing written', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n` +
        `  - id: ${GONE}\n` +
        '    workspaces:\n' +
        '      - id: w1\n' +
        '        name: Shared basemaps\n' +
        '        portalGroupLink: absent\n' +
        '    participants:\n' +
        `      - { portalId: ${FORMER_PARTNER}, absent: true }\n` +
        '      - guestPortalUrl: https://partner.example.org/portal\n' +
        '        workspaces: { w1: sendAndReceive }\n' +
        '  - id: c0ffee\n' +
        '    workspaces:\n' +
        '      - { id: nosuchws, name: Nothing }\n',
      'unknown-collaboration',
    );
    await portal.clearRequests();
    for (const args of [['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          `unknown-collaboration/portalctl.yaml:7:3: error: collaboration ${GONE} does not exist on the portal, or this account cannot see it. [collaboration[${GONE}]] (portal/not-found)`,
          `  7 |   - id: ${GONE}`,
          '    |   ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      // A known collaboration's unknown workspace is still the workspace.
      expect(result.stderr).toContain(
        'unknown-collaboration/portalctl.yaml:18:7: error: workspace nosuchws of collaboration c0ffee does not exist on the portal, or this account cannot see it. [collaboration[c0ffee].workspace[nosuchws]] (portal/not-found)',
      );
      expect(result.stderr).not.toContain(`workspace w1 of collaboration ${GONE}`);
      expect(result.stderr.split(`collaboration ${GONE} does not exist`)).toHaveLength(2);
      expect(result.stderr).toContain('Error: invalid configuration (2 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    const json = await portal.run(['plan', config, '--format', 'json']);
    expect(json.code).toBe(1);
    const answer = JSON.parse(json.stdout) as CliErrorDocument;
    expect(answer.exitCode).toBe(1);
    expect(answer.diagnostics).toEqual([
      expect.objectContaining({
        code: 'portal/not-found',
        address: 'collaboration[c0ffee].workspace[nosuchws]',
        location: { file: 'unknown-collaboration/portalctl.yaml', line: 18, column: 7 },
      }),
      expect.objectContaining({
        code: 'portal/not-found',
        message: `collaboration ${GONE} does not exist on the portal, or this account cannot see it.`,
        address: `collaboration[${GONE}]`,
        location: { file: 'unknown-collaboration/portalctl.yaml', line: 7, column: 3 },
      }),
    ]);
  });

  it('a participant removal alone in it is said too (its participants list answers 404, not an empty list)', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}collaborations:\n  - id: ${GONE}\n    participants:\n      - { portalId: ${FORMER_PARTNER}, absent: true }\n`, 'participant');
    const result = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `participant/portalctl.yaml:7:3: error: collaboration ${GONE} does not exist on the portal, or this account cannot see it. [collaboration[${GONE}]] (portal/not-found)`,
    );
  });

  it('pruneParticipants alone in it is said at that line, not expanded to nothing; beside a declared object, said once at the entry', async () => {
    portal = await startCliPortal();
    const alone = await portal.writeConfig(`${CONFIG_HEADER}collaborations:\n  - id: ${GONE}\n    pruneParticipants: true\n`, 'prune-alone');
    const result = await portal.run(['plan', alone, '--detailed-exitcode']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      [
        `prune-alone/portalctl.yaml:8:5: error: collaboration ${GONE} does not exist on the portal, or this account cannot see it. [collaboration[${GONE}]] (portal/not-found)`,
        '  8 |     pruneParticipants: true',
        '    |     ^',
        `  ${NOT_FOUND_EXPECTED}`,
      ].join('\n'),
    );
    expect(result.stderr).toContain('Error: invalid configuration (1 error above); nothing was changed on the portal.');

    const beside = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n  - id: ${GONE}\n    pruneParticipants: true\n    workspaces:\n      - { id: w1, name: Shared }\n  - id: c0ffee\n    workspaces:\n      - { id: nosuchws, name: Nothing }\n`,
      'prune-beside',
    );
    const both = await portal.run(['plan', beside, '--format', 'json']);
    expect(both.code).toBe(1);
    const answer = JSON.parse(both.stdout) as CliErrorDocument;
    expect(answer.diagnostics.map((diagnostic) => [diagnostic.address, diagnostic.location?.line])).toEqual([
      ['collaboration[c0ffee].workspace[nosuchws]', 13],
      [`collaboration[${GONE}]`, 7],
    ]);
  });

  it("portalGroupLink: absent on a known collaboration's unknown workspace is said at the workspace, once beside its info", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: nosuchws, portalGroupLink: absent }\n      - id: gone2\n        name: Renamed\n        portalGroupLink: absent\n`,
      'unknown-workspace',
    );
    await portal.clearRequests();
    for (const args of [['plan', config, '--detailed-exitcode'], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(
        [
          'unknown-workspace/portalctl.yaml:9:7: error: workspace nosuchws of collaboration c0ffee does not exist on the portal, or this account cannot see it. [collaboration[c0ffee].workspace[nosuchws]] (portal/not-found)',
          '  9 |       - { id: nosuchws, portalGroupLink: absent }',
          '    |       ^',
          `  ${NOT_FOUND_EXPECTED}`,
        ].join('\n'),
      );
      expect(result.stderr).toContain(
        'unknown-workspace/portalctl.yaml:10:7: error: workspace gone2 of collaboration c0ffee does not exist on the portal, or this account cannot see it. [collaboration[c0ffee].workspace[gone2]] (portal/not-found)',
      );
      expect(result.stderr.split('workspace gone2 of collaboration c0ffee does not exist')).toHaveLength(2);
      expect(result.stderr).toContain('Error: invalid configuration (2 errors above); nothing was changed on the portal.');
    }
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a known collaboration is not read again when what it holds is found, or already removed', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}collaborations:\n  - id: c0ffee\n    workspaces:\n      - { id: w2, portalGroupLink: absent }\n    participants:\n      - { portalId: 9e9e9e9e-0000-4000-8000-000000000000, absent: true }\n`,
      'known',
    );
    await portal.clearRequests();
    const result = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const paths = (await portal.requests()).map((request) => request.path);
    expect(paths).toContain('/portals/self/collaborations/c0ffee/participants');
    expect(paths).not.toContain('/portals/self/collaborations/c0ffee');
  });
});
