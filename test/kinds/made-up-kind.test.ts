/**
 * A kind added exactly as CONTRIBUTING.md says (made-up-kind.ts holds steps 1 to 3): its own
 * tests (step 4), then every generic check of the kind set conformance suite on the registry
 * with it. Nothing in src/ knows of it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchemaText } from '../../src/engine/config/index.js';
import { REPO_ROOT } from '../support/cli.js';
import { HEADER, portalPerTest } from '../support/portal.js';
import { kindSetConformance } from './kind-set-conformance.js';
import { EXAMPLE_HELP_DESK, SAMPLE_HELP_DESK, exampleWithHelpDesk, helpDeskRoutes, madeUpKindSet } from './made-up-kind.js';
import { expectNothingToSend, expectPlanRefused, planned, writes } from './settings-support.js';

const kinds = madeUpKindSet();

describe('a made-up 15th kind, organization.helpDesk (E15), against the emulator', () => {
  const portal = portalPerTest({ kinds, extraRoutes: helpDeskRoutes() });
  const declare = (fields: string) => portal.config(`${HEADER}organization:\n  helpDesk: { ${fields} }\n`);

  it('the build would publish it: the schema has its property, described', () => {
    expect(configSchemaText(kinds)).toContain('"helpDesk": {');
    expect(configSchemaText(kinds)).toContain('E15: where members get help.');
  });

  it('plans E15 with the exact request, sends exactly it, and converges', async () => {
    const config = await declare(`email: ${EXAMPLE_HELP_DESK.email}, hours: "${EXAMPLE_HELP_DESK.hours}"`);
    const prepared = await portal.plan(config);
    expect(planned(prepared)).toEqual([{ address: 'organization.helpDesk', action: 'update', operation: 'E15', before: SAMPLE_HELP_DESK, after: EXAMPLE_HELP_DESK }]);
    expect(prepared.plan.operations[0]?.request).toMatchObject({ method: 'POST', path: '/portals/self/helpDesk/update', form: EXAMPLE_HELP_DESK });
    await portal.clearRequests();
    const applied = await portal.apply(config);
    expect(applied.result.failed).toEqual([]);
    expect((await writes(portal)).map(({ method, path, params }) => ({ method, path, params }))).toEqual([
      { method: 'POST', path: '/portals/self/helpDesk/update', params: EXAMPLE_HELP_DESK },
    ]);
    await expectNothingToSend(portal, config);
  });

  it('manages only the declared fields', async () => {
    const config = await declare('hours: "24/7"');
    await portal.clearRequests();
    await portal.apply(config);
    expect((await writes(portal)).map(({ params }) => params)).toEqual([{ hours: '24/7' }]);
    await expectNothingToSend(portal, config);
  });

  it('its rule refuses an address without "@" at plan time, located, and sends nothing', async () => {
    const config = await declare('email: helpdesk');
    const error = await expectPlanRefused(portal, config, 'help-desk/email', 'organization.helpDesk');
    expect(error.diagnostics.find((diagnostic) => diagnostic.code === 'help-desk/email')?.location).toMatchObject({ line: 7, column: 22 });
  });

  it('the portal refuses it to anyone but a default administrator: the apply fails with the API code, and the refused value is not recorded', async () => {
    await portal.restart({ kinds, extraRoutes: helpDeskRoutes(), token: 'steward-token' });
    const config = await declare('hours: "24/7"');
    const applied = await portal.apply(config);
    expect(applied.result.applied).toEqual([]);
    expect(applied.result.failed.map(({ op, error }) => [op.address, String(error)])).toEqual([
      ['organization.helpDesk', expect.stringMatching(/403.*GWM_0003|GWM_0003.*403/)],
    ]);
    // The state keeps what it observed of the portal, not the refused value.
    const recorded = (await portal.store.read())?.resources['organization.helpDesk'];
    expect(recorded).not.toHaveProperty('appliedAt');
    expect(recorded?.value).toEqual({ hours: SAMPLE_HELP_DESK.hours });
  });
});

kindSetConformance('the registry and the made-up organization.helpDesk', async () => ({
  kinds,
  examples: [
    { dir: await exampleWithHelpDesk(), data: join(REPO_ROOT, 'examples/emulator/portal.yaml') },
    { dir: join(REPO_ROOT, 'examples/legacy'), data: join(REPO_ROOT, 'examples/emulator/legacy-portal.yaml') },
  ],
  extraRoutes: helpDeskRoutes,
}));
