/**
 * Reads the live value of every declared object. Reads go through the memoising LiveReader,
 * so an object shared by several kinds (a workspace for E9 and E14) is fetched once.
 */
import type { DesiredObject, JsonValue, Kind, LiveReader } from './kind.js';

export async function readLive(
  objects: readonly DesiredObject[],
  kinds: ReadonlyMap<string, Kind>,
  reader: LiveReader,
  concurrency: number,
): Promise<Map<string, JsonValue>> {
  const live = new Map<string, JsonValue>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects.length) {
      const obj = objects[next++] as DesiredObject;
      const kind = kinds.get(obj.kind);
      if (!kind) throw new Error(`No kind named "${obj.kind}" is registered.`);
      live.set(obj.address, await kind.read(obj, reader));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, objects.length)) }, worker));
  return live;
}
