/** What the API client's errors never show: its credentials and tokens, and what its caller conceals, in one pass. */
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../src/api/secrets.js';

describe('Secrets', () => {
  it('a password that is part of a token issued later: the token is hidden whole, not around the password', () => {
    const secrets = new Secrets();
    secrets.add('Pa$$.(w)');
    secrets.add('tok-Pa$$.(w)-en');
    expect(secrets.scrub('token tok-Pa$$.(w)-en refused; password Pa$$.(w)')).toBe('token [redacted] refused; password [redacted]');
  });

  it('a credential shorter than 4 characters is left in the text (README "Credentials"); the caller conceals its own values too', () => {
    const secrets = new Secrets([{ value: 'Edits field data', shown: '${env:NOTE}', minLength: 8 }]);
    secrets.add('abc');
    secrets.add('s3cret-token');
    expect(secrets.scrub('abc: Edits field data with s3cret-token')).toBe('abc: ${env:NOTE} with [redacted]');
  });

  it('a password given with a line break around it is hidden also where the portal quotes it without', () => {
    const secrets = new Secrets();
    secrets.add(' s3cret-pass\n');
    expect(secrets.scrub('Invalid password "s3cret-pass" for admin')).toBe('Invalid password "[redacted]" for admin');
  });

  it('a token inside a referenced value: the value shows as its reference, no part of it around the token', () => {
    const secrets = new Secrets([{ value: 'note-with-tok-3f9a1c77e-inside', shown: '${env:NOTE}', minLength: 8 }]);
    secrets.add('tok-3f9a1c77e');
    expect(secrets.scrub('Refused "note-with-tok-3f9a1c77e-inside" (token tok-3f9a1c77e)')).toBe('Refused "${env:NOTE}" (token [redacted])');
  });

  it('a token and a referenced value that overlap where the portal quotes them together: neither is left in part', () => {
    const secrets = new Secrets([{ value: 'ref-0123456789abcdef', shown: '${env:NOTE}', minLength: 8 }]);
    secrets.add('89abcdef-tok-tail');
    // Replaced one after the other, the first left "ref-01234567" or "-tok-tail" shown.
    expect(secrets.scrub('echo: ref-0123456789abcdef-tok-tail.')).toBe('echo: ${env:NOTE}[redacted].');
  });

  it('a password quoted HTML-escaped, percent-encoded, JSON-escaped or cut short is hidden in each', () => {
    const secrets = new Secrets();
    secrets.add('P&ss "w\\<rd> 1\'s');
    expect(secrets.scrub('a P&amp;ss &quot;w\\&lt;rd&gt; 1&#39;s b')).toBe('a [redacted] b');
    expect(secrets.scrub('a P%26ss+%22w%5C%3Crd%3E+1%27s b')).toBe('a [redacted] b');
    expect(secrets.scrub('a P&ss \\"w\\\\<rd> 1\'s b')).toBe('a [redacted] b');
    expect(secrets.scrub('a P&ss "w\\<... b')).toBe('a [redacted]... b');
    // Fewer than 4 of its characters before the ellipsis: too few to tell it from any word.
    expect(secrets.scrub('a P&s... b')).toBe('a P&s... b');
  });
});
