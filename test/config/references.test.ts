/** `${...}` references: the `$${` escape and the credential variables that may not be referenced. */
import { describe, expect, it } from 'vitest';
import { resolveReferences } from '../../src/engine/config/references.js';
import type { JsonValue } from '../../src/core/json.js';

const context = (env: Record<string, string>) => ({ file: '/nowhere/portalctl.yaml', env, locate: (path: readonly (string | number)[]) => ({ file: 'portalctl.yaml', line: path.length, column: 1 }) });

describe('references', () => {
  it('$${ writes a literal ${, resolving nothing', () => {
    const data: JsonValue = { roles: [{ description: 'Use $${env:HOME} in scripts; home is ${env:HOME}; $${plain}' }] };
    const result = resolveReferences(data, context({ HOME: '/home/someone' }));
    expect(result.diagnostics).toEqual([]);
    expect(result.data).toEqual({ roles: [{ description: 'Use ${env:HOME} in scripts; home is /home/someone; ${plain}' }] });
    expect(result.resolved).toEqual([{ reference: '${env:HOME}', value: '/home/someone', bytes: 13, sha256: expect.stringMatching(/^[0-9a-f]{4}$/) }]);
  });

  it.each(['PORTALCTL_TOKEN', 'PORTALCTL_PASSWORD', 'PORTALCTL_CLIENT_SECRET', 'PORTALCTL_USERNAME', 'PORTALCTL_CLIENT_ID'])('refuses a reference to %s, set or not', (name) => {
    const data: JsonValue = { roles: [{ description: `token \${env:${name}}` }] };
    const result = resolveReferences(data, context({ [name]: 'the-secret' }));
    expect(result.resolved).toEqual([]);
    expect(result.data).toEqual({ roles: [{ description: `token \${env:${name}}` }] });
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'reference/credential', value: `\${env:${name}}`, location: { file: 'portalctl.yaml', line: 3, column: 1 } })]);
    expect(JSON.stringify(result)).not.toContain('the-secret');
  });
});
