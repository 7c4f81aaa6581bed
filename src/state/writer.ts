/**
 * Serialised recording for the engine. Operations that finish while a write is in flight are
 * recorded together in the next write (group commit): each write is atomic with serial+1, a
 * record resolves only once its change is on disk, and a 1,000-operation apply does not pay
 * for 1,000 fsyncs when operations finish faster than the disk.
 */
import type { JsonValue } from '../core/json.js';
import { clearUnknownOutcome, forgetResource, markUnknownOutcome, recordOperation, type StateDocument, type StateEntry, type UnknownOutcome } from './format.js';
import type { StateStore } from './store.js';

interface PendingChange {
  change: (state: StateDocument) => StateDocument;
  /** Set for record(): the batch applies consecutive records with one copy of the resources. */
  recorded?: { address: string; entry: StateEntry };
  resolve: (written: StateDocument) => void;
  reject: (error: unknown) => void;
}

export class StateWriter {
  private latest: StateDocument;
  private pending: PendingChange[] = [];
  private flushing: Promise<void> | undefined;

  /** What the state may hold of a value (referenced secrets fingerprinted); applied to every recorded value. */
  readonly conceal: (value: JsonValue) => JsonValue;

  constructor(
    private readonly store: StateStore,
    initial: StateDocument,
    options: { conceal?: (value: JsonValue) => JsonValue } = {},
  ) {
    this.latest = initial;
    this.conceal = options.conceal ?? ((value) => value);
  }

  /** The last state written (or the initial one). */
  get state(): StateDocument {
    return this.latest;
  }

  record(address: string, entry: StateEntry): Promise<StateDocument> {
    const kept = { ...entry, value: this.conceal(entry.value) };
    return this.enqueue((state) => recordOperation(state, address, kept), { address, entry: kept });
  }

  /** Marks the outcome at `address` as unknown (before a request that must not be repeated, or when no answer came). */
  markUnknown(address: string, mark: UnknownOutcome): Promise<StateDocument> {
    return this.update((state) => markUnknownOutcome(state, address, { ...mark, value: this.conceal(mark.value) }));
  }

  /** The outcome at `address` is known after all (the portal answered with a refusal). */
  clearUnknown(address: string): Promise<StateDocument> {
    return this.update((state) => clearUnknownOutcome(state, address));
  }

  forget(address: string): Promise<StateDocument> {
    return this.update((state) => forgetResource(state, address));
  }

  /** Apply a pure change to the latest state and write it; resolves with what was written. */
  update(change: (state: StateDocument) => StateDocument): Promise<StateDocument> {
    return this.enqueue(change);
  }

  private enqueue(change: (state: StateDocument) => StateDocument, recorded?: PendingChange['recorded']): Promise<StateDocument> {
    const written = new Promise<StateDocument>((resolve, reject) =>
      this.pending.push({ change, resolve, reject, ...(recorded ? { recorded } : {}) }),
    );
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
      const next = applyBatch(this.latest, batch);
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

/**
 * The batch's changes in order. Consecutive records share one copy of the resources: copying
 * them once per record made a 1,000-operation apply quadratic in the size of the state.
 */
function applyBatch(state: StateDocument, batch: readonly PendingChange[]): StateDocument {
  let next = state;
  let resources: Record<string, StateEntry> | undefined;
  for (const item of batch) {
    if (item.recorded) {
      resources ??= { ...next.resources };
      resources[item.recorded.address] = { ...item.recorded.entry, ids: { ...item.recorded.entry.ids } };
      // A recorded success is a known outcome.
      if (next.unknownOutcomes?.[item.recorded.address]) next = clearUnknownOutcome(next, item.recorded.address);
      continue;
    }
    if (resources) next = { ...next, resources };
    resources = undefined;
    next = item.change(next);
  }
  return resources ? { ...next, resources } : next;
}
