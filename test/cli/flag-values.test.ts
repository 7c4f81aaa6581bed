/** Durations and counts given on the command line, as README's shared flags describe them. */
import { describe, expect, it } from 'vitest';
import { parseDuration, parsePositiveInt } from '../../src/cli/flag-values.js';
import { UsageError } from '../../src/core/errors.js';

describe('parseDuration', () => {
  it('takes ms, s, m and h; a bare number is seconds', () => {
    expect(parseDuration('500ms', '--lock-timeout')).toBe(500);
    expect(parseDuration('30s', '--lock-timeout')).toBe(30_000);
    expect(parseDuration('10', '--lock-timeout')).toBe(10_000);
    expect(parseDuration('1.5m', '--lock-timeout')).toBe(90_000);
    expect(parseDuration('2h', '--lock-timeout')).toBe(7_200_000);
  });

  it('refuses what is not a duration, and one longer than a Node timer waits, naming the flag', () => {
    expect(() => parseDuration('5 min', '--lock-timeout')).toThrow(new UsageError('--lock-timeout takes a duration such as 30s, 5m or 1h, not "5 min".'));
    expect(() => parseDuration('-1s', '--request-timeout')).toThrow(UsageError);
    expect(() => parseDuration('597h', '--lock-timeout')).toThrow(new UsageError('--lock-timeout takes a duration of at most 596h (about 24 days), not "597h".'));
  });
});

describe('parsePositiveInt', () => {
  it('decimal digits only, at least 1', () => {
    expect(parsePositiveInt('8', '--parallelism')).toBe(8);
    for (const text of ['0', '0x10', '1e3', ' 2 ', '-1']) expect(() => parsePositiveInt(text, '--parallelism'), text).toThrow(UsageError);
  });
});
