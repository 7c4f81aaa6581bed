/**
 * A URL as messages show it (a portal URL that is refused, a proxy that is not one, the effective
 * config): never the user name and password before its host, nor the values of its query string.
 */
import { describe, expect, it } from 'vitest';
import { PortalUrlError, normalizeBaseUrl } from '../../src/api/index.js';
import { shownUrl } from '../../src/api/url.js';

describe('shownUrl', () => {
  it('masks the credentials up to the last @, parseable or not, with or without a scheme', () => {
    expect(shownUrl('https://admin:s3cret@gis.example.com/portal/sharing/rest')).toBe('https://***@gis.example.com/portal/sharing/rest');
    expect(shownUrl('https://admin:s3/cr?e#t@gis.example.com/portal')).toBe('https://***@gis.example.com/portal');
    expect(shownUrl('admin:s3@cret@proxy.corp:3128')).toBe('***@proxy.corp:3128');
    expect(shownUrl('https://gis.example.com/portal/sharing/rest')).toBe('https://gis.example.com/portal/sharing/rest');
    expect(shownUrl('proxy.corp:3128')).toBe('proxy.corp:3128');
    // An @ in the path is not the end of credentials: a / before any : is the path's.
    expect(shownUrl('https://unpkg.com/portalctl@0.1.0/schemas/config.json')).toBe('https://unpkg.com/portalctl@0.1.0/schemas/config.json');
    expect(shownUrl('https://ci@gis.example.com/portal/@x')).toBe('https://***@gis.example.com/portal/@x');
  });

  it('masks each value of a query string, a bare parameter and a fragment', () => {
    expect(shownUrl('https://gis.example.com/portal/sharing/rest?token=Ab.C_d-1&f=json')).toBe('https://gis.example.com/portal/sharing/rest?token=***&f=***');
    expect(shownUrl('https://gis.example.com/rest?Ab.C_d-1#access_token=x')).toBe('https://gis.example.com/rest?***#***');
  });

  it('a portal URL that is not one is refused without its password', () => {
    expect(() => normalizeBaseUrl('https://admin:s3/cret@gis.example.com/portal/sharing/rest', false)).toThrow(
      new PortalUrlError('Portal URL "https://***@gis.example.com/portal/sharing/rest" is not a valid URL; expected the REST root, e.g. https://host/portal/sharing/rest.'),
    );
  });
});
