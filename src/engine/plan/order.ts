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

/**
 * The operations that wait on each other: each group of two or more that can reach one another
 * through their dependencies (Tarjan's strongly connected components), in waiting order from its
 * smallest address, each waiting for the next and the last for the first (a group that is more
 * than one ring has the members off that walk after it, by address). Groups by first address.
 */
export function dependencyRings<T extends Orderable>(items: readonly T[]): T[][] {
  const byAddr = new Map(items.map((item) => [item.address, item]));
  const waitsFor = (item: T): T[] => [...new Set(item.dependsOn)].sort().flatMap((dep) => (dep === item.address ? [] : (byAddr.get(dep) ?? [])));
  const index = new Map<T, number>();
  const lowest = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const groups: T[][] = [];
  const visit = (item: T): void => {
    const own = index.size;
    index.set(item, own);
    lowest.set(item, own);
    stack.push(item);
    onStack.add(item);
    for (const dep of waitsFor(item)) {
      if (!index.has(dep)) visit(dep);
      if (onStack.has(dep)) lowest.set(item, Math.min(lowest.get(item) ?? own, lowest.get(dep) ?? own));
    }
    if (lowest.get(item) !== own) return;
    const group: T[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === item ? undefined : stack.pop()) {
      onStack.delete(member);
      group.push(member);
    }
    if (group.length > 1) groups.push(group);
  };
  for (const item of items) if (!index.has(item)) visit(item);
  return groups.map((group) => ringOrder(group, waitsFor)).sort((a, b) => byAddress(a[0] as T, b[0] as T));
}

/** A group's members from its smallest address along what each waits for, then the rest by address. */
function ringOrder<T extends Orderable>(group: readonly T[], waitsFor: (item: T) => T[]): T[] {
  const members = new Set(group);
  const sorted = [...group].sort(byAddress);
  const ring: T[] = [];
  for (let next: T | undefined = sorted[0]; next !== undefined; next = waitsFor(next).find((dep) => members.has(dep) && !ring.includes(dep))) ring.push(next);
  return [...ring, ...sorted.filter((member) => !ring.includes(member))];
}
