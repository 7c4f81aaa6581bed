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
  | {
      type: 'advance';
      phase: ProgressPhase;
      unit: ProgressUnit;
      done: number;
      total: number;
      /** The item in flight the longest: what the run is waiting for (none when nothing is in flight, or items are not named). */
      current?: ProgressItem;
      /** Items in flight, `current` among them. */
      inFlight?: number;
    }
  | { type: 'end'; phase: ProgressPhase };

export type ProgressObserver = (event: ProgressEvent) => void;

/** Counts one phase for an observer (absent: nothing is reported, nothing is counted). */
export class PhaseTracker {
  #done = 0;
  #ended = false;
  /** Items started and not yet done, oldest first (a Map keeps insertion order). */
  readonly #inFlight = new Map<string, ProgressItem>();

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

  /** Work on `item` started: in flight until `step` names its address. */
  started(item: ProgressItem): void {
    this.#inFlight.set(item.address, item);
    this.#report();
  }

  /** One more done (`address`: the started item it finishes). */
  step(address?: string): void {
    this.#done += 1;
    if (address !== undefined) this.#inFlight.delete(address);
    this.#report();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.observer?.({ type: 'end', phase: this.phase });
  }

  #report(): void {
    if (this.#ended || !this.observer) return;
    // The oldest in flight, not the last started: with several at once, the one the run waits on longest.
    const current = this.#inFlight.values().next();
    this.observer({
      type: 'advance',
      phase: this.phase,
      unit: this.unit,
      done: this.#done,
      total: this.total,
      ...(current.done ? {} : { current: current.value, inFlight: this.#inFlight.size }),
    });
  }
}
