/**
 * Progress of a use case, as events to one observer the caller passes in (the CLI renders them:
 * a live line on a terminal, a line per phase and a heartbeat elsewhere). The engine says what
 * it is doing; it never decides how that is shown.
 */

export type ProgressPhase = 'reading' | 'applying' | 'verifying';

/** What a phase counts: objects read, operations applied, kinds imported. */
export type ProgressUnit = 'object' | 'operation' | 'kind';

export interface ProgressItem {
  address: string;
  /** The object as a person knows it, when known. */
  label?: string;
}

export type ProgressEvent =
  | { type: 'start'; phase: ProgressPhase; unit: ProgressUnit; total: number }
  | { type: 'advance'; phase: ProgressPhase; unit: ProgressUnit; done: number; total: number; current?: ProgressItem }
  | { type: 'end'; phase: ProgressPhase };

export type ProgressObserver = (event: ProgressEvent) => void;

/** Counts one phase for an observer (absent: nothing is reported, nothing is counted). */
export class PhaseTracker {
  #done = 0;
  #ended = false;

  constructor(
    private readonly observer: ProgressObserver | undefined,
    readonly phase: ProgressPhase,
    readonly unit: ProgressUnit,
    private total: number,
  ) {
    observer?.({ type: 'start', phase, unit, total });
  }

  /** The phase has more (or fewer) to do than first said (prunes expanded). */
  resize(total: number): void {
    this.total = total;
    this.#report();
  }

  /** Work on `item` started: shown as the current one. */
  started(item: ProgressItem): void {
    this.#report(item);
  }

  /** One more done. */
  step(): void {
    this.#done += 1;
    this.#report();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.observer?.({ type: 'end', phase: this.phase });
  }

  #report(current?: ProgressItem): void {
    if (this.#ended) return;
    this.observer?.({ type: 'advance', phase: this.phase, unit: this.unit, done: this.#done, total: this.total, ...(current ? { current } : {}) });
  }
}
