/**
 * The state file's layout: one resource per line (still one JSON document), files written
 * pretty-printed by earlier releases read the same, and what the reader learns from the text
 * about fingerprints (which entries may hold one) never hides one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStateStore, StateCorruptError, mayHoldFingerprint, newState, parseState, recordOperation, serializeState, type StateDocument, type StateEntry } from '../../src/state/index.js';
import { readStateLines } from '../../src/state/state-file.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portalctl-layout-'));
  file = join(dir, 'portalctl.state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PORTAL = { url: 'https://gis.example.com/portal/sharing/rest', id: 'org123' };
const FINGERPRINT = `sha256:${'ab'.repeat(32)}:Edits \${env:ROLE_NOTE}`;
const entry = (kind: string, value: StateEntry['value']): StateEntry => ({ kind, ids: { id: kind }, value, status: 'present', appliedAt: '2025-01-01T00:00:00.000Z' });

function sampleState(): StateDocument {
  let state = { ...newState(PORTAL), serial: 3 };
  state = recordOperation(state, 'role[r2]', entry('role', { name: 'Editors', description: FINGERPRINT }));
  state = recordOperation(state, 'item[i1].status', entry('item.status', 'deprecated'));
  state = recordOperation(state, 'group[g "1"].categorySchema', entry('group.categorySchema', [{ title: 'Tree', categories: [{ title: 'A' }] }]));
  return {
    ...state,
    unknownOutcomes: { 'collaboration[c].participant[p]': { kind: 'k', ids: {}, operation: 'E13 Invite collaboration participant', value: { note: FINGERPRINT }, reason: 'in flight', since: '2025-01-01T00:00:00.000Z' } },
  };
}

describe('state layout', () => {
  it('writes one resource per line, sorted by address, and reads back the same document', () => {
    const state = sampleState();
    const text = serializeState(state);
    expect(text.split('\n')).toEqual([
      '{',
      '  "formatVersion": 1,',
      `  "lineage": ${JSON.stringify(state.lineage)},`,
      '  "serial": 3,',
      `  "portal": ${JSON.stringify(PORTAL)},`,
      '  "resources": {',
      `    "group[g \\"1\\"].categorySchema": ${JSON.stringify(state.resources['group[g "1"].categorySchema'])},`,
      `    "item[i1].status": ${JSON.stringify(state.resources['item[i1].status'])},`,
      `    "role[r2]": ${JSON.stringify(state.resources['role[r2]'])}`,
      '  },',
      '  "unknownOutcomes": {',
      `    "collaboration[c].participant[p]": ${JSON.stringify(state.unknownOutcomes?.['collaboration[c].participant[p]'])}`,
      '  }',
      '}',
      '',
    ]);
    const read = parseState(text, file);
    expect(read).toEqual(state);
    expect(Object.keys(read.resources)).toEqual(['group[g "1"].categorySchema', 'item[i1].status', 'role[r2]']);
  });

  it('writes an empty state compactly and leaves out an empty unknownOutcomes', () => {
    const plain = newState(PORTAL);
    const text = serializeState({ ...plain, unknownOutcomes: {} });
    expect(text).toContain('\n  "resources": {}\n}\n');
    expect(text).not.toContain('unknownOutcomes');
    expect(parseState(text, file)).toStrictEqual(plain);
  });

  it('reads a pretty-printed state of an earlier release as the same document', async () => {
    const state = sampleState();
    await writeFile(file, `${JSON.stringify(state, null, 2)}\n`);
    const store = new FileStateStore({ path: file });
    const read = await store.read();
    expect(read).toEqual(state);
    // Writing it again (serial + 1) rewrites it in the current layout.
    const written = await store.write(read as StateDocument);
    expect(written.serial).toBe(4);
    const text = await readFile(file, 'utf8');
    expect(text).toBe(serializeState(written));
    expect(text.split('\n').filter((line) => line.startsWith('    "')).length).toBe(4);
  });
});

describe('reading a state file line by line', () => {
  it('gives the document parseState gives, with the same fingerprint hints, for files of every size and in chunks', async () => {
    const store = new FileStateStore({ path: file });
    const sample = sampleState();
    // Long lines across the 1 MiB chunks, multi-byte characters, escapes in addresses.
    const resources = { ...sample.resources };
    for (let index = 0; index < 3000; index++) resources[`group[g${index} "é☃"].categorySchema`] = entry('group.categorySchema', [{ title: `Tree ${'ü'.repeat(index % 700)}`, categories: [] }]);
    const text = serializeState({ ...sample, resources });
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024);
    await writeFile(file, text);
    const whole = parseState(text, file);
    const lines = await readStateLines(file);
    expect(lines).toEqual(whole);
    expect(await store.read()).toEqual(whole);
    if (lines === undefined || lines === 'other-layout') throw new Error('not read by lines');
    for (const address of Object.keys(whole.resources)) expect(mayHoldFingerprint(lines)(address)).toBe(mayHoldFingerprint(whole)(address));
    expect(mayHoldFingerprint(lines)('collaboration[c].participant[p]')).toBe(true);
  });

  it('leaves any other layout to the whole-text parser, which reports what is wrong', async () => {
    const text = serializeState(sampleState());
    for (const other of [`${JSON.stringify(sampleState(), null, 2)}\n`, text.replace('\n', '\r\n'), text.slice(0, -3), `\uFEFF${text}`]) {
      await writeFile(file, other);
      expect(await readStateLines(file)).toBe('other-layout');
    }
    // Cut after a whole line: not the layout; the store says the file is corrupt and may be truncated.
    await writeFile(file, text.slice(0, text.indexOf('\n', text.indexOf('"resources"')) + 1));
    await expect(new FileStateStore({ path: file }).read()).rejects.toThrow(/is corrupt: not valid JSON .*it may be truncated/);
  });

  it('an entry line that is not JSON, or not an entry, is a corrupt state naming the file and the address', async () => {
    const text = serializeState(sampleState());
    await writeFile(file, text.replace('"item[i1].status": {', '"item[i1].status": {{'));
    const error = await new FileStateStore({ path: file }).read().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateCorruptError);
    expect((error as Error).message).toContain(`State file ${file} is corrupt: the entry at "item[i1].status" is not valid JSON`);
    await writeFile(file, text.replace(/"item\[i1\]\.status": \{"kind":"item.status",/, '"item[i1].status": {"kind":"",'));
    await expect(new FileStateStore({ path: file }).read()).rejects.toThrow('resources["item[i1].status"].kind is missing');
  });
});

describe('fingerprint hints from the state text', () => {
  it('name exactly the entries whose line holds a fingerprint, in resources and unknown outcomes', () => {
    const state = parseState(serializeState(sampleState()), file);
    expect(mayHoldFingerprint(state)('role[r2]')).toBe(true);
    expect(mayHoldFingerprint(state)('collaboration[c].participant[p]')).toBe(true);
    expect(mayHoldFingerprint(state)('item[i1].status')).toBe(false);
    expect(mayHoldFingerprint(state)('group[g "1"].categorySchema')).toBe(false);
  });

  it('say "may" for every entry of a file in another layout, with \\u escapes, or of unknown provenance', () => {
    const sample = sampleState();
    const pretty = parseState(`${JSON.stringify(sample, null, 2)}\n`, file);
    expect(mayHoldFingerprint(pretty)('item[i1].status')).toBe(true);
    // A fingerprint spelled with an escape is not found by searching the text: every entry may hold one.
    const escaped = serializeState(sample).replace(`"${FINGERPRINT}`, `"\\u0073${FINGERPRINT.slice(1)}`);
    const fromEscaped = parseState(escaped, file);
    expect(fromEscaped.resources['role[r2]']?.value).toEqual({ name: 'Editors', description: FINGERPRINT });
    expect(mayHoldFingerprint(fromEscaped)('item[i1].status')).toBe(true);
    // An in-memory state (not parsed from a file) is not known either.
    expect(mayHoldFingerprint(sample)('item[i1].status')).toBe(true);
  });

  it('a state without fingerprints: no entry may hold one', () => {
    let state = newState(PORTAL);
    state = recordOperation(state, 'item[i1].status', entry('item.status', 'sha256 is not a fingerprint'));
    const read = parseState(serializeState(state), file);
    expect(mayHoldFingerprint(read)('item[i1].status')).toBe(false);
  });
});

describe('state times', () => {
  it('are checked in every entry, also after entries that share a valid time', () => {
    const good = '2025-01-01T00:00:00.000Z';
    const withTimes = (times: { appliedAt?: string; observedAt?: string }[]) => {
      const resources = Object.fromEntries(times.map((time, index) => [`item[i${index}].status`, { ...entry('item.status', 'deprecated'), ...time }]));
      return serializeState({ ...newState(PORTAL), resources });
    };
    expect(() => parseState(withTimes([{ appliedAt: good, observedAt: good }, { appliedAt: good, observedAt: good }]), file)).not.toThrow();
    expect(() => parseState(withTimes([{ appliedAt: good }, { appliedAt: good }, { appliedAt: 'yesterday' }]), file)).toThrow('resources["item[i2].status"].appliedAt is not a date');
    expect(() => parseState(withTimes([{ observedAt: good }, { observedAt: good, appliedAt: good }, { observedAt: 'soon' }]), file)).toThrow('resources["item[i2].status"].observedAt is not a date');
  });
});
