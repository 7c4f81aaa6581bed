/** How a failure reads for a person: an answer that never came names the flag that sets the wait. */
import { describe, expect, it } from 'vitest';
import { ApiError, ApiNetworkError, UntrustedCertificateError } from '../../src/api/errors.js';
import { describeError, errorDocument } from '../../src/cli/exit.js';

const io = { cwd: process.cwd(), color: false };
const network = (failure: 'timeout' | 'connection') =>
  new ApiNetworkError({ method: 'GET', path: '/portals/self', apiMessage: failure === 'timeout' ? 'no answer within 30 s from gis.example.com' : 'the connection to gis.example.com was dropped', failure, outcomeUnknown: false });

describe('describeError', () => {
  it('a timeout says how to wait longer; another network failure does not', () => {
    const timeout = describeError(network('timeout'), io, false);
    expect(timeout.code).toBe(1);
    expect(timeout.text).toBe(
      'Error: GET /portals/self failed: no answer within 30 s from gis.example.com\n  A slow portal may need a longer wait for each answer: --request-timeout (default 30s), e.g. --request-timeout 2m.\n',
    );
    expect(describeError(network('connection'), io, false).text).toBe('Error: GET /portals/self failed: the connection to gis.example.com was dropped\n');
  });
});

describe('errorDocument', () => {
  const request = { method: 'GET', path: '/portals/self' };
  const codeOf = (error: unknown): unknown => (errorDocument(error) as { diagnostics: { code: string }[] }).diagnostics.map((diagnostic) => diagnostic.code);

  it('names what kind of failure a request had, for scripts', () => {
    expect(codeOf(new ApiError({ ...request, code: 403, messageCode: 'GWM_0003', apiMessage: 'no' }))).toEqual(['api/missing-privilege']);
    expect(codeOf(new ApiError({ ...request, code: 400, messageCode: 'CONT_0001', apiMessage: 'gone' }))).toEqual(['api/not-found']);
    expect(codeOf(new ApiError({ ...request, code: 498, apiMessage: 'Invalid token.' }))).toEqual(['api/invalid-token']);
    expect(codeOf(new ApiError({ ...request, code: 499, apiMessage: 'Token Required' }))).toEqual(['api/token-required']);
    expect(codeOf(new ApiError({ ...request, code: 400, apiMessage: 'Unable to update.' }))).toEqual(['api/request-failed']);
    expect(codeOf(network('timeout'))).toEqual(['api/timeout']);
    expect(codeOf(network('connection'))).toEqual(['api/connection']);
    expect(codeOf(new UntrustedCertificateError({ ...request, apiMessage: 'untrusted', certificateCode: 'SELF_SIGNED_CERT_IN_CHAIN' }))).toEqual(['api/untrusted-certificate']);
  });
});
