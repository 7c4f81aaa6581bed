/**
 * Golden files: the text and markdown plans (and the graph) of `examples/full` against the sample
 * organization, as a reviewer sees them. A change to the rendering shows up as a diff of these
 * files; `npm run update-golden` (scripts/update-golden.mjs) writes them again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startCliPortal, type CliPortal } from '../support/cli.js';

const EXAMPLE = join(REPO_ROOT, 'examples/full');
const GOLDEN = join(REPO_ROOT, 'test/golden');
const updating = process.env['PORTALCTL_UPDATE_GOLDEN'] === '1';

let portal: CliPortal;
beforeAll(async () => {
  portal = await startCliPortal();
});
afterAll(async () => {
  await portal?.close();
});

async function matchesGolden(file: string, actual: string): Promise<void> {
  const path = join(GOLDEN, file);
  if (updating) await writeFile(path, actual);
  expect(actual, `${file} differs; if the change is intended, run \`npm run update-golden\` and review the diff`).toBe(await readFile(path, 'utf8'));
}

describe('the plan of examples/full against the sample organization', () => {
  it.each([
    ['full-plan.txt', ['plan', EXAMPLE]],
    ['full-plan.md', ['plan', EXAMPLE, '--format', 'markdown']],
    ['full-graph.mmd', ['graph', EXAMPLE]],
    ['full-graph.dot', ['graph', EXAMPLE, '--format', 'dot']],
  ])('%s', async (file, args) => {
    const result = await portal.run(args, { env: { NO_COLOR: '1' } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Piped output is plain text (FORCE_COLOR, which asks for colour even there, is not set).
    expect(result.stdout).not.toContain('\x1b[');
    // What changes from run to run (the emulator's port, temporary and checkout paths) is named, not compared.
    const stable = result.stdout.replaceAll(portal.url, 'http://127.0.0.1:PORT/portal/sharing/rest').replaceAll(portal.dir, 'TMP').replaceAll(REPO_ROOT.replace(/\/$/, ''), 'REPO');
    await matchesGolden(file, stable);
  });
});
