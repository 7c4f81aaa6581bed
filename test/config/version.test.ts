import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/engine/config/index.js';

describe('compareVersions', () => {
  it.each([
    ['10.6.1', '10.6.1', 0],
    ['10.6', '10.6.1', -1],
    ['10.10', '10.9', 1],
    ['11.3', '10.8.1', 1],
    ['10.7', '10.7.0', 0],
    ['2025.1', '10.7', 1],
  ] as const)('%s vs %s', (left, right, expected) => {
    expect(compareVersions(left, right)).toBe(expected);
    expect(compareVersions(right, left)).toBe(-expected || 0);
  });

  it('is undefined for versions that are not dotted numbers', () => {
    expect(compareVersions('11.3-beta', '11.3')).toBeUndefined();
  });
});
