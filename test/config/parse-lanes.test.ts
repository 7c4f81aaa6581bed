/**
 * Large YAML files are read on two threads (off-thread.ts): this one and a second lane that
 * returns what js-yaml read as JSON text (or, for numbers JSON cannot write, as data). Whatever
 * the lane reads must be exactly what this thread would: the same data, diagnostics and
 * locations. The worker runs from the build (dist/), as the CLI runs it; running from source
 * there is no worker script and everything is read on this thread.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offThreadChars, secondLane } from '../../src/engine/config/off-thread.js';
import type { ParsedSource } from '../../src/engine/config/source.js';

type OffThread = typeof import('../../src/engine/config/off-thread.js');

// Counts the threads started, through the same binding the built module imports.
const workerThreads: typeof import('node:worker_threads') = createRequire(import.meta.url)('node:worker_threads');
let threadsStarted = 0;
/** The types of the requests sent to any worker, in order. */
const requestsSent: string[] = [];
const OriginalWorker = workerThreads.Worker;
workerThreads.Worker = class CountedWorker extends OriginalWorker {
  constructor(...args: ConstructorParameters<typeof OriginalWorker>) {
    super(...args);
    threadsStarted += 1;
  }

  override postMessage(...args: Parameters<InstanceType<typeof OriginalWorker>['postMessage']>): void {
    const [message] = args;
    if (typeof message === 'object' && message !== null && 'type' in message) requestsSent.push(String(message.type));
    super.postMessage(...args);
  }
};
syncBuiltinESMExports();

const built = new URL('../../dist/engine/config/off-thread.js', import.meta.url).href;
const offThread = async (): Promise<OffThread> => {
  const module: OffThread = await import(built);
  return module;
};
const sourceModule = async (): Promise<typeof import('../../src/engine/config/source.js')> => import(new URL('../../dist/engine/config/source.js', import.meta.url).href);

/** A YAML list of roles of at least `chars` characters, with `extra` lines in the first role. */
function rolesYaml(chars: number, prefix: string, extra = ''): string {
  const lines = ['version: 1', 'roles:'];
  let length = 0;
  for (let index = 0; length < chars; index += 1) {
    const role = `  - id: ${prefix}${index}\n    name: Role ${prefix} ${index}\n    description: "Edits ${index} things, quoted: yes"\n${index === 0 ? extra : ''}`;
    lines.push(role.trimEnd());
    length += role.length;
  }
  return `${lines.join('\n')}\n`;
}

const written: string[] = [];
afterAll(async () => {
  for (const dir of written) await rm(dir, { recursive: true, force: true });
});

async function writeFiles(files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'parse-lanes-'));
  written.push(dir);
  const paths: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, text);
    paths.push(path);
  }
  return paths;
}

/** What a reader of a source sees: its data, diagnostics and where some paths are. */
function seen(source: ParsedSource, paths: (string | number)[][]) {
  return {
    file: source.file,
    data: source.data,
    diagnostics: source.diagnostics,
    mayHoldReferences: source.mayHoldReferences,
    locations: paths.map((path) => source.locate(path)),
  };
}

describe('the second lane of reading', () => {
  it('takes large YAML files (by size), largest first, each to the side with less queued; the largest, JSON and small files stay here', () => {
    const chars = (n: number): number => Math.round(n * offThreadChars);
    expect(secondLane(['a.yaml', 'b.yaml', 'c.yaml'], [chars(1.2), chars(3), chars(1.5)])).toEqual([0, 2]);
    expect(secondLane(['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml'], [chars(3), chars(2), chars(2), chars(1)])).toEqual([1, 2]);
    expect(secondLane(['a.yaml', 'b.json', 'c.yaml', 'd.yaml'], [chars(3), chars(2), chars(0.5), undefined])).toEqual([]);
    expect(secondLane(['a.yaml'], [chars(5)])).toEqual([]);
  });

  it('reads what this thread reads: the same data (numbers JSON cannot write included), references and locations', async () => {
    const { readConfigSourcesOffThread } = await offThread();
    const special = '    limits: [.inf, -.inf, .nan, -0.0, 0o17, 1_000]\n';
    const files = await writeFiles({
      'largest.yaml': rolesYaml(2.5 * offThreadChars, 'l'),
      'special.yaml': rolesYaml(1.3 * offThreadChars, 's', special),
      'plain.yaml': rolesYaml(1.1 * offThreadChars, 'p', '    note: "${env:NOTE}"\n'),
      'small.yaml': rolesYaml(1000, 'm'),
      'data.json': JSON.stringify({ version: 1, roles: [{ id: 'j1', name: 'JSON role' }] }),
    });
    const paths = [['roles', 0, 'id'], ['roles', 0], ['roles', 20_000, 'name'], ['version']];
    const before = threadsStarted;
    const twoThreads = await readConfigSourcesOffThread(files, undefined, 2);
    // The lane is a thread of its own (the positioning worker, if started, is another).
    expect(threadsStarted - before).toBeGreaterThanOrEqual(1);
    const started = threadsStarted;
    const oneThread = await readConfigSourcesOffThread(files, undefined, 1);
    expect(threadsStarted).toBe(started);

    expect(twoThreads.map((source) => seen(source, paths))).toEqual(oneThread.map((source) => seen(source, paths)));
    const limits = (sources: ParsedSource[]): unknown => {
      const data = sources[1]?.data;
      return typeof data === 'object' && data !== null && !Array.isArray(data) && Array.isArray(data['roles']) ? (data['roles'][0] as { limits?: unknown }).limits : undefined;
    };
    expect(limits(twoThreads)).toEqual([Infinity, -Infinity, NaN, -0, 15, '1_000']);
    expect(Object.is((limits(twoThreads) as number[])[3], -0)).toBe(true);
    expect(twoThreads[2]?.mayHoldReferences).toBeUndefined();
    expect(twoThreads[0]?.mayHoldReferences).toBe(false);
    expect(twoThreads[0]?.locate(['roles', 1, 'name'])).toMatchObject({ line: 7, column: 11 });
  });

  it('leaves what js-yaml declines (anchors, syntax errors) to the positioned parse: the same problems at the same places', async () => {
    const { readConfigSourcesOffThread } = await offThread();
    const files = await writeFiles({
      'largest.yaml': rolesYaml(2.5 * offThreadChars, 'l'),
      'anchored.yaml': rolesYaml(1.3 * offThreadChars, 'a', '    privileges: &shared ["portal:user:joinGroup"]\n').replace('  - id: a1\n', '  - id: a1\n    privileges: *shared\n'),
      'broken.yaml': `${rolesYaml(1.1 * offThreadChars, 'b')}  - id: [unclosed\n`,
    });
    const paths = [['roles', 1, 'privileges'], ['roles', 0]];
    const twoThreads = await readConfigSourcesOffThread(files, undefined, 2);
    const oneThread = await readConfigSourcesOffThread(files, undefined, 1);
    expect(twoThreads.map((source) => seen(source, paths))).toEqual(oneThread.map((source) => seen(source, paths)));
    const anchored = twoThreads[1]?.data;
    expect(anchored && typeof anchored === 'object' && !Array.isArray(anchored) && Array.isArray(anchored['roles']) ? anchored['roles'][1] : undefined).toMatchObject({ id: 'a1', privileges: ['portal:user:joinGroup'] });
    expect(twoThreads[2]?.data).toBeUndefined();
    expect(twoThreads[2]?.diagnostics[0]).toMatchObject({ severity: 'error', code: expect.stringMatching(/^yaml\//), location: { file: files[2] } });
    expect(twoThreads[2]?.diagnostics[0]?.location?.line).toBeGreaterThan(1);
  });
});

describe('positioning a large file for its locations', () => {
  it('sends a file under largeLocateChars to the worker to be positioned whole; one over it never, located from its data', async () => {
    const { readConfigSourcesOffThread } = await offThread();
    const { largeLocateChars } = await sourceModule();
    const files = await writeFiles({
      'medium.yaml': rolesYaml(1.2 * offThreadChars, 'm'),
      'large.yaml': rolesYaml(largeLocateChars + offThreadChars, 'g'),
    });
    const [medium, large] = await readConfigSourcesOffThread(files, undefined, 1);
    const prepares = (): number => requestsSent.filter((type) => type === 'prepare').length;

    const before = prepares();
    await medium?.prepareLocate?.();
    expect(prepares()).toBe(before + 1);
    await large?.prepareLocate?.();
    expect(prepares()).toBe(before + 1);
    // Role n starts on line 3 + 3n (two header lines, three lines per role); its name is on the next line.
    expect(medium?.locate(['roles', 10_000, 'name'])).toMatchObject({ line: 30_004, column: 11 });
    expect(large?.locate(['roles', 50_000, 'name'])).toMatchObject({ line: 150_004, column: 11 });
  });

  it('says a number that is not finite where the scan of large-locate.ts finds it, without positioning the file; positioned in the worker first only where the scan cannot follow', async () => {
    const { readConfigSourcesOffThread } = await offThread();
    const { largeLocateChars } = await sourceModule();
    const roles = (count: number): string => Array.from({ length: count }, (_, index) => `{"id": "r${index}", "name": "Role ${index}"}`).join(',\n');
    const large = `{"version": 1,\n"roles": [\n${roles(150_000)}],\n"values": {"big": [1, 2e999]}}\n`;
    expect(large.length).toBeGreaterThan(largeLocateChars);
    const files = await writeFiles({
      'largest.yaml': rolesYaml(1.5 * offThreadChars, 'l'),
      'medium.yaml': rolesYaml(1.2 * offThreadChars, 'm', '    limit: -1e400\n'),
      // A key with an escape is one the scan does not read: the file is positioned, as before.
      'escaped.yaml': `"values\\x21": 1\n${rolesYaml(1.2 * offThreadChars, 'e', '    limit: .nan\n')}`,
      'medium.json': `{"version": 1, "values": {"big": 1e400},\n"roles": [\n${roles(40_000)}]}\n`,
      'large.json': large,
    });
    const prepares = (): number => requestsSent.filter((type) => type === 'prepare').length;
    const before = prepares();
    const twoThreads = await readConfigSourcesOffThread(files, undefined, 2);
    // Only the file whose number the scan cannot place is positioned whole in the worker (seconds for a few megabytes).
    expect(prepares()).toBe(before + 1);
    const said = (source: ParsedSource | undefined): unknown[] => source?.diagnostics.map((d) => [d.code, d.location?.line, d.location?.column, d.value]) ?? [];
    expect(twoThreads.map(said)).toEqual([
      [],
      [['source/non-finite-number', 6, 12, '-1e400']],
      [['source/non-finite-number', 7, 12, '.nan']],
      [['source/non-finite-number', 1, 34, '1e400']],
      [['source/non-finite-number', 150_003, 23, '2e999']],
    ]);
    // The data is kept: the rest of each file is still checked.
    expect(twoThreads.map((source) => source.data === undefined)).toEqual([false, false, false, false, false]);
    const oneThread = await readConfigSourcesOffThread(files, undefined, 1);
    expect(oneThread.map(said)).toEqual(twoThreads.map(said));
  });

  it('loading does not position the file for the schema\'s refusal of such a number either, which is not said again', async () => {
    const { loadConfig } = await import(new URL('../../dist/engine/config/index.js', import.meta.url).href);
    const { registry } = await import(new URL('../../dist/registry.js', import.meta.url).href);
    const [file] = await writeFiles({ 'roles.yaml': rolesYaml(1.2 * offThreadChars, 'n', '    name: 1e400\n').replace('    name: Role n 0\n', '') });
    const prepares = (): number => requestsSent.filter((type) => type === 'prepare').length;
    const before = prepares();
    const loaded: { diagnostics: { code: string; location?: { line: number; column: number } }[] } = await loadConfig([file], { cwd: tmpdir(), env: {}, kinds: registry });
    expect(loaded.diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([['source/non-finite-number', 5, 11]]);
    expect(prepares()).toBe(before);
  });

  it('locates a document nested too deeply that the lane read from its data, where the positioned document says', async () => {
    const { readConfigSourcesOffThread } = await offThread();
    const { largeLocateChars } = await sourceModule();
    // Seventy levels of block mappings in the last role, past the 64 a config may nest.
    const deep = Array.from({ length: 70 }, (_, level) => `${' '.repeat(6 + 2 * level)}level${level}:`).join('\n');
    const files = await writeFiles({
      'largest.yaml': rolesYaml(largeLocateChars + 2 * offThreadChars, 'l'),
      'deep.yaml': `${rolesYaml(largeLocateChars + offThreadChars, 'd')}  - id: deep\n    nested:\n${deep} end\n`,
    });
    const twoThreads = await readConfigSourcesOffThread(files, undefined, 2);
    const oneThread = await readConfigSourcesOffThread(files, undefined, 1);
    const problem = twoThreads[1]?.diagnostics.find((diagnostic) => diagnostic.severity === 'error');
    expect(problem).toMatchObject({ location: { file: files[1] } });
    expect(problem?.location?.line).toBeGreaterThan(150_000);
    expect(twoThreads[1]?.diagnostics).toEqual(oneThread[1]?.diagnostics);
  });
});
