/** The top-level blocks declared once across the files (portal, safety, values, environments): a second one names both places. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfig, type LoadedConfig } from '../../src/engine/config/index.js';
import { registry } from '../../src/registry.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';

const BLOCKS = {
  portal: 'portal:\n  url: https://gis.example.com/portal/sharing/rest\n',
  safety: 'safety:\n  role: { maxUpdates: 0.5 }\n',
  values: 'values:\n  team: Hydrology\n',
  environments: 'environments:\n  test: {}\n',
} as const;

describe('a top-level block declared twice', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portalctl-blocks-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function diagnosticsOf(files: Record<string, string>, environment?: string): Promise<readonly Diagnostic[]> {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    let loaded: LoadedConfig;
    try {
      loaded = await loadConfig([dir], { cwd: dir, env: {}, kinds: registry, ...(environment ? { environment } : {}) });
    } catch (error) {
      if (error instanceof ConfigError) return [...error.diagnostics];
      throw error;
    }
    return validateConfig(loaded);
  }

  it.each(Object.entries(BLOCKS))('%s: an error at the second, naming the first', async (block, text) => {
    const diagnostics = await diagnosticsOf({ 'a.yaml': `version: 1\n${text}`, 'b.yaml': `version: 1\n${text}` }, block === 'environments' ? 'test' : undefined);
    const duplicate = diagnostics.find((diagnostic) => diagnostic.code === `config/duplicate-${block}`);
    expect(duplicate, JSON.stringify(diagnostics)).toMatchObject({ severity: 'error', location: { file: 'b.yaml', line: 2, column: 1 } });
    expect(duplicate?.message).toBe(`The ${block} block is declared twice: first at a.yaml:2:1.`);
  });
});
