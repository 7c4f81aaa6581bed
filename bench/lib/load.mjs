/**
 * How busy the machine was with other work while a figure was measured: figures measured on a
 * machine busy with other work are slower than the code, so a missed target is reported as such
 * ("missed, loaded") rather than as a plain miss.
 *
 * On Linux, other work is the CPU time the machine spent (/proc/stat) less what this process and
 * its descendants spent (/proc/<pid>/stat, the reaped ones through `cutime`/`cstime`), in CPUs
 * over the window: the measured commands themselves never count. The load average counted them:
 * a command reading the ten-times organization on two threads raised it past the number of CPUs
 * on its own, and its misses were excused as "loaded". A window is loaded when other work used
 * more than half a CPU on average. Elsewhere the highest 1-minute load average sampled every
 * second stands in, loaded above the number of CPUs (the measured child counting about one).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** CPUs of other work, on average over a window, above which the window is loaded. */
const LOADED_CPUS = 0.5;

const samples = [];
let timer;

function sample() {
  samples.push({ at: Date.now(), load: loadavg()[0] });
}

/** Starts sampling the load average for the whole run (used where /proc is not there). */
export function startLoadSampling() {
  sample();
  timer = setInterval(sample, 1000);
  timer.unref();
}

export function stopLoadSampling() {
  clearInterval(timer);
}

/** The machine's CPU ticks: busy and in all (the first line of `<proc>/stat`); undefined without /proc. */
function machineTicks(proc) {
  try {
    const fields = readFileSync(`${proc}/stat`, 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** `<proc>/<pid>/stat`: its parent and the CPU ticks of it and its reaped children; undefined when it is gone. */
function processTicks(proc, pid) {
  try {
    const text = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    // After the command name, which may hold spaces and parentheses: state, ppid, ... utime is field 14.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) };
  } catch {
    return undefined;
  }
}

/** CPU ticks spent so far by process `self` and its descendants, alive or reaped. */
function ownTicks(proc, self) {
  const all = new Map();
  for (const name of readdirSync(proc)) {
    if (!/^\d+$/.test(name)) continue;
    const found = processTicks(proc, name);
    if (found) all.set(Number(name), found);
  }
  const children = new Map();
  for (const [pid, { parent }] of all) {
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  let ticks = 0;
  const queue = [self];
  while (queue.length > 0) {
    const pid = queue.pop();
    ticks += all.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/**
 * A window from now: `end()` gives the load of other work in it and whether that is loaded.
 * `proc`, `self` and `cpuCount` are there for the test, which reads a /proc of its own making.
 */
export function loadWindow({ proc = '/proc', self = process.pid, cpuCount = cpus().length } = {}) {
  const from = Date.now();
  const machine = machineTicks(proc);
  const own = machine ? ownTicks(proc, self) : 0;
  return {
    end() {
      const now = machineTicks(proc);
      if (machine && now && now.total > machine.total) {
        const others = Math.max(0, now.busy - machine.busy - (ownTicks(proc, self) - own));
        const load = (others / (now.total - machine.total)) * cpuCount;
        return { load: Math.round(load * 100) / 100, loaded: load > LOADED_CPUS };
      }
      sample();
      const seen = samples.filter((entry) => entry.at >= from - 1000).map((entry) => entry.load);
      const highest = Math.max(...seen);
      return { load: Math.round(highest * 100) / 100, loaded: highest > cpuCount };
    },
  };
}
