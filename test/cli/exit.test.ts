/** How a failure reads for a person: an answer that never came names the flag that sets the wait. */
import { describe, expect, it } from 'vitest';
import { ApiNetworkError } from '../../src/api/errors.js';
import { describeError } from '../../src/cli/exit.js';

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
