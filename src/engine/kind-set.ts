/**
 * The set of kinds the engine works with. The engine never imports the registry
 * (src/kinds/index.ts): the CLI composes it once (src/registry.ts) and passes it to every
 * entry point, so the engine runs just as well with a fake set of kinds in tests.
 */
import type { ContainerDefinition } from '../kinds/toolkit/containers.js';
import type { ConfigContribution, Kind } from '../kinds/toolkit/contract.js';

export interface KindSet {
  /** In registration order: import and schema composition follow it. */
  readonly kinds: readonly Kind[];
  /** The config's skeleton the kinds contribute properties to. */
  readonly containers: readonly ContainerDefinition[];
  readonly byName: ReadonlyMap<string, Kind>;
}

/** A container's contributions, each with the name of the kind that owns it. */
export interface OwnedContribution {
  kind: string;
  contribution: ConfigContribution;
}

export class KindSetError extends Error {}

export function createKindSet(kinds: readonly Kind[], containers: readonly ContainerDefinition[]): KindSet {
  const byName = new Map<string, Kind>();
  for (const kind of kinds) {
    if (byName.has(kind.name)) throw new KindSetError(`Two kinds are named ${kind.name}; a kind's name is its key in the state file.`);
    byName.set(kind.name, kind);
  }
  const containerNames = new Set(containers.map((container) => container.name));
  for (const kind of kinds) {
    for (const contribution of kind.config) {
      if (!containerNames.has(contribution.container)) throw new KindSetError(`${kind.name} contributes to ${contribution.container}, which is not a container.`);
    }
  }
  // A container's entries are named one way: by the one kind that declares its lookup.
  const named = new Map<string, string>();
  for (const kind of kinds) {
    for (const lookup of kind.names ?? []) {
      const container = containers.find((candidate) => candidate.name === lookup.container);
      if (!container?.key) throw new KindSetError(`${kind.name} declares names for ${lookup.container}, which is not a keyed list container.`);
      const other = named.get(lookup.container);
      if (other !== undefined) throw new KindSetError(`${kind.name} and ${other} both declare names for ${lookup.container}; one lookup per container.`);
      named.set(lookup.container, kind.name);
    }
  }
  return { kinds, containers, byName };
}

/** The contributions to `container`, in registration order. */
export function contributionsOf(set: KindSet, container: string): OwnedContribution[] {
  return set.kinds.flatMap((kind) =>
    kind.config.filter((contribution) => contribution.container === container).map((contribution) => ({ kind: kind.name, contribution })),
  );
}
