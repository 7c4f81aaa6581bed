/**
 * A portal that quotes a secret back in its error does so in its own way: HTML-escaped (an HTML
 * error page), percent-encoded (the form it was sent in), JSON-escaped, or cut short. The CLI
 * shows none of these: a referenced value shows as its reference, a credential as `[redacted]`,
 * in the error, its `--verbose` cause and the JSON error document.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HEADER, startCliPortal, type CliPortal } from '../support/cli.js';

/** Characters every encoding changes: `&`, `<`, `"`, `'`, a space, `/`, `+`, a backslash and an accented letter. */
const NOTE = `p&ss "w<rd>" it's é/+\\ ok`;
const PASSWORD = `Adm1n&"pa<ss>" word's é/+`;

const htmlEscaped = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const formEncoded = (text: string): string => new URLSearchParams({ v: text }).toString().slice(2);
/** JSON's escapes with every non-ASCII character as `\u....` (as an ASCII-only encoder writes it). */
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Every form a quote may give `value`, each with the part of it that must never be shown. */
function forms(value: string): Record<string, string> {
  return {
    plain: value,
    html: htmlEscaped(value),
    form: formEncoded(value),
    url: encodeURIComponent(value),
    json: jsonEscaped(value),
    cut: value.slice(0, 12),
  };
}

function expectShownInNoForm(output: string, value: string): void {
  for (const [name, form] of Object.entries(forms(value))) expect(output, `${name} form ${form}`).not.toContain(form);
}

/** HTML5 named references of characters beyond ASCII (as an encoder that names every character it can writes them). */
const NAMED: Readonly<Record<string, string>> = { '\u00fc': '&uuml;', '\u2019': '&rsquo;', '\u00e9': '&eacute;', '\u00bd': '&frac12;', '\u00ba': '&ordm;', '\u00a0': '&nbsp;' };
const namedEscaped = (text: string): string => htmlEscaped(text).replace(/[^\x20-\x7e]/g, (char) => NAMED[char] ?? char);
/** JSON from an encoder that also escapes `&`, `<`, `>` (HTML-safe JSON). */
const htmlSafeJson = (text: string): string => jsonEscaped(text).replace(/[&<>]/g, (char) => `\\u00${char.charCodeAt(0).toString(16)}`);

const ROLE_CONFIG = `${CONFIG_HEADER}roles:\n  - { id: r7HkQ2, name: Field Analyst, description: "Edits \${env:ROLE_NOTE} data" }\n`;

describe('a secret the portal quotes back, in any form', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  it('a referenced value in an error message, escaped, encoded or cut short, shows as its reference', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const quoted = forms(NOTE);
    const message = `Bad description: html "${quoted.html}", form ${quoted.form}, url ${quoted.url}, json "${quoted.json}", cut "${NOTE.slice(0, 12)}…" and "${NOTE.slice(0, 10)}..."`;
    await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 400, message }, count: 0 });
    const expected = 'Bad description: html "${env:ROLE_NOTE}", form ${env:ROLE_NOTE}, url ${env:ROLE_NOTE}, json "${env:ROLE_NOTE}", cut "${env:ROLE_NOTE}…" and "${env:ROLE_NOTE}..." (code 400)';

    const planned = await portal.run(['plan', config, '--verbose'], { env: { ROLE_NOTE: NOTE } });
    expect(planned.code).toBe(1);
    expectShownInNoForm(planned.stdout + planned.stderr, NOTE);
    expect(planned.stderr).toContain(`Error: GET /portals/self/roles failed: ${expected}\n`);

    const json = await portal.run(['plan', config, '--format', 'json'], { env: { ROLE_NOTE: NOTE } });
    expect(json.code).toBe(1);
    expectShownInNoForm(json.stdout + json.stderr, NOTE);
    expect(json.stdout).toContain(JSON.stringify(`GET /portals/self/roles failed: ${expected}`));
  });

  it('a referenced value on an HTML error page, escaped and cut where the page is cut, shows as its reference', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    // The error quotes 300 characters of the page's text ("Rejected xxx… <value>"): the escaped value is cut inside its `&gt;`.
    const cut = htmlEscaped(NOTE).slice(0, 24);
    const filler = 'x'.repeat(300 - 'Rejected  '.length - cut.length);
    const body = `<!DOCTYPE html><html><body><h1>Rejected</h1><p>${filler} ${htmlEscaped(NOTE)} was refused.</p></body></html>`;
    await portal.fault({ path: '/portals/self/roles', method: 'GET', status: 400, body, count: 0 });
    const planned = await portal.run(['plan', config], { env: { ROLE_NOTE: NOTE } });
    expect(planned.code).toBe(1);
    expectShownInNoForm(planned.stdout + planned.stderr, NOTE);
    expect(planned.stdout + planned.stderr).not.toContain(cut.slice(0, 12));
    expect(planned.stderr).toContain(`${filler} \${env:ROLE_NOTE}...`);
  });

  it('a password the portal quotes escaped, encoded or cut short shows as [redacted]', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const quoted = forms(PASSWORD);
    const message = `Invalid password "${quoted.html}" (sent as ${quoted.form}, ${quoted.json}, ${PASSWORD.slice(0, 9)}...)`;
    await portal.fault({ path: '/generateToken', error: { code: 400, message }, count: 0 });
    const planned = await portal.run(['plan', config, '--verbose'], { credentials: { username: 'admin', password: PASSWORD }, env: { ROLE_NOTE: NOTE } });
    expect(planned.code).toBe(1);
    expectShownInNoForm(planned.stdout + planned.stderr, PASSWORD);
    expect(planned.stderr).toContain('Invalid password "[redacted]" (sent as [redacted], [redacted], [redacted]...)');
  });

  it('a referenced value an HTML error page quotes with named references beyond ASCII (&eacute;, &rsquo;) shows as its reference', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const note = 'M\u00fcller\u2019s caf\u00e9 \u00bd-share n\u00ba\u00a07 <ok>';
    const body = `<!DOCTYPE html><html><body><h1>Rejected</h1><p>Description ${namedEscaped(note)} was refused.</p></body></html>`;
    await portal.fault({ path: '/portals/self/roles', method: 'GET', status: 400, body, count: 0 });
    for (const format of ['text', 'json']) {
      const planned = await portal.run(['plan', config, '--format', format], { env: { ROLE_NOTE: note } });
      expect(planned.code).toBe(1);
      const output = planned.stdout + planned.stderr;
      expectShownInNoForm(output, note);
      expect(output).not.toContain(namedEscaped(note).slice(0, 12));
      expect(output).toContain('Description ${env:ROLE_NOTE} was refused.');
    }
  });

  it('a password the portal quotes encoded twice (percent-encoded twice, HTML-escaped inside JSON, JSON-escaped then percent-encoded) shows as [redacted]', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const twice = [encodeURIComponent(encodeURIComponent(PASSWORD)), htmlSafeJson(htmlEscaped(PASSWORD)), encodeURIComponent(jsonEscaped(PASSWORD)), htmlEscaped(htmlEscaped(PASSWORD))];
    const message = `Invalid password ${twice.map((form) => `"${form}"`).join(', ')}`;
    await portal.fault({ path: '/generateToken', error: { code: 400, message }, count: 0 });
    for (const format of ['text', 'json']) {
      const planned = await portal.run(['plan', config, '--verbose', '--format', format], { credentials: { username: 'admin', password: PASSWORD }, env: { ROLE_NOTE: NOTE } });
      expect(planned.code).toBe(1);
      const output = planned.stdout + planned.stderr;
      expectShownInNoForm(output, PASSWORD);
      for (const form of twice) expect(output).not.toContain(form.slice(0, 12));
      const shown = 'Invalid password "[redacted]", "[redacted]", "[redacted]", "[redacted]"';
      expect(output).toContain(format === 'json' ? JSON.stringify(shown).slice(1, -1) : shown);
    }
  });

  it('a referenced value quoted cut short at its start (…tail, ...tail) or at both ends shows as its reference, the ellipsis where the cut is', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const message = `Bad description: "\u2026${NOTE.slice(-14)}" and "...${NOTE.slice(-10)}", form \u2026${formEncoded(NOTE).slice(-20)}, both "...${NOTE.slice(3, 15)}...", end "${NOTE.slice(0, 10)}..."`;
    await portal.fault({ path: '/portals/self/roles', method: 'GET', error: { code: 400, message }, count: 0 });
    const expected = 'Bad description: "\u2026${env:ROLE_NOTE}" and "...${env:ROLE_NOTE}", form \u2026${env:ROLE_NOTE}, both "...${env:ROLE_NOTE}...", end "${env:ROLE_NOTE}..." (code 400)';

    const planned = await portal.run(['plan', config, '--verbose'], { env: { ROLE_NOTE: NOTE } });
    expect(planned.code).toBe(1);
    for (const tail of [NOTE.slice(-10), formEncoded(NOTE).slice(-12), NOTE.slice(3, 15)]) expect(planned.stdout + planned.stderr).not.toContain(tail);
    expect(planned.stderr).toContain(`Error: GET /portals/self/roles failed: ${expected}\n`);

    const json = await portal.run(['plan', config, '--format', 'json'], { env: { ROLE_NOTE: NOTE } });
    expect(json.code).toBe(1);
    for (const tail of [JSON.stringify(NOTE.slice(-10)).slice(1, -1), formEncoded(NOTE).slice(-12), JSON.stringify(NOTE.slice(3, 15)).slice(1, -1)]) expect(json.stdout + json.stderr).not.toContain(tail);
    expect(json.stdout).toContain(JSON.stringify(`GET /portals/self/roles failed: ${expected}`));
  });

  it('a password inside a referenced value the portal quotes: the reference, with no part of the value around the password', async () => {
    const config = await portal.writeConfig(ROLE_CONFIG);
    const note = 'rotated-note-admin-password-kept-private';
    await portal.fault({ path: '/roles/r7HkQ2/update', error: { code: 400, message: `Description "Edits ${note} data" is not allowed.` }, count: 0 });
    const applied = await portal.run(['apply', config, '--auto-approve'], { credentials: { username: 'admin', password: 'admin-password' }, env: { ROLE_NOTE: note } });
    expect(applied.code).toBe(1);
    const output = applied.stdout + applied.stderr;
    expect(output).not.toContain('admin-password');
    // Replaced one after the other, the password first, the value's parts around it were shown.
    expect(output).not.toContain('rotated-note');
    expect(output).not.toContain('kept-private');
    expect(output).toContain('Description "Edits ${env:ROLE_NOTE} data" is not allowed.');
  });
});
