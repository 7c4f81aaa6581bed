/**
 * Execution order: declared dependencies first, then a stable order by address. No numeric
 * priorities: a kind states what it waits for (DesiredObject -> addresses), nothing else.
 */
import { PortalctlError } from '../../core/errors.js';

export interface Orderable {
  address: string;
  dependsOn: readonly string[];
}

export class DependencyCycleError extends PortalctlError {}

const byAddress = (a: Orderable, b: Orderable): number => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

/**
 * Kahn's algorithm; among the operations that are ready, the smallest address goes first.
 * Dependencies on addresses that are not in `items` are ignored (already in sync or not targeted).
 */
export function orderByDependencies<T extends Orderable>(items: readonly T[]): T[] {
  const byAddr = new Map(items.map((item) => [item.address, item]));
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, T[]>();
  for (const item of items) {
    const deps = [...new Set(item.dependsOn)].filter((dep) => byAddr.has(dep) && dep !== item.address);
    waitingOn.set(item.address, deps.length);
    for (const dep of deps) {
      const list = dependents.get(dep) ?? [];
      list.push(item);
      dependents.set(dep, list);
    }
  }
  const ready = items.filter((item) => waitingOn.get(item.address) === 0).sort(byAddress);
  const ordered: T[] = [];
  for (let next = ready.shift(); next !== undefined; next = ready.shift()) {
    ordered.push(next);
    let added = false;
    for (const dependent of dependents.get(next.address) ?? []) {
      const left = (waitingOn.get(dependent.address) ?? 0) - 1;
      waitingOn.set(dependent.address, left);
      if (left === 0) {
        ready.push(dependent);
        added = true;
      }
    }
    if (added) ready.sort(byAddress);
  }
  if (ordered.length !== items.length) {
    const stuck = items.filter((item) => !ordered.includes(item)).map((item) => item.address);
    throw new DependencyCycleError(`Dependency cycle between: ${stuck.join(', ')}`);
  }
  return ordered;
}
