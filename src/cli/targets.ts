/**
 * `--target ADDR` keeps the operations whose address starts with ADDR. A target that matches no
 * declared object is a mistake (a typo would otherwise plan nothing and exit 0): it is refused,
 * naming the closest declared addresses.
 */
import { UsageError } from '../core/errors.js';
import type { LoadedConfig } from '../engine/config/index.js';

/** Edit distance (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** How far `target` is from being a prefix of `address` (or the address itself). */
function closeness(target: string, address: string): number {
  return Math.min(distance(target, address), distance(target, address.slice(0, target.length)));
}

/** Up to `count` declared addresses closest to `target`, nearest first. */
export function closestAddresses(target: string, addresses: readonly string[], count = 3): string[] {
  const limit = Math.max(3, Math.ceil(target.length / 3));
  return [...new Set(addresses)]
    .map((address) => ({ address, score: closeness(target, address) }))
    .filter(({ score }) => score <= limit)
    .sort((a, b) => a.score - b.score || (a.address < b.address ? -1 : 1))
    .slice(0, count)
    .map(({ address }) => address);
}

/** Throws when a target matches no declared object (nor a collection that `prune: true` may fill). */
export function assertTargetsMatch(targets: readonly string[], config: Pick<LoadedConfig, 'objects' | 'prunes'>): void {
  const addresses = config.objects.map((obj) => obj.address);
  const collections = config.prunes.map((prune) => prune.collection);
  const unmatched = targets.filter(
    (target) =>
      !addresses.some((address) => address.startsWith(target)) &&
      !collections.some((collection) => collection.startsWith(target) || target.startsWith(collection)),
  );
  if (unmatched.length === 0) return;
  const lines = unmatched.map((target) => {
    const near = closestAddresses(target, [...addresses, ...collections]);
    return `--target ${JSON.stringify(target)} matches no declared object${near.length ? `; the closest: ${near.join(', ')}` : ''}.`;
  });
  throw new UsageError(`${lines.join('\n')}\nA target keeps the operations whose address starts with it (see \`portalctl plan\` for the addresses).`);
}
