/**
 * The words of progress (engine/progress.ts events), the same on a terminal's live line and in
 * the lines written elsewhere. The operation in flight is named as plans name it (`named`).
 */
import type { ProgressEvent, ProgressPhase } from '../progress.js';
import { counted } from '../../core/words.js';
import { named } from './text.js';

/** Where a phase stands: the engine's latest count for it (engine/progress.ts). */
export type ProgressView = Omit<Extract<ProgressEvent, { type: 'advance' }>, 'type'>;

const TITLE: Record<ProgressPhase, string> = {
  reading: 'Reading the portal',
  applying: 'Applying',
  verifying: 'Verifying what was written',
};

/** `4s`, `1m 05s`. */
export function elapsedText(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * Where a phase stands: `Applying: 2 of 5 operations, now role[r7HkQ2] — Field Analyst and 3 more
 * (4s)`, the one named being in flight the longest.
 */
export function progressLine(view: ProgressView, elapsedMs: number): string {
  const others = (view.inFlight ?? 1) - 1;
  const current = view.current ? `, now ${named(view.current.address, view.current.label)}${others > 0 ? ` and ${others} more` : ''}` : '';
  return `${TITLE[view.phase]}: ${view.done} of ${counted(view.total, view.unit)}${current} (${elapsedText(elapsedMs)})`;
}

/** The line that opens a phase where there is no live line: `Reading the portal: 40 objects.` */
export function phaseLine(view: ProgressView): string {
  const what = view.phase === 'verifying' ? `reading ${counted(view.total, view.unit)} again` : counted(view.total, view.unit);
  return `${TITLE[view.phase]}: ${what}.`;
}
