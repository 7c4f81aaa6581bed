/**
 * The scheduler of a graph of operations, in the spirit of Terraform's dag.Walker: the caller
 * hands it a callback per vertex, and it calls each one once its dependencies have succeeded,
 * at most `parallelism` at a time. A failed vertex skips its dependents (and theirs); the
 * independent ones go on. The walker knows nothing of requests or state: what a visit does,
 * and what a skip means, is the caller's.
 *
 * A visit holds one of the places until it calls `release` or settles, and its dependents wait
 * until it settles: a visit may free its place before it is finished (apply frees it once the
 * portal answered, while the state records the answer).
 */

/** A vertex: its address and the addresses it depends on (those outside the graph are ignored). */
export interface Vertex {
  readonly address: string;
  readonly dependsOn: readonly string[];
}

/** What a visit came to: its dependents run after a success and are skipped after a failure. */
export type VisitResult = 'succeeded' | 'failed';

export interface WalkHandlers<V extends Vertex, Halt> {
  /** Visits one vertex; `release` frees its place before the visit settles. */
  visit(vertex: V, release: () => void): Promise<VisitResult>;
  /** A vertex not visited: `blocker`, one of its dependencies, failed (`blockerFailed`) or was skipped itself. */
  skip(vertex: V, blocker: string, blockerFailed: boolean): void;
  /** Visits holding a place at once; at least one. */
  parallelism: number;
  /** Asked before each start: while false, nothing new starts until a visit settles or frees its place. */
  mayStart?: () => boolean;
  /** Asked at every turn: a reason ends the walk; visits under way finish, nothing new starts. */
  halt?: () => Halt | undefined;
}

export interface WalkResult<V extends Vertex, Halt> {
  /** Vertices never visited nor skipped: the walk halted first, or a dependency never settled (a cycle). */
  notStarted: V[];
  /** Why the walk ended early, when it did. */
  halted?: Halt;
}

/** One walk of one graph: construct a new walker to walk again. */
export class Walker<V extends Vertex, Halt = string> {
  /** Not yet visited nor skipped, in the given order. */
  private readonly pending: V[];
  private readonly inGraph: ReadonlySet<string>;
  private readonly succeeded = new Set<string>();
  /** For each vertex that failed or was skipped, the failed vertex at the root of it. */
  private readonly blockedBy = new Map<string, string>();
  /** Visits holding a place: what `parallelism` bounds. */
  private readonly places = new Set<Promise<void>>();
  /** Visits not yet settled. */
  private readonly visits = new Set<Promise<void>>();
  /** The first error a visit threw: nothing new starts, and the walk throws it once the others settled. */
  private thrown: { error: unknown } | undefined;
  private walked = false;

  constructor(
    vertices: readonly V[],
    private readonly handlers: WalkHandlers<V, Halt>,
  ) {
    this.pending = [...vertices];
    this.inGraph = new Set(vertices.map((vertex) => vertex.address));
  }

  async walk(): Promise<WalkResult<V, Halt>> {
    if (this.walked) throw new Error('A walker walks its graph once; make a new one to walk again.');
    this.walked = true;
    const parallelism = Math.max(1, this.handlers.parallelism);
    let halted: Halt | undefined;
    for (;;) {
      if (this.thrown) break;
      halted = this.handlers.halt?.();
      if (halted !== undefined) break;
      while (this.places.size < parallelism && (this.handlers.mayStart?.() ?? true)) {
        const vertex = this.takeReady();
        if (!vertex) break;
        this.start(vertex);
      }
      if (this.visits.size === 0) break;
      await Promise.race([...this.places, ...this.visits]);
    }
    await Promise.all(this.visits);
    if (this.thrown) throw this.thrown.error;
    const notStarted = this.pending.splice(0);
    return halted === undefined ? { notStarted } : { notStarted, halted };
  }

  /** The first pending vertex whose dependencies all succeeded; skips the blocked ones on the way. */
  private takeReady(): V | undefined {
    for (let index = 0; index < this.pending.length; index++) {
      const vertex = this.pending[index];
      if (vertex === undefined) break;
      const dependencies = vertex.dependsOn.filter((address) => this.inGraph.has(address));
      const blocker = dependencies.find((address) => this.blockedBy.has(address));
      if (blocker !== undefined) {
        this.pending.splice(index--, 1);
        const root = this.blockedBy.get(blocker) ?? blocker;
        this.blockedBy.set(vertex.address, root);
        this.handlers.skip(vertex, blocker, root === blocker);
        continue;
      }
      if (dependencies.every((address) => this.succeeded.has(address))) {
        this.pending.splice(index, 1);
        return vertex;
      }
    }
    return undefined;
  }

  private start(vertex: V): void {
    let release = (): void => undefined;
    const place = new Promise<void>((resolve) => (release = resolve));
    this.places.add(place);
    void place.then(() => this.places.delete(place));
    let visiting: Promise<VisitResult>;
    try {
      visiting = this.handlers.visit(vertex, release);
    } catch (error) {
      visiting = Promise.reject(error);
    }
    const visit: Promise<void> = visiting
      .then(
        (result) => {
          if (result === 'succeeded') this.succeeded.add(vertex.address);
          else this.blockedBy.set(vertex.address, vertex.address);
        },
        (error: unknown) => {
          this.blockedBy.set(vertex.address, vertex.address);
          this.thrown ??= { error };
        },
      )
      .finally(() => {
        release();
        this.visits.delete(visit);
      });
    this.visits.add(visit);
  }
}
