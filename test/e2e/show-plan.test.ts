/**
 * `portalctl show PLANFILE` renders a saved plan later (no portal, no state), and a plan that
 * `apply` would refuse (change thresholds, destructive operations without --allow-destructive)
 * says so in itself, in every format, so a reviewed plan never turns into a refused apply.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, POLICY_AND_ROLE, startCliPortal, type CliPortal } from '../support/cli.js';

const ROLES = 20;
const roleId = (index: number): string => `role${String(index).padStart(2, '0')}`;

/** 12 of 20 roles renamed (over the 30% update limit) and every file resource pruned (destructive). */
const REFUSED = `${CONFIG_HEADER}organization:
  resources: { prune: true }
roles:
${Array.from({ length: ROLES }, (_, index) => `  - { id: ${roleId(index)}, name: ${index < 12 ? 'Renamed' : 'Role'} ${index} }`).join('\n')}
`;

let portal: CliPortal;

beforeEach(async () => {
  portal = await startCliPortal();
  const live = await portal.state();
  live.roles = [...live.roles, ...Array.from({ length: ROLES }, (_, index) => ({ id: roleId(index), name: `Role ${index}`, description: '', privileges: ['portal:user:joinGroup'] }))];
  live.organization.resources = Array.from({ length: 3 }, (_, index) => ({ key: `file-${index}.png`, size: 100, created: 1700000000000 }));
  await portal.replaceState(live);
  await portal.clearRequests();
});

afterEach(async () => portal.dispose());

describe('a plan apply would refuse says so in itself', () => {
  it('in the text, markdown and JSON plan, and apply then refuses exactly that', async () => {
    const config = await portal.writeConfig(REFUSED);
    const text = await portal.run(['plan', config]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('apply will refuse this plan without --allow-destructive: The plan has 3 destructive operations (organization.resource[file-0.png], organization.resource[file-1.png], organization.resource[file-2.png]).');
    expect(text.stdout).toContain('apply will refuse this plan without --force: 12 of 20 roles (60%) would be updated; the limit is 30%.');

    const markdown = await portal.run(['plan', config, '--format', 'markdown']);
    expect(markdown.stdout).toContain('⛔ **`apply` will refuse this plan** without `--allow-destructive`: The plan has 3 destructive operations');
    expect(markdown.stdout).toContain('⛔ **`apply` will refuse this plan** without `--force`: 12 of 20 roles (60%) would be updated; the limit is 30%.');

    const json = JSON.parse((await portal.run(['plan', config, '--format', 'json'])).stdout) as { refusals: unknown[] };
    expect(json.refusals).toEqual([
      {
        reason: 'destructive',
        message: 'The plan has 3 destructive operations (organization.resource[file-0.png], organization.resource[file-1.png], organization.resource[file-2.png]).',
        override: '--allow-destructive',
        addresses: ['organization.resource[file-0.png]', 'organization.resource[file-1.png]', 'organization.resource[file-2.png]'],
      },
      { reason: 'threshold', message: '12 of 20 roles (60%) would be updated; the limit is 30%.', override: '--force', addresses: [] },
    ]);

    const refused = await portal.run(['apply', config, '--auto-approve', '--allow-destructive']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('12 of 20 roles (60%) would be updated; the limit is 30%. Nothing was applied.');
    expect(await portal.requests({ writesOnly: true })).toEqual([]);
  });

  it('a plan apply takes says nothing of refusals', async () => {
    const config = await portal.writeConfig(POLICY_AND_ROLE);
    const text = await portal.run(['plan', config]);
    expect(text.stdout).not.toContain('refuse');
    expect(JSON.parse((await portal.run(['plan', config, '--format', 'json'])).stdout)).toMatchObject({ refusals: [] });
  });
});

describe('portalctl show PLANFILE', () => {
  it('renders the saved plan as text, markdown and JSON, the same as the plan made it, refusals included, reading nothing else', async () => {
    const config = await portal.writeConfig(REFUSED);
    const saved = await portal.run(['plan', config, '--out', 'plan.json', '--format', 'markdown']);
    expect(saved.code).toBe(0);
    // The apply it advises names the portal and state this plan was made against (without them, apply went to portal.url, or found it stale).
    expect(saved.stderr).toContain(`Saved the plan to plan.json; apply it with: portalctl apply --plan plan.json --portal ${portal.url} --state ${portal.statePath}\n`);
    const planText = (await portal.run(['plan', config])).stdout;
    // The portal is gone: show reads only the file.
    await portal.close();

    const shownText = await portal.run(['show', 'plan.json']);
    expect(shownText.code).toBe(0);
    expect(shownText.stderr).toBe('');
    const [heading, rest] = shownText.stdout.split('\n\n', 2);
    expect(heading).toMatch(/^Saved plan of \d{4}-\d\d-\d\dT[\d:.]+Z for Riverside County GIS \(http:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest\), made against no recorded state\.\nState: file .*state\.json; config: .*config; portalctl \d+\.\d+\.\d+\.$/);
    expect(shownText.stdout.slice(heading!.length + 2)).toBe(planText);
    expect(rest).toContain('apply will refuse this plan without --force');

    const shownMarkdown = await portal.run(['show', 'plan.json', '--format', 'markdown']);
    expect(shownMarkdown.stdout).toBe(saved.stdout);
    expect(shownMarkdown.stdout).toContain('Portal **Riverside County GIS**');
    expect(shownMarkdown.stdout).toContain('⛔ **`apply` will refuse this plan** without `--force`');

    const shownJson = await portal.run(['show', 'plan.json', '--format', 'json']);
    expect(JSON.parse(shownJson.stdout)).toEqual(JSON.parse(await readFile(join(portal.dir, 'plan.json'), 'utf8')));
  });

  it('refuses what is not a saved plan with a clear error, exit 1', async () => {
    await writeFile(join(portal.dir, 'broken.json'), '{"formatVersion": 1, "operations": [');
    await writeFile(join(portal.dir, 'foreign.json'), JSON.stringify({ formatVersion: 1, operations: [{ address: 'x' }], basisDigest: 'sha256:0' }));
    // Configs, YAML and JSON: the advice for a damaged plan would write a plan over them.
    await writeFile(join(portal.dir, 'portalctl.yaml'), '# the config\nversion: 1  # format\nroles: []\n');
    await writeFile(join(portal.dir, 'portalctl.json'), JSON.stringify({ version: 1, roles: [] }));
    await writeFile(join(portal.dir, 'later.json'), JSON.stringify({ formatVersion: 2, operations: [], basisDigest: 'sha256:0' }));
    const asConfig = (file: string) =>
      `Error: ${file} is a config, not a saved plan: apply its directory's config with \`portalctl apply .\`, or save that plan with \`portalctl plan . --out plan.json\` and apply it with \`portalctl apply --plan plan.json\`.`;
    const cases: [string, string][] = [
      ['missing.json', 'Error: Could not read the plan file missing.json'],
      ['broken.json', 'Error: broken.json is not a plan file:'],
      ['foreign.json', 'Error: foreign.json is not a portalctl plan (formatVersion 1); save one with `portalctl plan --out foreign.json`.'],
      ['later.json', 'Error: later.json was saved by a later portalctl (plan format version 2; this one reads version 1): show or apply it with that portalctl, or plan again with this one.'],
      ['portalctl.yaml', asConfig('portalctl.yaml')],
      ['portalctl.json', asConfig('portalctl.json')],
    ];
    for (const [file, message] of cases) {
      const result = await portal.run(['show', file]);
      expect(result.code, file).toBe(1);
      expect(result.stderr, file).toContain(message);
      expect(result.stdout, file).toBe('');
    }
  });
});
