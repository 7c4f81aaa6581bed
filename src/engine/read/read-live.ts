/**
 * Reads the live value of every declared object, and the name a person knows it by. Reads go
 * through the memoising LiveReader, so an object shared by several kinds (a workspace for E9 and
 * E14) is fetched once, and a list read for one object serves all of its kind. Each kind is told
 * how many of its objects are read, to choose one list read over one read per object. Every
 * declared object the portal does not have is reported at once, at its place in the config.
 *
 * The reader bounds the requests in flight; here many objects are in progress at once, since
 * most of them wait on a read another object started (a list, a user's tasks) and a bound on
 * objects would leave request places idle behind them.
 */
import { isMissingPrivilege } from '../../api/errors.js';
import { ConfigError } from '../config/errors.js';
import { DeclaredObject } from '../config/extract.js';
import type { Diagnostic, SourceLocation } from '../../core/diagnostics.js';
import { ReadsRefusedError, type RefusedRead } from './refused-reads.js';
import { NotOnPortalError, PortalRefusesError, ReadRefusalsError, type ConfigPath, type DesiredObject, type Kind, type ReadContext } from '../../kinds/toolkit/contract.js';
import { type JsonValue } from '../../core/json.js';
import { type LiveReader } from '../../core/request.js';
import type { PhaseTracker } from '../progress.js';

export interface LiveRead {
  values: Map<string, JsonValue>;
  /** What each object is called, by address, where its kind could tell from the reads made. */
  labels: Map<string, string>;
}

/** Objects in progress at once: enough to keep every request place busy, few enough to bound memory. */
const OBJECTS_IN_PROGRESS = 1024;

/** `tracker` counts each object read (progress.ts). */
export async function readLive(objects: readonly DesiredObject[], kinds: ReadonlyMap<string, Kind>, reader: LiveReader, tracker?: PhaseTracker): Promise<LiveRead> {
  const values = new Map<string, JsonValue>();
  const labels = new Map<string, string>();
  const missing: Diagnostic[] = [];
  const refused: RefusedRead[] = [];
  // Each kind's reads, all sharing the kind's one context (which lists the kind's objects).
  const byKind = new Map<string, { context: ReadContext; peers: DesiredObject[]; reads: { obj: DesiredObject; context: ReadContext }[] }>();
  for (const obj of objects) {
    let group = byKind.get(obj.kind);
    if (!group) {
      const peers: DesiredObject[] = [];
      byKind.set(obj.kind, (group = { context: { declared: 0, peers }, peers, reads: [] }));
    }
    group.context.declared += 1;
    group.peers.push(obj);
    group.reads.push({ obj, context: group.context });
  }
  // One iterator shared by the workers: each takes the next read when it is free.
  const pending = roundRobin([...byKind.values()].map((group) => group.reads)).values();
  const worker = async (): Promise<void> => {
    for (const { obj, context } of pending) {
      const kind = kinds.get(obj.kind);
      if (!kind) throw new Error(`No kind named "${obj.kind}" is registered.`);
      try {
        values.set(obj.address, await kind.read(obj, reader, context));
        const label = await kind.label?.(obj, reader, context);
        if (label) labels.set(obj.address, label);
        tracker?.step();
      } catch (error) {
        if (isMissingPrivilege(error)) {
          // The other reads go on: every privilege missing is said in one run.
          tracker?.step();
          refused.push({ address: obj.address, location: obj.source, error });
          continue;
        }
        const reasons = error instanceof ReadRefusalsError ? error.reasons : isRefusal(error) ? [error] : undefined;
        if (!reasons) throw error;
        tracker?.step();
        for (const reason of reasons) {
          if (reason instanceof PortalRefusesError) {
            missing.push(refusedAt(reason, obj));
            continue;
          }
          // A missing enclosing entry (a collaboration) is said once, where that entry is declared.
          const at = reason.enclosing ? enclosingEntry(obj, reason.enclosing) : { address: obj.address, source: placeIn(obj, reason.at) };
          if (reason.enclosing && missing.some((diagnostic) => diagnostic.address === at.address)) continue;
          missing.push(notOnPortal(reason, at.address, at.source));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(OBJECTS_IN_PROGRESS, objects.length)) }, worker));
  // One refusal is the portal's own error, as any other request's; several are said together.
  const requests = new Set(refused.map(({ error }) => `${error.method} ${error.path}`));
  if (requests.size === 1) throw (refused[0] as RefusedRead).error;
  if (requests.size > 1) throw new ReadsRefusedError(refused.sort((a, b) => a.address.localeCompare(b.address)));
  if (missing.length) throw new ConfigError(missing.sort((a, b) => (a.address ?? '').localeCompare(b.address ?? '')));
  return { values, labels };
}

/** What the plan says of an object (or its enclosing entry) the portal does not have, at its place in the config. */
export function notOnPortal(error: NotOnPortalError, address: string, location: SourceLocation): Diagnostic {
  return {
    severity: 'error',
    code: 'portal/not-found',
    message: `${error.message}.`,
    address,
    location,
    // Every kind that can be missing is one the API only changes: a new id cannot be made to exist.
    expected: 'the id of an existing object: portalctl changes these, the API has no operation that creates one (portalctl import lists them)',
  };
}

const isRefusal = (error: unknown): error is PortalRefusesError | NotOnPortalError => error instanceof PortalRefusesError || error instanceof NotOnPortalError;

/** What the plan says of a change the portal would refuse, at the refused value's place in the config. */
export function refusedAt(error: PortalRefusesError, obj: DesiredObject): Diagnostic {
  return { severity: 'error', code: error.code, message: error.message, address: obj.address, location: placeIn(obj, error.at), expected: error.expected };
}

/** Where `path` (relative to the object's declaration) is written; the declaration itself without one, or when that cannot be told. */
function placeIn(obj: DesiredObject, path: ConfigPath | undefined): SourceLocation {
  return path && obj instanceof DeclaredObject ? obj.locate(path) : obj.source;
}

/** The entry `enclosing` names, where the config declares it; the object's own place when that cannot be told. */
function enclosingEntry(obj: DesiredObject, enclosing: NonNullable<NotOnPortalError['enclosing']>): { address: string; source: SourceLocation } {
  return (obj instanceof DeclaredObject ? obj.enclosing(enclosing.container) : undefined) ?? { address: enclosing.address, source: obj.source };
}

/**
 * One object of each kind in turn: every kind's first read (often the first page of its list)
 * starts at once, instead of a kind waiting behind a thousand objects of the one before it.
 */
function roundRobin<T>(groups: readonly (readonly T[])[]): T[] {
  // rounds[i] holds the i-th object of every kind that has one, in the kinds' order.
  const rounds: T[][] = [];
  for (const group of groups) group.forEach((item, index) => (rounds[index] ??= []).push(item));
  return rounds.flat();
}
