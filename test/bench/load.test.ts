/**
 * The bench's load measure (bench/lib/load.mjs) on a /proc of the test's own making: the CPU of
 * other work in a window is the machine's busy time less that of the benchmark's process and
 * its descendants, alive or reaped. A real /proc would make the answer depend on what else the
 * machine is doing, so the arithmetic is checked on files whose figures the test chooses.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWindow } from '../../bench/lib/load.mjs';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

interface Process {
  name: string;
  parent: number;
  /** utime, stime, cutime, cstime. */
  ticks: [number, number, number, number];
}

/** Writes `<proc>/stat` (busy and idle ticks) and one `<proc>/<pid>/stat` per process, removing the others. */
function writeProc(proc: string, machine: { busy: number; idle: number }, processes: Record<number, Process>): void {
  rmSync(proc, { recursive: true, force: true });
  mkdirSync(proc);
  // user nice system idle iowait irq softirq steal guest guest_nice
  writeFileSync(join(proc, 'stat'), `cpu  ${machine.busy - 7} 0 7 ${machine.idle} 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n`);
  mkdirSync(join(proc, 'self'));
  for (const [pid, { name, parent, ticks }] of Object.entries(processes)) {
    mkdirSync(join(proc, pid));
    // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    writeFileSync(join(proc, pid, 'stat'), `${pid} (${name}) S ${parent} 1 1 0 -1 4194560 10 0 0 0 ${ticks.join(' ')} 20 0 1 0 100 1000 50\n`);
  }
}

function fakeProc(): string {
  const directory = mkdtempSync(join(tmpdir(), 'portalctl-load-'));
  directories.push(directory);
  return join(directory, 'proc');
}

describe('bench load: the CPU of other work in a window', () => {
  it("counts neither the benchmark's process nor its descendants, alive or reaped, and reads names with spaces and parentheses", () => {
    const proc = fakeProc();
    writeProc(proc, { busy: 1000, idle: 1000 }, {
      10: { name: 'node', parent: 1, ticks: [5, 0, 0, 0] },
      11: { name: 'node) (x', parent: 10, ticks: [15, 5, 0, 0] },
      12: { name: 'pg worker', parent: 11, ticks: [20, 10, 0, 0] },
      20: { name: 'other', parent: 1, ticks: [100, 0, 0, 0] },
    });
    const window = loadWindow({ proc, self: 10, cpuCount: 2 });
    // 400 ticks pass, 300 of them busy. The benchmark: 10 spent 10, 11 spent 100 and reaped 12,
    // which had spent 50 (30 of them before the window), so 11's cutime/cstime now hold 50.
    // Its own work: 10 + 100 + 20 = 130 ticks; other work: 300 - 130 = 170 of 400, on 2 CPUs.
    writeProc(proc, { busy: 1300, idle: 1100 }, {
      10: { name: 'node', parent: 1, ticks: [15, 0, 0, 0] },
      11: { name: 'node) (x', parent: 10, ticks: [80, 40, 40, 10] },
      20: { name: 'other', parent: 1, ticks: [270, 0, 0, 0] },
    });
    expect(window.end()).toEqual({ load: 0.85, loaded: true });
  });

  it('is not loaded when the busy time was all its own', () => {
    const proc = fakeProc();
    writeProc(proc, { busy: 500, idle: 500 }, { 10: { name: 'node', parent: 1, ticks: [0, 0, 0, 0] }, 11: { name: 'node', parent: 10, ticks: [0, 0, 0, 0] } });
    const window = loadWindow({ proc, self: 10, cpuCount: 2 });
    writeProc(proc, { busy: 900, idle: 600 }, { 10: { name: 'node', parent: 1, ticks: [40, 10, 300, 50] } });
    expect(window.end()).toEqual({ load: 0, loaded: false });
  });

  it('is loaded from half a CPU of other work, not before', () => {
    const proc = fakeProc();
    const self = { 10: { name: 'node', parent: 1, ticks: [0, 0, 0, 0] as Process['ticks'] } };
    writeProc(proc, { busy: 0, idle: 0 }, self);
    const half = loadWindow({ proc, self: 10, cpuCount: 2 });
    writeProc(proc, { busy: 100, idle: 300 }, self);
    expect(half.end()).toEqual({ load: 0.5, loaded: false });
    const more = loadWindow({ proc, self: 10, cpuCount: 2 });
    writeProc(proc, { busy: 202, idle: 598 }, self);
    expect(more.end()).toEqual({ load: 0.51, loaded: true });
  });
});
