import { describe, expect, it } from 'vitest';
import type { Organization } from '../../../src/emulator/state/model.js';
import { hasVersion } from '../../../src/emulator/shared/versions.js';
import { compareVersions } from '../../../src/emulator/state/releases.js';
import { sampleState } from './helpers.js';

describe('versions', () => {
  it('compares dotted parts numerically, never as floats', () => {
    expect(compareVersions('10.10', '10.9')).toBeGreaterThan(0);
    expect(compareVersions('10.6.1', '10.6')).toBeGreaterThan(0);
    expect(compareVersions('10.5', '10.5.0')).toBe(0);
    expect(compareVersions('10.4', '10.41')).toBeLessThan(0);
    expect(compareVersions('2025.1', '11.3')).toBeGreaterThan(0);
    expect(() => compareVersions('11.x', '10.5')).toThrow(/dotted number/);
  });

  it('treats the hosted edition as current', () => {
    const organization: Organization = { ...sampleState().organization, edition: 'hosted', version: '1.0' };
    expect(hasVersion(organization, '10.8.1')).toBe(true);
    expect(hasVersion({ ...organization, edition: 'self-managed' }, '10.8.1')).toBe(false);
  });
});
