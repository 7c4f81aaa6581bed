/**
 * A process killed with SIGKILL at any moment of a write must leave a valid state file. The
 * real store code (transpiled from src/ into a temp dir) runs in a child that writes in a loop;
 * the test kills it at arbitrary moments and checks what is on disk.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseState } from '../../src/state/index.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'portalctl-sigkill-'));
  const sources: string[] = [];
  for (const room of ['core', 'state']) {
    for (const name of await readdir(join(repoRoot, 'src', room))) {
      if (name.endsWith('.ts')) sources.push(join(repoRoot, 'src', room, name));
    }
  }
  for (const source of sources) {
    const output = ts.transpileModule(await readFile(source, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const target = join(work, 'lib', relative(join(repoRoot, 'src'), source)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, output);
  }
  await writeFile(join(work, 'package.json'), '{"type":"module"}\n');
  // The rooms' own dependencies (fastest-levenshtein for core's did-you-mean), as installed.
  await symlink(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  await writeFile(
    join(work, 'writer.js'),
    `import { FileStateStore, StateWriter, newState } from './lib/state/index.js';
const store = new FileStateStore({ path: process.argv[2] });
const writer = new StateWriter(store, (await store.read()) ?? newState({ url: 'https://gis.example.com/rest' }));
const padding = 'x'.repeat(64 * 1024);
for (let index = 0; ; index++) {
  await writer.record('role[r' + (index % 50) + ']', { kind: 'role', ids: { roleId: 'r' + index }, value: { index, padding } });
  process.stdout.write('wrote ' + index + '\\n');
}
`,
  );
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A child that takes and releases the state lock in a loop (and writes the state while it holds it). */
async function lockerScript(): Promise<string> {
  const script = join(work, 'locker.js');
  await writeFile(
    script,
    `import { FileStateStore, StateWriter, newState } from './lib/state/index.js';
const store = new FileStateStore({ path: process.argv[2] });
for (let index = 0; ; index++) {
  const lock = await store.lock({ operation: 'apply' });
  process.stdout.write('locked ' + index + '\\n');
  const writer = new StateWriter(store, (await store.read()) ?? newState({ url: 'https://gis.example.com/rest' }));
  await writer.record('role[r' + (index % 5) + ']', { kind: 'role', ids: { roleId: 'r' + index }, value: { index } });
  await store.unlock(lock);
}
`,
  );
  return script;
}

/** Run the writer until it has reported `writes` writes, then SIGKILL it `delayMs` later (mid-write, likely). */
function runAndKill(stateFile: string, writes: number, delayMs: number, script = join(work, 'writer.js'), marker = 'wrote'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, stateFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = 0;
    let killing = false;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('\n').filter((line) => line.startsWith(marker)).length;
      if (seen >= writes && !killing) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`writer exited without being killed: ${stderr}`));
    });
  });
}

describe('SIGKILL during writes', () => {
  it('always leaves a valid state file and backup', async () => {
    const stateFile = join(work, 'portalctl.state.json');
    let lastSerial = 0;
    const rounds: Array<[number, number]> = [[2, 0], [3, 1], [7, 2], [1, 3], [11, 5], [5, 8], [2, 13], [4, 21], [1, 34], [3, 55]];
    for (const [writes, delayMs] of rounds) {
      await runAndKill(stateFile, writes, delayMs);
      const state = parseState(await readFile(stateFile, 'utf8'), stateFile);
      // From the second reported write on, the previous version exists as the backup.
      parseState(await readFile(`${stateFile}.backup`, 'utf8'), `${stateFile}.backup`);
      // Every reported write is on disk; the one in flight at the kill may or may not be.
      expect(state.serial).toBeGreaterThanOrEqual(lastSerial + writes);
      lastSerial = state.serial;
    }
  });
});

describe('SIGKILL while the lock is taken or released', () => {
  it('leaves the lock whole or absent, the next run takes a dead holder\'s lock over and says so, and removes what the killed run left', { timeout: 60_000 }, async () => {
    const { FileStateStore } = await import('../../src/state/index.js');
    const stateFile = join(work, 'locked.state.json');
    const script = await lockerScript();
    const rounds: Array<[number, number]> = [[1, 0], [2, 1], [3, 0], [1, 2], [5, 0], [2, 3], [4, 1], [1, 5], [3, 8], [6, 0]];
    for (const [locks, delayMs] of rounds) {
      await runAndKill(stateFile, locks, delayMs, script, 'locked');
      let lockText: string | undefined;
      try {
        lockText = await readFile(`${stateFile}.lock`, 'utf8');
      } catch {
        lockText = undefined;
      }
      // Whole or absent: never an empty or half-written record.
      if (lockText !== undefined) expect(JSON.parse(lockText)).toMatchObject({ id: expect.any(String), pid: expect.any(Number), operation: 'apply' });
      const notices: string[] = [];
      const store = new FileStateStore({ path: stateFile, onNotice: (message) => notices.push(message) });
      const lock = await store.lock({ operation: 'apply' });
      if (lockText !== undefined) expect(notices).toEqual([expect.stringMatching(/^Took over the state lock of .*: its process \d+ on .* is no longer running\.$/)]);
      // Nothing the killed run was writing is left beside the state.
      expect((await readdir(work)).filter((name) => name.startsWith('.locked.state.json.'))).toEqual([]);
      await store.unlock(lock);
    }
  });
});

