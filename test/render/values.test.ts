import { stripVTControlCharacters } from 'node:util';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { redactor, resolveReferences } from '../../src/engine/config/references.js';
import { buildPlan } from '../../src/engine/plan/plan.js';
import { renderOutcomeLine } from '../../src/engine/render/apply.js';
import { valueLines } from '../../src/engine/render/diff.js';
import { renderPlanMarkdown } from '../../src/engine/render/markdown.js';
import { redactPlan } from '../../src/engine/plan/redact.js';
import { painter } from '../../src/engine/render/style.js';
import { renderPlanText, textLines } from '../../src/engine/render/text.js';
import { DEFAULT_VALUE_STYLE, inlineValue, yamlLines } from '../../src/engine/render/values.js';
import type { Kind } from '../../src/kinds/toolkit/contract.js';
import { desired, fakeKind } from '../engine/fake-kind.js';

// One line: the fake kind sends its value as JSON, where a newline would be escaped.
const CERT = `-----BEGIN CERTIFICATE----- ${'MIIB'.repeat(290)} -----END CERTIFICATE-----`;
const LIVE_CERT = `-----BEGIN CERTIFICATE-----\n${'OLDC'.repeat(40)}\n-----END CERTIFICATE-----\n`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The federation-like object of a config whose certificate and secret come from references. */
async function resolvedConfig() {
  const dir = await mkdtemp(join(tmpdir(), 'portalctl-render-'));
  await mkdir(join(dir, 'certs'));
  await writeFile(join(dir, 'certs/federation.pem'), CERT);
  const data: JsonValue = { certificate: '${file:certs/federation.pem}', clientSecret: '${env:IDP_SECRET}', note: 'key is ${env:IDP_SECRET}!' };
  const result = resolveReferences(data, { file: join(dir, 'users.yaml'), env: { IDP_SECRET: 'hunter2-very-secret' }, locate: () => ({ file: 'users.yaml', line: 1, column: 1 }) });
  expect(result.diagnostics).toEqual([]);
  return { value: result.data, redact: redactor(result.resolved) };
}

function shownPlan(value: JsonValue, live: JsonValue, redact: ReturnType<typeof redactor>) {
  const kind = fakeKind();
  const plan = buildPlan({
    objects: [desired('idp', value)],
    basis: new Map([['fake[idp]', live]]),
    recorded: {},
    kinds: new Map<string, Kind>([[kind.name, kind]]),
    portal: { url: 'https://p.example.com/sharing/rest' },
    refreshed: true,
    state: null,
    targets: [],
  });
  // What the kinds give each operation: the object's name as a person knows it.
  for (const op of plan.operations) op.label = 'Partner IdP';
  return redactPlan(plan, redact);
}

describe('values from references', () => {
  it('carries the size and a short fingerprint of each resolved reference, never the value', async () => {
    const { redact } = await resolvedConfig();
    expect(redact.references).toEqual({
      '${file:certs/federation.pem}': { bytes: Buffer.byteLength(CERT), sha256: sha(CERT).slice(0, 4) },
      '${env:IDP_SECRET}': { bytes: 19, sha256: sha('hunter2-very-secret').slice(0, 4) },
    });
  });

  it('shows the reference with its size and fingerprint, and hides the live side of secret-like fields', async () => {
    const { value, redact } = await resolvedConfig();
    const plan = shownPlan(value, { certificate: LIVE_CERT, clientSecret: 'old-secret-value', note: 'old' }, redact);
    const text = renderPlanText(plan, { color: false });
    const bytes = Buffer.byteLength(CERT).toLocaleString('en-US');
    expect(bytes).toContain(',');
    expect(text).toContain(`    ~ certificate: (hidden: ${Buffer.byteLength(LIVE_CERT)} bytes, sha256 ${sha(LIVE_CERT).slice(0, 4)}…) -> \${file:certs/federation.pem} (${bytes} bytes, sha256 ${sha(CERT).slice(0, 4)}…)`);
    expect(text).toContain(`    ~ clientSecret: (hidden: 16 bytes, sha256 ${sha('old-secret-value').slice(0, 4)}…) -> \${env:IDP_SECRET} (19 bytes, sha256 ${sha('hunter2-very-secret').slice(0, 4)}…)`);
    expect(text).toContain('    ~ note: "old" -> "key is ${env:IDP_SECRET}!" (${env:IDP_SECRET}: 19 bytes');
    const markdown = renderPlanMarkdown(plan);
    for (const output of [text, markdown, JSON.stringify(plan)]) {
      expect(output).not.toContain('hunter2');
      expect(output).not.toContain('MIIBMIIB');
    }
    for (const output of [text, markdown]) {
      expect(output).not.toContain('OLDCOLDC');
      expect(output).not.toContain('old-secret-value');
    }
    // The JSON plan gains the facts as an extra field.
    expect(plan.references?.['${env:IDP_SECRET}']).toEqual({ bytes: 19, sha256: sha('hunter2-very-secret').slice(0, 4) });
  });
});

describe('nested values', () => {
  const lines = (before: JsonValue, after: JsonValue) => textLines(valueLines(before, after), painter(false), '');

  it('are indented YAML blocks, not JSON one-liners', () => {
    expect(lines(null, { guestPortalUrl: 'https://partner.example.org/portal', workspaces: { w1: 'sendAndReceive' } })).toEqual([
      '+ guestPortalUrl: https://partner.example.org/portal',
      '+ workspaces:',
      '+   w1: sendAndReceive',
    ]);
    expect(lines({ a: 1, nested: { x: [1, 2] } }, { a: 1, nested: { x: [1, 3], y: { deep: true } } })).toEqual([
      '~ nested:',
      '~   x:',
      '-     - 2',
      '+     - 3',
      '+   y:',
      '+     deep: true',
      '  # (1 unchanged field hidden)',
    ]);
  });

  it('never shows the values inside a secret-like field', () => {
    const shown = lines({ secrets: { apiKey: 'old-one-12345', other: 'old-two-12345' } }, { secrets: { apiKey: 'new-one-12345', other: 'old-two-12345' } }).join('\n');
    expect(shown).not.toMatch(/old-one|old-two|new-one/);
    expect(shown).toMatch(/^- secrets:\n- {3}apiKey: "\(hidden: 13 bytes, sha256 [0-9a-f]{4}…\)"/);
  });

  it('counts unchanged fields of an updated object instead of listing them', () => {
    expect(lines({ a: 1, b: 2, c: 3, d: 4 }, { a: 1, b: 2, c: 3, d: 5 })).toEqual(['~ d: 4 -> 5', '  # (3 unchanged fields hidden)']);
  });

  it('cuts long values and says their size', () => {
    const long = 'x'.repeat(5000);
    expect(inlineValue(long, 'description')).toMatch(/^"x+"… \(5,000 chars\)$/);
    expect(inlineValue(long, 'description').length).toBeLessThan(130);
    const block = yamlLines(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, i])), undefined, DEFAULT_VALUE_STYLE);
    expect(block).toHaveLength(40);
    expect(block[39]).toMatch(/^# … 61 more lines \(\d[\d,]* bytes\)$/);
  });

  it('cuts values to the terminal width when it is known', () => {
    const plan = shownPlan({ description: 'y'.repeat(300) }, { description: 'short' }, redactor([]));
    const narrow = renderPlanText(plan, { color: false, width: 80 });
    const line = narrow.split('\n').find((l) => l.includes('description:')) as string;
    expect(line.length).toBeLessThan(80 + 20);
    expect(line).toContain('(300 chars)');
    expect(renderPlanText(plan, { color: false }).length).toBeGreaterThan(narrow.length);
  });
});

describe('terminal text', () => {
  it('names the object beside its address and colours marks only when asked', () => {
    const plan = shownPlan({ x: 2 }, { x: 1 }, redactor([]));
    const plain = renderPlanText(plan, { color: false });
    expect(plain).toContain('  ~ fake[idp] — Partner IdP  (E0 fake update)');
    expect(plain).not.toContain('\x1b[');
    const coloured = renderPlanText(plan, { color: true });
    expect(coloured).toContain('\x1b[33m~\x1b[39m fake[idp] — Partner IdP');
    expect(stripVTControlCharacters(coloured)).toBe(plain);
  });

  it('puts the name in the markdown table and diff, and in the JSON plan as an extra field', () => {
    const plan = shownPlan({ x: 2 }, { x: 1 }, redactor([]));
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain('| ✏️ update | `fake[idp]` | Partner IdP | E0 fake update |  |');
    expect(markdown).toContain('~ fake[idp] — Partner IdP\n-   x: 1\n+   x: 2');
    expect(JSON.parse(JSON.stringify(plan)).operations[0].label).toBe('Partner IdP');
  });

  it('names the object in the lines apply prints as it goes', () => {
    const op = shownPlan({ x: 2 }, { x: 1 }, redactor([])).operations[0];
    if (!op) throw new Error('no operation planned');
    expect(renderOutcomeLine({ status: 'applied', op }, undefined)).toBe('applied  fake[idp] — Partner IdP  (E0)\n');
    expect(renderOutcomeLine({ status: 'failed', op, error: new Error('HTTP 500') }, undefined)).toBe('FAILED   fake[idp] — Partner IdP  (E0): HTTP 500\n');
    expect(renderOutcomeLine({ status: 'skipped', op, reason: 'after a failure' }, undefined)).toBe('skipped  fake[idp] — Partner IdP: after a failure\n');
  });
});
