/**
 * Ctrl-C and SIGTERM end a command at once in every phase, also while a large or hostile config
 * is being parsed (README "Exit codes"): the event loop stays free for the signal handlers, which
 * say what was left behind and exit 130. Each signal is sent once the CLI has read its config
 * file (a preloaded hook writes a file then), so it arrives while the file is parsed.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startCliPortal, waitFor, type CliPortal } from '../support/cli.js';

/** 300,000 words under an anchor, aliased by 99 trees: 3.5 MB whose parse takes seconds (the last case). */
function aliasedWords(words: number): string {
  const list = Array.from({ length: words }, (_, index) => `  - word${index}`).join('\n');
  const trees = Array.from({ length: 99 }, (_, index) => `  { title: T${index}, categories: *a }`).join(',\n');
  return `version: 1\nx-anchor: &a\n${list}\norganization: { categorySchema: [\n${trees} ] }\n`;
}

/** 60,000 roles whose description is a number, not a string: read at once, then 60,000 places to locate. */
function manyWrongRoles(count: number): string {
  return `version: 1\nroles:\n${Array.from({ length: count }, (_, index) => `  - id: role${index}\n    name: Role ${index}\n    description: ${index}\n`).join('')}`;
}

describe('signals while a large config is parsed', () => {
  let portal: CliPortal;
  beforeEach(async () => {
    portal = await startCliPortal();
  });
  afterEach(async () => portal.dispose());

  async function interrupted(command: string[], file: string, signal: NodeJS.Signals) {
    const ready = join(portal.dir, `ready-${signal}`);
    const hook = `--require ${join(REPO_ROOT, 'test/support/interrupts-ready.cjs')}`;
    const running = portal.start(command, { env: { NODE_OPTIONS: hook, PORTALCTL_TEST_READY_FILE: ready, PORTALCTL_TEST_READY_AFTER_READING: file } });
    await waitFor(() => existsSync(ready), 'the CLI having read its config');
    running.child.kill(signal);
    const result = await running.done;
    return { result, file };
  }

  it.each(['SIGTERM', 'SIGINT'] as const)('%s while a 3.5 MB file of aliases is parsed: exit 130, nothing reported of the file', async (signal) => {
    const file = join(portal.dir, 'aliases.yaml');
    await writeFile(file, aliasedWords(300_000));
    const { result } = await interrupted(['validate', file], file, signal);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('Interrupted: nothing was changed.');
    // Ended during the parse, not after it: no diagnostic of the file was printed.
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('alias-limit');
  });

  it.each([
    ['a large valid file', (): string => `version: 1\nroles:\n${Array.from({ length: 40_000 }, (_, index) => `  - id: role${index}\n    name: Role ${index}\n`).join('')}`, 0],
    ['a large file of aliases', (): string => aliasedWords(100_000), 1],
    ['a large file with problems', (): string => manyWrongRoles(20_000), 1],
  ] as const)('without a signal, %s is read off the main thread and the command ends when it is done', async (_name, text, code) => {
    const file = join(portal.dir, 'large.yaml');
    await writeFile(file, text());
    const result = await portal.start(['validate', file]).done;
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).not.toContain('Interrupted');
  });

  it('SIGTERM while the problems of a large file are located: exit 130 before any is printed', async () => {
    const file = join(portal.dir, 'roles.yaml');
    await writeFile(file, manyWrongRoles(60_000));
    const { result } = await interrupted(['plan', file], file, 'SIGTERM');
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('Interrupted: nothing was changed.');
    expect(result.stderr).not.toContain('must be a string');
    expect(await portal.requests()).toEqual([]);
  });
});
