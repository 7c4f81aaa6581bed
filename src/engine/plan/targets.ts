/**
 * `--target ADDR` keeps the operations whose address ADDR selects, step by step
 * (core/address.ts): `role` selects every role, `collaboration[c1]` everything inside it, `rol`
 * nothing. A target that selects no declared object is a mistake (a typo would otherwise plan
 * nothing and exit 0): it is refused, naming the closest addresses.
 *
 * An object declared by name has a placeholder where its id goes until the plan resolves the
 * name (`role[name=Field Analyst]`). A target by id (`role[r7HkQ2]`, the address a plan shows)
 * may mean it, so it is let through at first and checked again once the names are resolved.
 */
import { parseAddress, selects } from '../../core/address.js';
import { UsageError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';
import type { DesiredObject, PruneDeclaration } from '../../kinds/toolkit/contract.js';

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

/**
 * Up to `count` addresses (or address prefixes) closest to `target`, nearest first; else those it
 * begins (`user[js]` for `user[jsmith]`), shortest first.
 */
export function closestAddresses(target: string, addresses: readonly string[], count = 3): string[] {
  const candidates = selectable(addresses);
  const near = closestNames(target, candidates, count);
  if (near.length > 0) return near;
  const stem = target.replace(/\]$/, '');
  return candidates
    .filter((candidate) => candidate !== target && candidate.startsWith(stem))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .slice(0, count);
}

/** The placeholders in a declaration's address: steps whose id is not known before the plan resolves their names. */
function placeholdersOf(declaration: Pick<DesiredObject, 'names'>): ReadonlySet<string> {
  return new Set((declaration.names ?? []).map((named) => named.placeholder));
}

/** `selects`, where a step of `address` that holds a name's placeholder takes any id. */
function mayFind(target: string, address: string, placeholders: ReadonlySet<string>): boolean {
  if (placeholders.size === 0) return selects(target, address);
  const wanted = parseAddress(target);
  const steps = parseAddress(address);
  if (!wanted || !steps || wanted.length > steps.length) return false;
  return wanted.every((step, index) => {
    const actual = steps[index];
    return actual !== undefined && step.name === actual.name && (step.id === undefined || step.id === actual.id || (actual.id !== undefined && placeholders.has(actual.id)));
  });
}

/** A target names a member of a collection that `prune: true` may fill, or the collection (or what holds it). */
function touchesCollection(target: string, collection: string, placeholders: ReadonlySet<string>): boolean {
  if (mayFind(target, collection, placeholders)) return true;
  const wanted = parseAddress(target);
  const steps = parseAddress(collection);
  if (!wanted || !steps || wanted.length !== steps.length) return false;
  return steps.every((step, index) => {
    const named = wanted[index];
    return named !== undefined && named.name === step.name && (index === steps.length - 1 || named.id === step.id || (step.id !== undefined && placeholders.has(step.id)));
  });
}

/**
 * Throws when a target is not an address, or selects no declared object (nor a collection that
 * `prune: true` may fill). Before names are resolved, a step declared by name matches any id.
 */
export function assertTargetsMatch(
  targets: readonly string[],
  config: { objects: readonly DesiredObject[]; prunes: readonly PruneDeclaration[] },
  /** Addresses to suggest besides the config's: once names are resolved, those as declared (`role[name=Field Analyst]`). */
  declared: readonly string[] = [],
): void {
  const unmatched = targets.filter(
    (target) =>
      !config.objects.some((obj) => mayFind(target, obj.address, placeholdersOf(obj))) &&
      !config.prunes.some((prune) => touchesCollection(target, prune.collection, placeholdersOf(prune))),
  );
  if (unmatched.length === 0) return;
  const addresses = [...config.objects.map((obj) => obj.address), ...config.prunes.map((prune) => prune.collection), ...declared];
  const lines = unmatched.map((target) => {
    const near = closestAddresses(target, addresses);
    const what = parseAddress(target) ? 'selects no declared object' : 'is not an address';
    return `--target ${JSON.stringify(target)} ${what}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''}`;
  });
  throw new UsageError(
    `${lines.join('\n')}\nA target selects whole steps of an address: \`role\` every role, \`role[r7HkQ2]\` one, \`collaboration[c0ffee]\` everything inside it (see \`portalctl plan\` for the addresses).`,
  );
}
