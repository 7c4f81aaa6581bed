/**
 * Rules of the spec that the portal enforces, said by `validate` or `plan` through the real CLI,
 * at the declaration that breaks them, before anything is written: not learnt from the portal's
 * error during `apply`, after the operations ordered before it went through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

describe('refused before apply', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it("a federation's service URL that is not an http(s) URL (E6 `string (URL)`): validate, plan and apply say it at the value, exit 1, nothing written", async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(
      `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, description: Collects field data }\nfederations:\n  - id: J55ajJJ7MsY1QoQs\n    discoveryServiceUrl: idp.example.edu/discovery\n    metadataServiceUrl: ftp://idp.example.edu/metadata\n    entityId: https://gis.riverside.example.com/portal\n`,
      'federation-urls',
    );
    await portal.clearRequests();
    for (const args of [['validate', config], ['plan', config], ['apply', config, '--auto-approve']]) {
      const result = await portal.run(args);
      expect(result.code, args[0]).toBe(1);
      // validate reports on standard output, plan and apply on standard error.
      const said = args[0] === 'validate' ? result.stdout : result.stderr;
      expect(said).toContain(
        [
          "federation-urls/portalctl.yaml:10:26: error: The federation's discoveryServiceUrl must be an http or https URL; the portal refuses any other value. [federation[J55ajJJ7MsY1QoQs]] (federation/url)",
          '  10 |     discoveryServiceUrl: idp.example.edu/discovery',
          '     |                          ^',
          '  value: "idp.example.edu/discovery"; expected: an absolute URL such as https://idp.example.org/metadata',
        ].join('\n'),
      );
      expect(said).toContain(
        "federation-urls/portalctl.yaml:11:25: error: The federation's metadataServiceUrl must be an http or https URL; the portal refuses any other value. [federation[J55ajJJ7MsY1QoQs]] (federation/url)",
      );
      // The entityId is an identifier, not a service URL: never checked as one.
      expect(said).not.toContain('entityId');
    }
    // Before the fix the role was updated, then the federation failed with the portal's "Invalid URL for 'discoveryServiceUrl'".
    expect(await portal.requests({ writesOnly: true })).toEqual([]);

    // An empty URL clears the field (the portal reads an empty parameter so): not refused.
    const cleared = await portal.writeConfig(`${CONFIG_HEADER}federations:\n  - { id: J55ajJJ7MsY1QoQs, discoveryServiceUrl: "", metadataServiceUrl: "HTTPS://idp.example.edu/metadata" }\n`, 'federation-cleared');
    const valid = await portal.run(['validate', cleared]);
    expect(valid.code, valid.stderr).toBe(0);
  });
});
