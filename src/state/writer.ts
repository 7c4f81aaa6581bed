/**
 * Serialised recording for the engine: operations that finish concurrently record one after
 * another, each as its own atomic write with serial+1, so the state on disk always reflects
 * every operation that succeeded so far.
 */
import { forgetResource, recordOperation, type StateDocument, type StateEntry } from './format.js';
import type { StateStore } from './store.js';

export class StateWriter {
  private latest: StateDocument;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StateStore,
    initial: StateDocument,
  ) {
    this.latest = initial;
  }

  /** The last state written (or the initial one). */
  get state(): StateDocument {
    return this.latest;
  }

  record(address: string, entry: StateEntry): Promise<StateDocument> {
    return this.update((state) => recordOperation(state, address, entry));
  }

  forget(address: string): Promise<StateDocument> {
    return this.update((state) => forgetResource(state, address));
  }

  /** Apply a pure change to the latest state and write it; resolves with what was written. */
  update(change: (state: StateDocument) => StateDocument): Promise<StateDocument> {
    const next = this.queue.then(async () => {
      const written = await this.store.write(change(this.latest));
      this.latest = written;
      return written;
    });
    // A failed write is reported to its caller; later records still run.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves when every queued write has finished. */
  async idle(): Promise<void> {
    await this.queue;
  }
}
