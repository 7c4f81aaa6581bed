/**
 * The emulator's state and clock. Every request runs against a structuredClone draft; a write
 * commits the draft only when its handler returns, so a rejected or crashed request leaves the
 * state exactly as it was.
 */
import type { EmulatorState } from './model.js';

export class EmulatorStore {
  private current: EmulatorState;
  private readonly initial: EmulatorState;

  constructor(initial: EmulatorState) {
    this.initial = structuredClone(initial);
    this.current = structuredClone(initial);
  }

  /** A copy of the current state (callers cannot change the store through it). */
  snapshot(): EmulatorState {
    return structuredClone(this.current);
  }

  /** Runs a read against a throw-away copy, so even a careless read handler changes nothing. */
  read<T>(handler: (draft: EmulatorState) => T): T {
    return handler(structuredClone(this.current));
  }

  /** Runs a write against a draft and commits it only when the handler returns. */
  write<T>(handler: (draft: EmulatorState) => T): T {
    const draft = structuredClone(this.current);
    const result = handler(draft);
    this.current = draft;
    return result;
  }

  replace(state: EmulatorState): void {
    this.current = structuredClone(state);
  }

  /** Back to the data the emulator was started with. */
  reset(): void {
    this.current = structuredClone(this.initial);
  }
}

/** Real time, optionally frozen or shifted by the control API (for token-expiry tests). */
export class EmulatorClock {
  private frozenAt: number | undefined;
  private offsetMs = 0;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  freeze(at: number): void {
    this.frozenAt = at;
    this.offsetMs = 0;
  }

  shift(offsetMs: number): void {
    this.frozenAt = undefined;
    this.offsetMs = offsetMs;
  }

  reset(): void {
    this.frozenAt = undefined;
    this.offsetMs = 0;
  }

  describe(): { now: number; frozen: boolean; offsetMs: number } {
    return { now: this.now(), frozen: this.frozenAt !== undefined, offsetMs: this.offsetMs };
  }
}
