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
