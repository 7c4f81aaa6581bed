/**
 * Reads the live value of every declared object, and the name a person knows it by. Reads go
 * through the memoising LiveReader, so an object shared by several kinds (a workspace for E9 and
 * E14) is fetched once, and a list read for one object serves all of its kind. Each kind is told
 * how many of its objects are read, to choose one list read over one read per object. Every
 * declared object the portal does not have is reported at once, at its place in the config.
 */
import { ConfigError } from './config/errors.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { NotOnPortalError, type DesiredObject, type Kind, type ReadContext } from '../kinds/contract.js';
import { type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';

export interface LiveRead {
  values: Map<string, JsonValue>;
  /** What each object is called, by address, where its kind could tell from the reads made. */
  labels: Map<string, string>;
}

export async function readLive(
  objects: readonly DesiredObject[],
  kinds: ReadonlyMap<string, Kind>,
  reader: LiveReader,
  concurrency: number,
): Promise<LiveRead> {
  const values = new Map<string, JsonValue>();
  const labels = new Map<string, string>();
  const missing: Diagnostic[] = [];
  const contexts = new Map<string, ReadContext>();
  for (const obj of objects) {
    const context = contexts.get(obj.kind);
    if (context) context.declared += 1;
    else contexts.set(obj.kind, { declared: 1 });
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects.length) {
      const obj = objects[next++] as DesiredObject;
      const kind = kinds.get(obj.kind);
      if (!kind) throw new Error(`No kind named "${obj.kind}" is registered.`);
      const context = contexts.get(obj.kind) as ReadContext;
      try {
        values.set(obj.address, await kind.read(obj, reader, context));
        const label = await kind.label?.(obj, reader, context);
        if (label) labels.set(obj.address, label);
      } catch (error) {
        if (!(error instanceof NotOnPortalError)) throw error;
        missing.push({
          severity: 'error',
          code: 'portal/not-found',
          message: `${error.message}.`,
          address: obj.address,
          location: obj.source,
          expected: 'the id of an existing object (portalctl import lists them)',
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, objects.length)) }, worker));
  if (missing.length) throw new ConfigError(missing.sort((a, b) => (a.address ?? '').localeCompare(b.address ?? '')));
  return { values, labels };
}
