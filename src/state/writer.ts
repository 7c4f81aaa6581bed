/**
 * Serialised recording for the engine. Operations that finish while a write is in flight are
 * recorded together in the next write (group commit): each write is atomic with serial+1, a
 * record resolves only once its change is on disk, and a 1,000-operation apply does not pay
 * for 1,000 fsyncs when operations finish faster than the disk.
 */
import { forgetResource, recordOperation, type StateDocument, type StateEntry } from './format.js';
import type { StateStore } from './store.js';

interface PendingChange {
  change: (state: StateDocument) => StateDocument;
  resolve: (written: StateDocument) => void;
  reject: (error: unknown) => void;
}

export class StateWriter {
  private latest: StateDocument;
  private pending: PendingChange[] = [];
  private flushing: Promise<void> | undefined;

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
    const written = new Promise<StateDocument>((resolve, reject) => this.pending.push({ change, resolve, reject }));
    this.flushing ??= this.flush();
    return written;
  }

  /** Resolves when every queued write has finished. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0);
        if (!(await this.write(batch)) && batch.length > 1) {
          // One bad change must not cost the others their record: write them one by one.
          for (const item of batch) await this.write([item]);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Writes a batch; true when written. A batch of one is rejected on failure. */
  private async write(batch: PendingChange[]): Promise<boolean> {
    try {
      let next = this.latest;
      for (const item of batch) next = item.change(next);
      const written = await this.store.write(next);
      this.latest = written;
      for (const item of batch) item.resolve(written);
      return true;
    } catch (error) {
      if (batch.length === 1) batch[0]?.reject(error);
      return false;
    }
  }
}
