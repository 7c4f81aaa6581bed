/**
 * The machine's load while a figure is measured: figures measured on a machine busy with other
 * work are slower than the code, so a missed target is reported as such ("missed, loaded")
 * rather than as a plain miss. The 1-minute load average is sampled every second; a window is
 * loaded when it rose above the number of CPUs (the measured child itself counts about one).
 */
import { cpus, loadavg } from 'node:os';

const samples = [];
let timer;

function sample() {
  samples.push({ at: Date.now(), load: loadavg()[0] });
}

/** Starts sampling for the whole run. */
export function startLoadSampling() {
  sample();
  timer = setInterval(sample, 1000);
  timer.unref();
}

export function stopLoadSampling() {
  clearInterval(timer);
}

/** A window from now: `end()` gives the highest load seen in it and whether that is loaded. */
export function loadWindow() {
  const from = Date.now();
  return {
    end() {
      sample();
      const seen = samples.filter((entry) => entry.at >= from - 1000).map((entry) => entry.load);
      const highest = Math.max(...seen);
      return { load: Math.round(highest * 100) / 100, loaded: highest > cpus().length };
    },
  };
}
