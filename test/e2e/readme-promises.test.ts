/**
 * What the README promises a user sees, checked through the real CLI where a run showed otherwise.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliErrorDocument, type CliPortal } from '../support/cli.js';

describe('README promises, as a user sees them', () => {
  let portal: CliPortal | undefined;
  afterEach(async () => {
    await portal?.dispose();
    portal = undefined;
  });

  it('a portal URL that is not http(s):// is shown as written (credentials and query masked), also without its scheme', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy: { minLength: 12 }\n`);
    await portal.clearRequests();
    // A URL written without its scheme reads as the scheme "localhost:", whose origin the URL standard calls "null".
    const noScheme = await portal.run(['plan', config], { portal: 'localhost:7080/portal/sharing/rest' });
    expect(noScheme.code).toBe(1);
    expect(noScheme.stderr).toBe(
      'Error: --portal: Portal URL "localhost:7080/portal/sharing/rest" is not an https:// URL (its scheme reads as "localhost:"); expected the REST root, e.g. https://host/portal/sharing/rest.\n',
    );
    const ftp = await portal.run(['plan', config], { portal: 'ftp://jdoe:s3cret-pass@gis.example.com/portal/sharing/rest?token=abc' });
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toBe(
      'Error: --portal: Portal URL "ftp://***@gis.example.com/portal/sharing/rest?token=***" is not an https:// URL (its scheme reads as "ftp:"); expected the REST root, e.g. https://host/portal/sharing/rest.\n',
    );
    // In the file: at its place, with the same words.
    const written = await portal.writeConfig('version: 1\nportal:\n  url: file:///etc/portal/sharing/rest\n', 'file-url');
    const validate = await portal.run(['validate', written], { portal: null });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      'file-url/portalctl.yaml:3:8: error: Portal URL "file:///etc/portal/sharing/rest" is not an https:// URL (its scheme reads as "file:"); expected the REST root, e.g. https://host/portal/sharing/rest. (portal/invalid-url)\n',
    );
    expect(await portal.requests()).toEqual([]);
  });

  it('--state-name with the default state file points at --state, not at a PORTALCTL_STATE the user never set', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy: { minLength: 12 }\n`);
    await portal.clearRequests();
    // No --state and no PORTALCTL_STATE: the state is the default file in the working directory.
    const plan = await portal.run(['plan', config, '--state-name', 'production'], { state: null });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      'Error: --state-name applies to a PostgreSQL state (postgres://…); for a file, give --state another path instead of --state-name production.\n',
    );
    // From PORTALCTL_STATE, that is what gave the file.
    const fromEnv = await portal.run(['plan', config, '--state-name', 'production'], { state: null, env: { PORTALCTL_STATE: 'states/portal.json' } });
    expect(fromEnv.stderr).toBe(
      'Error: --state-name applies to a PostgreSQL state (postgres://…); for a file, give PORTALCTL_STATE another path instead of --state-name production.\n',
    );
    expect(await portal.requests()).toEqual([]);
  });

  it('import refuses an --out named .json before reading the portal: the YAML it writes would not read back as a config there', async () => {
    portal = await startCliPortal();
    await portal.clearRequests();
    const result = await portal.run(['import', '--out', 'imported/portal.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: --out imported/portal.json names a JSON file, and import writes the config as YAML (with its comments), which portalctl would read there as JSON: name it .yaml or .yml; nothing was read.\n',
    );
    expect(result.stdout).toBe('');
    await expect(access(join(portal.dir, 'imported'))).rejects.toThrow();
    expect(await portal.requests()).toEqual([]);
    // The same refusal as a JSON document; and a .yaml file is written and validates.
    const json = await portal.run(['import', '--out', 'portal.JSON', '--format', 'json']);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as CliErrorDocument).diagnostics.map((d) => d.code)).toEqual(['usage']);
    const yaml = await portal.run(['import', '--out', 'imported/portal.yaml']);
    expect(yaml.code).toBe(0);
    expect((await portal.run(['validate', 'imported/portal.yaml'])).code).toBe(0);
  });

  it('apply --refresh-only refuses --force and --allow-destructive, which it took and ignored: it sends nothing to allow', async () => {
    portal = await startCliPortal();
    const config = await portal.writeConfig(`${CONFIG_HEADER}organization:\n  securityPolicy: { minLength: 12 }\n`);
    await portal.clearRequests();
    const both = await portal.run(['apply', '--refresh-only', config, '--auto-approve', '--force', '--allow-destructive']);
    expect(both.code).toBe(1);
    expect(both.stderr).toBe('Error: --refresh-only sends nothing to the portal, so --allow-destructive and --force have nothing to allow: leave them out.\n');
    const force = await portal.run(['apply', '--refresh-only', config, '--auto-approve', '--force']);
    expect(force.code).toBe(1);
    expect(force.stderr).toBe('Error: --refresh-only sends nothing to the portal, so --force has nothing to allow: leave it out.\n');
    // Nothing was read or recorded.
    expect(await portal.requests()).toEqual([]);
    expect(await portal.recorded()).toBeUndefined();
    // Without them it records as before.
    const recorded = await portal.run(['apply', '--refresh-only', config, '--auto-approve']);
    expect(recorded.code).toBe(0);
    expect(await portal.recorded()).toBeDefined();
  });
});
