/**
 * The recovery file: what an apply performed on the portal but could not record in the state
 * (a full disk, a database that went away). It is written next to the state when it can be,
 * else into the system's temporary directory, and the next apply records it into the state
 * first, so that nothing applied is forgotten and no request that must not be repeated (E13)
 * is sent again. It holds what the state would have held: never a secret.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject, parseJson, type JsonValue } from '../core/json.js';
import { writeFileAtomic } from './file-store.js';
import { STATE_FORMAT_VERSION, stateFromValue, type StateEntry, type StatePortal, type UnknownOutcome } from './format.js';

export const RECOVERY_FORMAT = 'portalctl-recovery/1';

export interface RecoveryDocument {
  format: typeof RECOVERY_FORMAT;
  /** Where the state lives (password-free). */
  state: string;
  /** The lineage of the state the records belong to. */
  lineage: string;
  portal: StatePortal;
  createdAt: string;
  /** Applied but not recorded, by address. */
  resources: Record<string, StateEntry>;
  /** Outcomes not known that the state could not take, by address. */
  unknownOutcomes: Record<string, UnknownOutcome>;
}

/** The places a recovery file for `preferred` is looked for, in order: itself, then the temporary directory. */
export function recoveryLocations(preferred: string): string[] {
  const digest = createHash('sha256').update(preferred).digest('hex').slice(0, 16);
  return [preferred, join(tmpdir(), `portalctl-recovery-${digest}.json`)];
}

/** Writes the recovery file at the first place that takes it; returns where, or undefined when none did. */
export async function writeRecovery(preferred: string, document: RecoveryDocument): Promise<string | undefined> {
  const text = `${JSON.stringify(document, null, 2)}\n`;
  for (const path of recoveryLocations(preferred)) {
    try {
      await writeFileAtomic(path, text);
      return path;
    } catch {
      // The next place: a full disk or a read-only directory must not lose the records.
    }
  }
  return undefined;
}

/** The recovery file found for `preferred`, with where it is; undefined when there is none. Throws on a file that is not one. */
export async function readRecovery(preferred: string): Promise<{ path: string; document: RecoveryDocument } | undefined> {
  for (const path of recoveryLocations(preferred)) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    let data: JsonValue;
    try {
      data = parseJson(text);
    } catch {
      throw new Error(`The recovery file ${path} is not valid JSON; inspect it, then remove it.`);
    }
    const fields = isObject(data) ? data : {};
    const { format, state, lineage, createdAt, resources, unknownOutcomes } = fields;
    if (format !== RECOVERY_FORMAT || typeof lineage !== 'string' || !isObject(resources) || typeof state !== 'string' || typeof createdAt !== 'string') {
      throw new Error(`${path} is not a portalctl recovery file; inspect it, then remove it.`);
    }
    // Its records are checked as a state's are: they go into the state.
    const records = stateFromValue(
      { formatVersion: STATE_FORMAT_VERSION, lineage, serial: 0, portal: fields['portal'], resources, unknownOutcomes: isObject(unknownOutcomes) ? unknownOutcomes : {} },
      path,
      'Recovery file',
    );
    return { path, document: { format, state, lineage, portal: records.portal, createdAt, resources: records.resources, unknownOutcomes: records.unknownOutcomes ?? {} } };
  }
  return undefined;
}

export async function removeRecovery(path: string): Promise<void> {
  await rm(path, { force: true });
}
