/**
 * `--target ADDR` keeps the operations whose address ADDR selects, step by step
 * (core/address.ts): `role` selects every role, `collaboration[c1]` everything inside it, `rol`
 * nothing. A target that selects no declared object is a mistake (a typo would otherwise plan
 * nothing and exit 0): it is refused, naming the closest addresses.
 */
import { parseAddress, selects } from '../core/address.js';
import { UsageError } from '../core/errors.js';
import { closestNames } from '../core/suggest.js';
import type { LoadedConfig } from '../engine/config/index.js';

/** Every address and every address that a target may stop at: `user[u1].task[t1]` gives `user`, `user[u1]`, `user[u1].task` and itself. */
function selectable(addresses: readonly string[]): string[] {
  const all = new Set<string>();
  for (const address of addresses) {
    const steps = parseAddress(address);
    if (!steps) continue;
    let prefix = '';
    for (const step of steps) {
      all.add(`${prefix}${step.name}`);
      prefix = `${prefix}${step.name}${step.id === undefined ? '' : `[${step.id}]`}`;
      all.add(prefix);
      prefix += '.';
    }
  }
  return [...all];
}

/** Up to `count` addresses (or address prefixes) closest to `target`, nearest first. */
export function closestAddresses(target: string, addresses: readonly string[], count = 3): string[] {
  return closestNames(target, selectable(addresses), count);
}

/** A target names a member of a collection that `prune: true` may fill, or the collection (or what holds it). */
function touchesCollection(target: string, collection: string): boolean {
  if (selects(target, collection)) return true;
  const wanted = parseAddress(target);
  const steps = parseAddress(collection);
  if (!wanted || !steps || wanted.length !== steps.length) return false;
  return steps.every((step, index) => {
    const named = wanted[index];
    return named !== undefined && named.name === step.name && (index === steps.length - 1 || named.id === step.id);
  });
}

/** Throws when a target is not an address, or selects no declared object (nor a collection that `prune: true` may fill). */
export function assertTargetsMatch(targets: readonly string[], config: Pick<LoadedConfig, 'objects' | 'prunes'>): void {
  const addresses = config.objects.map((obj) => obj.address);
  const collections = config.prunes.map((prune) => prune.collection);
  const unmatched = targets.filter(
    (target) => !addresses.some((address) => selects(target, address)) && !collections.some((collection) => touchesCollection(target, collection)),
  );
  if (unmatched.length === 0) return;
  const lines = unmatched.map((target) => {
    const near = closestAddresses(target, [...addresses, ...collections]);
    const what = parseAddress(target) ? 'selects no declared object' : 'is not an address';
    return `--target ${JSON.stringify(target)} ${what}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''}`;
  });
  throw new UsageError(
    `${lines.join('\n')}\nA target selects whole steps of an address: \`role\` every role, \`role[r7HkQ2]\` one, \`collaboration[c0ffee]\` everything inside it (see \`portalctl plan\` for the addresses).`,
  );
}
