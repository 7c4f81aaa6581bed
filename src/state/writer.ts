/**
 * Serialised recording for the engine. Operations that finish while a write is in flight are
 * recorded together in the next write (group commit): each write is atomic with serial+1, a
 * record resolves only once its change is on disk, and a 1,000-operation apply does not pay
 * for 1,000 fsyncs when operations finish faster than the disk.
 */
import type { JsonValue } from '../core/json.js';
import { clearUnknownOutcome, forgetResource, markUnknownOutcome, recordOperation, type StateDocument, type StateEntry, type UnknownOutcome } from './format.js';
import { withWriterChanges } from './journal.js';
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
  private readonly entries = new OwnEntries();
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
    const undo = this.entries.begin();
    try {
      const next = this.applyBatch(batch);
      const written = await this.store.write(withWriterChanges(next, this.entries.changes()));
      this.latest = written;
      for (const item of batch) item.resolve(written);
      return true;
    } catch (error) {
      undo();
      if (batch.length === 1) batch[0]?.reject(error);
      return false;
    }
  }

  /**
   * The batch's changes in order, made to the writer's own entries. Records change those in
   * place; other changes are pure functions of the state, whose result is compared with the
   * entries they were given (they are rare: unknown outcomes, the observation after an apply).
   */
  private applyBatch(batch: readonly PendingChange[]): StateDocument {
    let next: StateDocument = { ...this.latest, resources: this.entries.current(this.latest.resources) };
    for (const item of batch) {
      if (item.recorded) {
        this.entries.set(item.recorded.address, { ...item.recorded.entry, ids: { ...item.recorded.entry.ids } });
        // A recorded success is a known outcome.
        if (next.unknownOutcomes?.[item.recorded.address]) next = clearUnknownOutcome(next, item.recorded.address);
        continue;
      }
      const changed = item.change(next);
      next = { ...changed, resources: this.entries.adopt(changed.resources) };
    }
    return next;
  }
}

/**
 * The writer's entries. Copying a large state's entries for every write of an apply would make
 * recording cost the size of the state per group commit, so the writer copies them once and
 * then changes its copy in place, noting what each address held before the write in progress;
 * a failed write is undone from that note. The states the writer hands out share the copy: they
 * are current, not snapshots (the engine reads only the latest).
 */
class OwnEntries {
  private own: Record<string, StateEntry> | undefined;
  private before = new Map<string, StateEntry | undefined>();
  private replaced: Record<string, StateEntry> | undefined;

  /** The writer's copy, made from `initial` at the first write (a loop: faster than a spread for an object of many keys). */
  current(initial: Record<string, StateEntry>): Record<string, StateEntry> {
    if (this.own === undefined) {
      const own: Record<string, StateEntry> = {};
      for (const address in initial) {
        const entry = initial[address];
        if (entry !== undefined) own[address] = entry;
      }
      this.own = own;
    }
    return this.own;
  }

  set(address: string, entry: StateEntry): void {
    const own = this.own ?? {};
    if (!this.before.has(address)) this.before.set(address, Object.prototype.hasOwnProperty.call(own, address) ? own[address] : undefined);
    own[address] = entry;
    this.own = own;
  }

  /** Takes the entries a pure change returned: what differs from the writer's copy is noted. */
  adopt(resources: Record<string, StateEntry>): Record<string, StateEntry> {
    const own = this.own ?? {};
    if (resources === own) return own;
    for (const address in resources) {
      const earlier = Object.prototype.hasOwnProperty.call(own, address) ? own[address] : undefined;
      if (earlier !== resources[address] && !this.before.has(address)) this.before.set(address, earlier);
    }
    for (const address in own) {
      if (!Object.prototype.hasOwnProperty.call(resources, address) && !this.before.has(address)) this.before.set(address, own[address]);
    }
    this.replaced ??= own;
    this.own = resources;
    return resources;
  }

  /** What the write in progress changed, and what those addresses held before it. */
  changes(): ReadonlyMap<string, StateEntry | undefined> {
    return this.before;
  }

  /** Starts a write; the function returned puts the entries back as they were before it. */
  begin(): () => void {
    this.before = new Map();
    this.replaced = undefined;
    return () => {
      if (this.replaced !== undefined) this.own = this.replaced;
      const own = this.own;
      if (own !== undefined) {
        for (const [address, entry] of this.before) {
          if (entry === undefined) delete own[address];
          else own[address] = entry;
        }
      }
      this.before = new Map();
      this.replaced = undefined;
    };
  }
}
