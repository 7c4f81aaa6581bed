/** Finding secrets in the forms a quote gives them, without finding them in texts that do not hold them. */
import { describe, expect, it } from 'vitest';
import { secretScrubber } from '../../src/core/secret-text.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB+zCCAWSgAwIBAgIJAK/x==\nQm9vdA==\n-----END CERTIFICATE-----\n';

describe('secretScrubber', () => {
  const scrub = secretScrubber([
    { value: PEM, shown: '${file:cert.pem}', minLength: 8 },
    { value: 'Na\u00efve caf\u00e9 \u{1F511} key', shown: '${env:NOTE}', minLength: 8 },
  ]);

  it('a certificate quoted whole, without its last line break, or with its lines squeezed onto one (an HTML page\'s text)', () => {
    expect(scrub(`got ${PEM}!`)).toBe('got ${file:cert.pem}!');
    expect(scrub(`got ${PEM.trim()}!`)).toBe('got ${file:cert.pem}!');
    expect(scrub(`got ${PEM.trim().replace(/\n/g, ' ')}!`)).toBe('got ${file:cert.pem}!');
    expect(scrub(`got ${JSON.stringify(PEM.trim()).slice(1, -1)}!`)).toBe('got ${file:cert.pem}!');
  });

  it('non-ASCII characters percent-encoded, as JSON escapes (a surrogate pair too) or HTML character references', () => {
    expect(scrub(`x ${encodeURIComponent('Na\u00efve caf\u00e9 \u{1F511} key')} y`)).toBe('x ${env:NOTE} y');
    expect(scrub('x Na\\u00EFve caf\\u00e9 \\ud83d\\udd11 key y')).toBe('x ${env:NOTE} y');
    expect(scrub('x Na&#239;ve caf&#xe9; &#128273; key y')).toBe('x ${env:NOTE} y');
  });

  it('a quote cut short is found from 8 of its characters on, not fewer, and only before an ellipsis', () => {
    expect(scrub('x Na\u00efve ca\u2026')).toBe('x ${env:NOTE}\u2026');
    expect(scrub('x Na\u00efve c\u2026')).toBe('x Na\u00efve c\u2026');
    expect(scrub('x Na\u00efve cafeteria')).toBe('x Na\u00efve cafeteria');
    expect(scrub('x -----BEGIN CERTIFICATE----- MIIB+zC...')).toBe('x ${file:cert.pem}...');
  });

  it('characters quoted by any HTML5 named character reference, not only the ASCII ones', () => {
    const named = secretScrubber([{ value: 'it\u2019s f\u00fcr M\u00fcller & S\u00f8n\u00a0+ caf\u00e9', shown: '${env:QUOTE}', minLength: 8 }]);
    expect(named('x it&rsquo;s f&uuml;r M&uuml;ller &amp; S&oslash;n&nbsp;&plus; caf&eacute; y')).toBe('x ${env:QUOTE} y');
    expect(named('x it&CloseCurlyQuote;s f&uuml;r M&uuml;ller &AMP; S&oslash;n&NonBreakingSpace;+ caf&eacute; y')).toBe('x ${env:QUOTE} y');
    expect(scrub('x Na&iuml;ve caf&eacute; &#128273; key y')).toBe('x ${env:NOTE} y');
    // A reference that names another character is another text.
    expect(scrub('x Na&iuml;ve caf&egrave; &#128273; key y')).toBe('x Na&iuml;ve caf&egrave; &#128273; key y');
  });

  it('a quote of a quote: percent-encoded twice, HTML-escaped inside JSON, JSON-escaped then percent-encoded, escaped twice', () => {
    const twice = secretScrubber([{ value: 'adm@in&"pa\u00df"', shown: '[redacted]', minLength: 4 }]);
    const value = 'adm@in&"pa\u00df"';
    expect(twice(`x ${encodeURIComponent(encodeURIComponent(value))} y`)).toBe('x [redacted] y');
    expect(twice('x adm@in\\u0026amp;\\u0026quot;pa&amp;szlig;\\u0026quot; y')).toBe('x [redacted] y');
    expect(twice(`x ${encodeURIComponent(JSON.stringify(value).slice(1, -1))} y`)).toBe('x [redacted] y');
    expect(twice('x adm&amp;#64;in&amp;amp;&amp;quot;pa&amp;szlig;&amp;quot; y')).toBe('x [redacted] y');
    expect(scrub(`x ${JSON.stringify(JSON.stringify('Na\u00efve caf\u00e9 \u{1F511} key')).slice(3, -3)} y`)).toBe('x ${env:NOTE} y');
  });

  it('a quote cut at its start is found from 8 of its last characters on, after an ellipsis; one cut at both ends between two', () => {
    expect(scrub('x \u2026ve caf\u00e9 \u{1F511} key y')).toBe('x \u2026${env:NOTE} y');
    expect(scrub('x ...af\u00e9 \u{1F511} key')).toBe('x ...${env:NOTE}');
    // Seven of its characters (UTF-16 code units, as its length is counted): too few.
    expect(scrub('x ...\u{1F511} key')).toBe('x ...\u{1F511} key');
    expect(scrub('x \u2026 \u{1F511} key')).toBe('x \u2026 \u{1F511} key');
    expect(scrub('x ...caf\u00e9 \u{1F511} key y')).toBe('x ...${env:NOTE} y');
    // Cut inside an escape: what is left of it is not the secret, and is replaced with the rest.
    expect(scrub('x ...te; \u{1F511} key y')).toBe('x ...te; \u{1F511} key y');
    expect(scrub('x ...uml;ve+caf&eacute;+&#128273;+key y')).toBe('x ...${env:NOTE} y');
    expect(scrub('x ...ve caf\u00e9 \ud83d... y')).toBe('x ...${env:NOTE}... y');
    expect(scrub('x \u2026END CERTIFICATE-----\n y')).toBe('x \u2026${file:cert.pem}\n y');
  });

  it('a cut quote shows the reference with the ellipsis where the cut is, at either end; a whole quote without one', () => {
    expect(scrub('Rejected: Na\u00efve caf...')).toBe('Rejected: ${env:NOTE}...');
    expect(scrub('Rejected: Na\u00efve caf\u00e9 \u{1F511} key...')).toBe('Rejected: ${env:NOTE}...');
    expect(scrub('Rejected: ...ve caf\u00e9 \u{1F511} key')).toBe('Rejected: ...${env:NOTE}');
    expect(scrub('Rejected: Na\u00efve caf\u00e9 \u{1F511} key')).toBe('Rejected: ${env:NOTE}');
  });

  it('a long text with many ellipses and escapes, none of them a secret, is searched once: fast, and left as it is', () => {
    const text = 'Na&amp;\u00e9%40 caf... \u2026&#128273; key-ish text, ... '.repeat(20_000);
    const started = performance.now();
    expect(scrub(text)).toBe(text);
    // About a tenth of a second; a search per form or per place (quadratic) took minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('two secrets overlapping in a text: the stretch they cover together is replaced once, neither left in part', () => {
    const both = secretScrubber([
      { value: 'alpha-0123456789', shown: '${env:A}', minLength: 8 },
      { value: '23456789-omega', shown: '[redacted]', minLength: 4 },
      { value: '0123', shown: '[redacted]', minLength: 4 },
    ]);
    expect(both('[alpha-0123456789-omega]')).toBe('[${env:A}[redacted]]');
    expect(both('[alpha-0123456789]')).toBe('[${env:A}]');
    expect(both('[0123]')).toBe('[[redacted]]');
  });
});
