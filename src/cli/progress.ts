/**
 * Progress as the user sees it, from the engine's events (engine/progress.ts). On a terminal
 * (stderr): one live line per phase with its count, the operation in flight and the time spent,
 * rewritten in place and cleared when the phase ends. Elsewhere (CI logs, pipes), plain text
 * without control characters: a phase still running after PORTALCTL_PROGRESS_INTERVAL seconds
 * (default 5) gets a line with its name, count and time, and another every interval while it
 * lasts; quick phases print nothing, so a quick run's stderr stays empty (scripts and CI steps
 * that treat output on stderr as a problem keep working). With the interval 0, each phase is
 * announced by a line as it starts, and there is no heartbeat.
 *
 * No library: ora and listr2 take over stdin and signals (a second Ctrl-C handler would race the
 * one that releases the state lock); cli-progress draws bars and repeats them off a terminal;
 * log-update is the closest, but one line cut to the terminal's width needs only `\r` and
 * erase-line (io.ts), not its five packages.
 */
import { UsageError } from '../core/errors.js';
import type { ProgressEvent, ProgressObserver } from '../engine/progress.js';
import { phaseLine, progressLine, type ProgressView } from '../engine/render/progress.js';
import type { CommandIO } from './io.js';

export interface Progress {
  observer: ProgressObserver;
  /** Clears the live line and stops the timers (also when the command failed). */
  stop(): void;
}

/** How often the live line shows the time spent. */
const LIVE_REFRESH_MS = 250;
const DEFAULT_HEARTBEAT_SECONDS = 5;

function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const text = env['PORTALCTL_PROGRESS_INTERVAL'];
  if (text === undefined || text === '') return DEFAULT_HEARTBEAT_SECONDS * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`PORTALCTL_PROGRESS_INTERVAL takes a number of seconds (0: a line as each phase starts), not "${text}".`);
  return seconds * 1000;
}

export function showProgress(io: Pick<CommandIO, 'stderr' | 'statusLine' | 'env'>): Progress {
  const every = heartbeatMs(io.env);
  let view: ProgressView | undefined;
  let startedAt = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const line = io.statusLine;
  const render = (): void => {
    if (view && line) line.show(progressLine(view, Date.now() - startedAt));
  };
  const heartbeat = (): void => {
    if (view) io.stderr(`${progressLine(view, Date.now() - startedAt)}\n`);
  };
  const stopTimer = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  const observer = (event: ProgressEvent): void => {
    if (event.type === 'start') {
      view = { phase: event.phase, unit: event.unit, done: 0, total: event.total };
      startedAt = Date.now();
      stopTimer();
      if (line) {
        render();
        timer = setInterval(render, LIVE_REFRESH_MS);
      } else if (every === 0) {
        io.stderr(`${phaseLine(view)}\n`);
      } else {
        timer = setInterval(heartbeat, every);
      }
      // A timer never keeps the process alive.
      timer?.unref();
    } else if (event.type === 'advance') {
      if (!view || view.phase !== event.phase) return;
      const waitingFor = view.current?.address;
      view = { phase: view.phase, unit: view.unit, done: event.done, total: event.total, ...(event.current ? { current: event.current, inFlight: event.inFlight ?? 1 } : {}) };
      // Another operation waited for is shown at once; counts show at the next refresh (a thousand reads are not a thousand redraws).
      if (event.current?.address !== waitingFor) render();
    } else if (view?.phase === event.phase) {
      view = undefined;
      stopTimer();
      line?.clear();
    }
  };
  return {
    observer,
    stop() {
      view = undefined;
      stopTimer();
      line?.clear();
    },
  };
}
