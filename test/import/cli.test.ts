/** `portalctl import` through the real CLI: stdout, --out, --force, and the round trip through validate and plan. */
import { chmod, lstat, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

describe('portalctl import', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.close());

  it('writes the config to stdout; validate and plan --detailed-exitcode on it exit 0', async () => {
    const imported = await portal.run(['import']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('# Road Centerlines (owner publisher1)\n  - id: 9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e\n    status: org_authoritative\n');
    expect(imported.stdout).toContain(`  url: ${portal.url}\n`);

    const config = await portal.writeConfig(imported.stdout);
    const validated = await portal.run(['validate', config], { portal: null });
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    const planned = await portal.run(['plan', config, '--detailed-exitcode']);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    // Reading only: import never writes to the portal.
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('--out writes the file and a one-line summary; refuses to overwrite without --force', async () => {
    const out = join(portal.dir, 'imported.yaml');
    const first = await portal.run(['import', '--out', 'imported.yaml']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/^Imported \d+ objects? from \S+ to imported\.yaml\.\n$/);
    const written = await readFile(out, 'utf8');
    expect(written).toContain('# Field Analyst\n  - id: r7HkQ2\n');

    await writeFile(out, 'keep me\n');
    await portal.clearRequests();
    const refused = await portal.run(['import', '--out', 'imported.yaml']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('imported.yaml already exists');
    expect(refused.stderr).toContain('--force');
    expect(await readFile(out, 'utf8')).toBe('keep me\n');
    // Said before the portal is read.
    expect(await portal.requests()).toEqual([]);

    // --force replaces the file by renaming a new one over it (a write that fails leaves the old
    // one whole): a new inode, the old file's permissions, and through a symbolic link its target.
    await chmod(out, 0o640);
    await symlink('imported.yaml', join(portal.dir, 'link.yaml'));
    const before = await stat(out);
    const forced = await portal.run(['import', '--out', 'link.yaml', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(written);
    const after = await stat(out);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o640);
    expect((await lstat(join(portal.dir, 'link.yaml'))).isSymbolicLink()).toBe(true);
    expect((await readdir(portal.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('counts the objects it wrote as validate and plan count them: a user with two enabled tasks is two objects', async () => {
    // The sample organization's admin and jsmith have one enabled task each; enabling jsmith's second one makes 13 objects (the pre-built Viewer is a comment, not an object).
    const enable = await portal.writeConfig(`${CONFIG_HEADER}users:\n  - username: jsmith\n    tasks:\n      - id: a1b2c3\n        enabled: true\n`, 'enable');
    expect((await portal.run(['apply', enable, '--auto-approve', '--state', join(portal.dir, 'enable.state.json')])).code).toBe(0);
    const config = await portal.writeConfig({});
    const first = await portal.run(['import', '--out', join(config, 'imported.yaml')]);
    expect(first.stderr).toBe(`Imported 13 objects from ${portal.url} to ${join(config, 'imported.yaml')}.\n`);
    expect(await readFile(join(config, 'imported.yaml'), 'utf8')).toContain('  - username: jsmith\n    tasks:\n      # Survey culverts\n      - id: a1b2c3\n        enabled: true\n      # Update road centerlines\n      - id: d4e5f6\n        enabled: true\n');
    const validated = await portal.run(['validate', join(config, 'imported.yaml')], { portal: null });
    expect(validated.stdout).toBe('Valid: 13 managed objects in 1 file. 0 errors, 0 warnings\n');

    // Imported again beside it: every one of them is declared there already, and said so (not "13 of the 12").
    const second = await portal.run(['import', '--out', join(config, 'again.yaml'), '--format', 'json']);
    const report = JSON.parse(second.stdout) as { objects: number; declaredBeside: { addresses: string[] } };
    expect(report.objects).toBe(13);
    expect(report.declaredBeside.addresses).toHaveLength(13);
    expect(second.stderr).toBe(
      `warning: config/ already declares all 13 imported objects and the portal block, in imported.yaml: a plan of config/ reads every YAML file in it and refuses each of them as declared twice. ` +
        `Move ${join(config, 'again.yaml')} to a directory of its own (named alone, it plans with no changes), or delete from it what that file declares.\n`,
    );
  });

  it('names skipped kinds in the summary and still writes a valid config', async () => {
    const skipped = await portal.run(['import', '--out', 'viewer.yaml'], { credentials: { token: 'viewer-token' } });
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('skipped (not readable with this token): user.task');
    const text = await readFile(join(portal.dir, 'viewer.yaml'), 'utf8');
    expect(text).toMatch(/^# user\.task \(E7 Enable task\) not imported/m);
    const config = await portal.writeConfig(text, 'viewer');
    const validated = await portal.run(['validate', config], { portal: null });
    expect(validated.code).toBe(0);
  });

  it('--force without --out is refused before the portal is read, not ignored', async () => {
    const result = await portal.run(['import', '--force']);
    expect(result.stderr).toBe('Error: --force replaces the --out file, and there is none: the config goes to standard output. Name the file with --out FILE, or leave --force out; nothing was read.\n');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
    expect(await portal.requests()).toEqual([]);
  });

  it('exits 1 without a portal URL', async () => {
    const result = await portal.run(['import'], { portal: null });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--portal');
  });

  it("reads the portal of the config PATH names; --out beside that config's files warns of what a plan of the directory would find declared twice", async () => {
    const config = await portal.writeConfig({
      'portal.yaml': `version: 1\nportal:\n  url: ${portal.url}\n  edition: self-managed\n  version: "11.3"\n`,
      'organization.yaml': 'version: 1\norganization:\n  securityPolicy:\n    minLength: 12\n',
    });
    const out = join(config, 'imported.yaml');
    const imported = await portal.run(['import', config, '--out', out], { portal: null });
    expect(imported.code, imported.stderr).toBe(0);
    const count = Number(/Imported (\d+)/.exec(imported.stderr)?.[1]);
    expect(imported.stderr).toBe(
      `Imported ${count} objects from ${portal.url} to ${out}.\n` +
        `warning: config/ already declares 1 of the ${count} imported objects and the portal block, in organization.yaml and portal.yaml: a plan of config/ reads every YAML file in it and refuses each of them as declared twice. ` +
        `Move ${out} to a directory of its own (named alone, it plans with no changes), or delete from it what those files declare.\n`,
    );
    // The warning is true, and counts what the next plan of the directory refuses: the policy and the portal block.
    const planned = await portal.run(['plan', config], { portal: null });
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('config/organization.yaml:3:3: error: organization.securityPolicy is declared twice: here and at config/imported.yaml:');
    expect(planned.stderr).toContain('config/portal.yaml:2:1: error: The portal block is declared twice: first at config/imported.yaml:');
    expect(planned.stderr).toContain('Error: invalid configuration (2 errors above)');
    // Named alone, the imported file plans empty.
    expect((await portal.run(['plan', out, '--detailed-exitcode'], { portal: null })).code).toBe(0);

    // A config PATH that is not valid is said as validate says it, before the portal is read.
    await portal.clearRequests();
    const invalid = await portal.run(['import', join(portal.dir, 'missing')], { portal: null });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('missing does not exist');
    expect(await portal.requests()).toEqual([]);
  });

  it('--format json reports what the files beside the --out file already declare; YAML beside it that declares none of it is no warning', async () => {
    const config = await portal.writeConfig({
      'portal.yaml': `version: 1\nportal:\n  url: ${portal.url}\n  edition: self-managed\n  version: "11.3"\n`,
      'roles.yaml': 'version: 1\nroles:\n  - id: r7HkQ2\n    name: Field Analyst\n',
      'docker-compose.yml': 'services:\n  web:\n    image: nginx\n',
    });
    const report = await portal.run(['import', '--out', join(config, 'imported.yaml'), '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const parsed = JSON.parse(report.stdout) as { objects: number; declaredBeside: unknown };
    expect(parsed.declaredBeside).toEqual({ directory: 'config', files: ['config/portal.yaml', 'config/roles.yaml'], addresses: ['role[r7HkQ2]'], blocks: ['portal'] });
    // Said on stderr too, for the person who ran it.
    expect(report.stderr).toBe(
      `warning: config/ already declares 1 of the ${parsed.objects} imported objects and the portal block, in portal.yaml and roles.yaml: a plan of config/ reads every YAML file in it and refuses each of them as declared twice. ` +
        `Move ${join(config, 'imported.yaml')} to a directory of its own (named alone, it plans with no changes), or delete from it what those files declare.\n`,
    );

    // A repository root's CI file shares nothing with the imported config: nothing to say.
    const root = await portal.writeConfig({ '.gitlab-ci.yml': 'stages: [plan]\n' }, 'root');
    const alone = await portal.run(['import', '--out', join(root, 'portal.yaml'), '--format', 'json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).toBe('');
    expect(JSON.parse(alone.stdout)).toMatchObject({ out: join(root, 'portal.yaml'), declaredBeside: null });
    // Replaced in place, the file is not beside itself.
    const again = await portal.run(['import', '--out', join(root, 'portal.yaml'), '--force']);
    expect(again.stderr).toMatch(/^Imported \d+ objects from \S+ to \S+portal\.yaml\.\n$/);
  });
});
