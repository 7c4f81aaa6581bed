/** What the API client's errors never show: its credentials and tokens, longest first, and what its caller conceals. */
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../src/api/secrets.js';

describe('Secrets', () => {
  it('a password that is part of a token issued later: the token is hidden whole, not around the password', () => {
    const secrets = new Secrets();
    secrets.add('Pa$$.(w)');
    secrets.add('tok-Pa$$.(w)-en');
    expect(secrets.scrub('token tok-Pa$$.(w)-en refused; password Pa$$.(w)')).toBe('token [redacted] refused; password [redacted]');
  });

  it('a credential shorter than 4 characters is left in the text (README "Credentials"); the caller conceals its own values after', () => {
    const secrets = new Secrets((text) => text.replace('Edits field data', '${env:NOTE}'));
    secrets.add('abc');
    secrets.add('s3cret-token');
    expect(secrets.scrub('abc: Edits field data with s3cret-token')).toBe('abc: ${env:NOTE} with [redacted]');
  });

  it('a password given with a line break around it is hidden also where the portal quotes it without', () => {
    const secrets = new Secrets();
    secrets.add(' s3cret-pass\n');
    expect(secrets.scrub('Invalid password "s3cret-pass" for admin')).toBe('Invalid password "[redacted]" for admin');
  });
});
