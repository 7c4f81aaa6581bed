/**
 * A made-up 15th kind, added by following CONTRIBUTING.md's steps to the letter, in memory:
 *
 * 1. its file: `organizationHelpDesk` below is what src/kinds/organization-help-desk.ts would
 *    hold, `defineKind` data with the kinds' own helpers;
 * 2. its registration: `madeUpKindSet()` composes the registered kinds and containers with it,
 *    as src/kinds/index.ts and src/registry.ts would (the build's schema comes from that set);
 * 3. its example: `exampleWithHelpDesk()` copies examples/full and declares it there (and in the
 *    example's README), with a value that differs from the emulator's; the emulator does not
 *    serve E15, so `helpDeskRoutes()` is the route src/emulator/<area>/routes.ts would add;
 * 4. its tests: made-up-kind.test.ts.
 * No file of src/ changes: the engine, the CLI's use cases and the schema composition take it.
 */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { JsonObject } from '../../src/core/json.js';
import type { LiveReader } from '../../src/core/request.js';
import { badRequest, optionalParam, success, json } from '../../src/emulator/shared/params.js';
import { requireDefaultAdmin } from '../../src/emulator/shared/access.js';
import type { Route } from '../../src/emulator/shared/types.js';
import { createKindSet, type KindSet } from '../../src/engine/kind-set.js';
import { entryProperty } from '../../src/kinds/toolkit/config-entries.js';
import type { DiscoveredObject } from '../../src/kinds/toolkit/contract.js';
import { defineKind } from '../../src/kinds/toolkit/define.js';
import { containers, kinds } from '../../src/kinds/index.js';
import { isObject, pick, problem } from '../../src/kinds/toolkit/support.js';
import { REPO_ROOT } from '../support/cli.js';

const HELP_DESK_PATH = '/portals/self/helpDesk';
const fieldNames = ['email', 'hours'];

/** Step 1: E15, the organization's help desk (made up): where members get help, and when. */
export const organizationHelpDesk = defineKind({
  name: 'organization.helpDesk',
  operation: { id: 'E15', name: 'Update help desk' },
  authority: { who: 'default organization administrators', role: 'defaultAdministrator' },
  config: [
    entryProperty(
      'organization',
      'helpDesk',
      {
        type: 'object',
        additionalProperties: false,
        description: 'E15: where members get help. Omitted fields are unmanaged.',
        properties: {
          email: { type: 'string', description: 'E15: the help desk address; the portal refuses one without "@".' },
          hours: { type: 'string', description: 'E15: when the help desk answers, as members read it.' },
        },
      },
      (declared) => (isObject(declared) ? pick(declared, fieldNames) : undefined),
    ),
  ],
  check(obj, ctx) {
    const email = isObject(obj.value) ? obj.value['email'] : undefined;
    if (typeof email !== 'string' || email.includes('@')) return [];
    return [problem(ctx, obj, ['email'], { code: 'help-desk/email', message: 'helpDesk.email is not an e-mail address.', value: email, expected: 'an address with "@"' })];
  },
  live: { one: (_obj, reader) => reader.get(HELP_DESK_PATH) },
  fields: { email: {}, hours: {} },
  request: { path: () => `${HELP_DESK_PATH}/update` },
  discover: discoverHelpDesk,
});

/** For import: the help desk's fields that are set. */
async function discoverHelpDesk(reader: LiveReader): Promise<DiscoveredObject[]> {
  const live = await reader.get(HELP_DESK_PATH);
  const fields = isObject(live) ? pick(live, fieldNames) : {};
  for (const name of Object.keys(fields)) if (fields[name] === '') delete fields[name];
  return Object.keys(fields).length === 0 ? [] : [{ path: [{ container: 'organization' }], fields: { helpDesk: fields } }];
}

/** Step 2: the registered kinds with the new one last, on the same containers. */
export function madeUpKindSet(): KindSet {
  return createKindSet([...kinds, organizationHelpDesk], containers);
}

/** What the emulator holds of the help desk before any write: the sample organization's. */
export const SAMPLE_HELP_DESK = { email: 'gis-help@riverside.example', hours: 'Mon-Fri 8:00-17:00' };

/**
 * Step 3, the emulator's half: the read the kind's `live` uses and E15 itself, refused to all
 * but default administrators and for an address without "@". Each call serves one emulator.
 */
export function helpDeskRoutes(): Route[] {
  let helpDesk: JsonObject = { ...SAMPLE_HELP_DESK };
  return [
    { access: 'read', pattern: '/portals/:portalId/helpDesk', handle: () => json({ ...helpDesk }) },
    {
      access: 'write',
      pattern: '/portals/:portalId/helpDesk/update',
      handle({ params, caller }) {
        requireDefaultAdmin(caller, 'helpDesk update');
        const email = optionalParam(params, 'email');
        if (email !== undefined && !email.includes('@')) throw badRequest(`'${email}' is not an e-mail address.`, ['Send an e-mail address with "@".']);
        const hours = optionalParam(params, 'hours');
        helpDesk = { ...helpDesk, ...(email === undefined ? {} : { email }), ...(hours === undefined ? {} : { hours }) };
        return success();
      },
    },
  ];
}

/** The value examples/full declares (every field differs from the sample's). */
export const EXAMPLE_HELP_DESK = { email: 'servicedesk@riverside.example', hours: 'Mon-Fri 7:30-18:00' };

/** Step 3, the config's half: a copy of examples/full that declares the help desk, and lists it in its README. */
export async function exampleWithHelpDesk(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-made-up-kind-'));
  await cp(join(REPO_ROOT, 'examples/full'), dir, { recursive: true });
  const file = join(dir, 'organization.yaml');
  const document = parseDocument(await readFile(file, 'utf8'));
  document.setIn(['organization', 'helpDesk'], document.createNode(EXAMPLE_HELP_DESK));
  await writeFile(file, document.toString());
  const readme = join(dir, 'README.md');
  const listing = (await readFile(readme, 'utf8')).replace('E12 resource removal |', 'E12 resource removal, E15 help desk |');
  await writeFile(readme, listing);
  return dir;
}
