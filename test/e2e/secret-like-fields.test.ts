/**
 * A secret-like field written as it is in the config (a certificate, a secret, a token) is shown
 * hidden, as its size and a short fingerprint, in every output: the text plan, `plan --format
 * json`, a saved plan and what `show` prints of it. The saved plan still applies, sending the
 * value itself.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

const BODY = 'MIIBtDCCAVqgAwIBAgIUU2VjcmV0TGl0ZXJhbENlcnRpZmljYXRlMAoGCCqGSM49';
const CERTIFICATE = `-----BEGIN CERTIFICATE-----\n${BODY}\n-----END CERTIFICATE-----\n`;
/** The sample organization's certificate: the plan's `before`. */
const LIVE_BODY = 'MIIBszCCAVmgAwIBAgIUQ2FtcHVzRmVkZXJhdGlvbkNlcnQwCgYIKoZIzj0EAwIw';

const hidden = (text: string): string => `(hidden: ${Buffer.byteLength(text, 'utf8')} bytes, sha256 ${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 4)}…)`;

interface JsonPlan {
  operations: { address: string; request: { form: Record<string, string> }; before: Record<string, unknown>; after: Record<string, unknown>; patch: { path: string; value?: unknown }[] }[];
}

describe('a secret-like field written in the config', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  it('is hidden in the JSON plan as in the text plan, and a saved plan holding it hidden applies it', async () => {
    const config = await portal.writeConfig(`${CONFIG_HEADER}federations:\n  - id: J55ajJJ7MsY1QoQs\n    certificate: |\n      -----BEGIN CERTIFICATE-----\n      ${BODY}\n      -----END CERTIFICATE-----\n`);
    const text = await portal.run(['plan', config]);
    const json = await portal.run(['plan', config, '--format', 'json']);
    const saved = await portal.run(['plan', config, '--out', 'saved.json']);
    for (const run of [text, json, saved]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(BODY);
      expect(run.stdout + run.stderr).not.toContain(LIVE_BODY);
    }
    expect(text.stdout).toContain(hidden(CERTIFICATE));

    const operation = (JSON.parse(json.stdout) as JsonPlan).operations.find((op) => op.after['certificate'] !== undefined);
    expect(operation?.after['certificate']).toBe(hidden(CERTIFICATE));
    expect(operation?.before['certificate']).toMatch(/^\(hidden: [0-9,]+ bytes, sha256 [0-9a-f]{4}…\)$/);
    expect(operation?.request.form['certificate']).toBe(hidden(CERTIFICATE));
    expect(operation?.patch.find((p) => p.path === '/certificate')?.value).toBe(hidden(CERTIFICATE));

    const file = await readFile(join(portal.dir, 'saved.json'), 'utf8');
    expect(file).not.toContain(BODY);
    expect(file).toContain(JSON.stringify(hidden(CERTIFICATE)));
    // `show` prints the hidden value as saved, not the size and fingerprint of the marker.
    const shown = await portal.run(['show', 'saved.json']);
    expect(shown.stdout).toContain(hidden(CERTIFICATE));
    expect(shown.stdout).not.toContain('(hidden: (hidden');

    const applied = await portal.run(['apply', '--plan', 'saved.json', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain(BODY);
    const state = await portal.state();
    expect(JSON.stringify(state)).toContain(BODY);
  });
});
