/**
 * Reads the live value of every declared object. Reads go through the memoising LiveReader,
 * so an object shared by several kinds (a workspace for E9 and E14) is fetched once. Every
 * declared object the portal does not have is reported at once, at its place in the config.
 */
import { ConfigError } from './config/errors.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { NotOnPortalError, type DesiredObject, type Kind } from '../kinds/contract.js';
import { type JsonValue } from '../core/json.js';
import { type LiveReader } from '../core/request.js';

export async function readLive(
  objects: readonly DesiredObject[],
  kinds: ReadonlyMap<string, Kind>,
  reader: LiveReader,
  concurrency: number,
): Promise<Map<string, JsonValue>> {
  const live = new Map<string, JsonValue>();
  const missing: Diagnostic[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects.length) {
      const obj = objects[next++] as DesiredObject;
      const kind = kinds.get(obj.kind);
      if (!kind) throw new Error(`No kind named "${obj.kind}" is registered.`);
      try {
        live.set(obj.address, await kind.read(obj, reader));
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
  return live;
}
