/** The kind set conformance suite on the registry: the kinds portalctl ships, with examples/full and examples/legacy. */
import { join } from 'node:path';
import { registry } from '../../src/registry.js';
import { REPO_ROOT } from '../support/cli.js';
import { kindSetConformance } from './kind-set-conformance.js';

export const REGISTRY_EXAMPLES = [
  { dir: join(REPO_ROOT, 'examples/full'), data: join(REPO_ROOT, 'examples/emulator/portal.yaml') },
  { dir: join(REPO_ROOT, 'examples/legacy'), data: join(REPO_ROOT, 'examples/emulator/legacy-portal.yaml') },
];

kindSetConformance('the registry', async () => ({ kinds: registry, examples: REGISTRY_EXAMPLES }));
