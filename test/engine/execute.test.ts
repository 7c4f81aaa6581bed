import { describe, expect, it } from 'vitest';
import { executeWithFakes as run, plannedOperation as op } from './fake-kind.js';



const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('executePlan', () => {
  it('runs independent operations concurrently up to the parallelism', async () => {
    let running = 0;
    let peak = 0;
    const result = await run(
      ['a', 'b', 'c', 'd', 'e'].map((a) => op(a)),
      {
        send: async () => {
          running++;
          peak = Math.max(peak, running);
          await tick();
          running--;
        },
        record: async () => {},
      },
      2,
    );
    expect(peak).toBe(2);
    expect(result.applied).toHaveLength(5);
  });

  it('starts a dependent only after its dependency is applied and recorded', async () => {
    const events: string[] = [];
    await run(
      [op('role'), op('federation', ['role'])],
      {
        send: async (o) => {
          events.push(`send ${o.address}`);
          await tick();
        },
        record: async (o) => {
          await tick();
          events.push(`record ${o.address}`);
        },
      },
      4,
    );
    expect(events).toEqual(['send role', 'record role', 'send federation', 'record federation']);
  });

  it('continues independent operations after a failure and skips only the dependents', async () => {
    const result = await run(
      [op('a'), op('b', ['a']), op('c', ['b']), op('d')],
      {
        send: async (o) => {
          if (o.address === 'a') throw new Error('boom');
        },
        record: async () => {},
      },
      1,
    );
    expect(result.applied.map((o) => o.address)).toEqual(['d']);
    expect(result.failed.map((f) => f.op.address)).toEqual(['a']);
    expect(result.skipped.map((s) => [s.op.address, s.reason])).toEqual([
      ['b', 'depends on a, which failed'],
      ['c', 'depends on b, which was skipped'],
    ]);
  });

  it('a failed record: the operation is applied but not recorded (not failed), and no new write is sent', async () => {
    const sent: string[] = [];
    const result = await run(
      [op('a'), op('b', ['a']), op('c'), op('d')],
      {
        send: async (o) => {
          sent.push(o.address);
          for (let i = 0; i < 3; i++) await tick();
        },
        record: async () => {
          await tick();
          throw new Error('disk full');
        },
      },
      1,
    );
    // With one place, c waits for a's record; that record failed, so nothing more was sent.
    expect(sent).toEqual(['a']);
    expect(result.unrecorded.map((u) => [u.op.address, String(u.error)])).toEqual([['a', 'Error: disk full']]);
    expect(result.failed).toEqual([]);
    expect(String(result.recordingFailure)).toBe('Error: disk full');
    expect(result.skipped.map((s) => [s.op.address, s.reason])).toEqual([
      ['b', 'not sent: the state could not be written'],
      ['c', 'not sent: the state could not be written'],
      ['d', 'not sent: the state could not be written'],
    ]);
  });

  it('bounds the answered-but-unrecorded operations by the parallelism: no new write while that many wait', async () => {
    let unrecorded = 0;
    let peak = 0;
    await run(
      Array.from({ length: 40 }, (_, n) => op(`op${n}`)),
      {
        send: async () => {
          unrecorded++;
          peak = Math.max(peak, unrecorded);
        },
        record: async () => {
          for (let i = 0; i < 50; i++) await tick();
          unrecorded--;
        },
      },
      2,
    );
    // Awaiting a record, or answered and about to: at most 2 waiting + the 2 in flight.
    expect(peak).toBeGreaterThan(2);
    expect(peak).toBeLessThanOrEqual(4);
  });

  it('on a stop request finishes the operations in flight and starts no new one', async () => {
    let stop = false;
    const sent: string[] = [];
    const result = await run(
      ['a', 'b', 'c', 'd'].map((a) => op(a)),
      {
        send: async (o) => {
          sent.push(o.address);
          stop = true;
          await tick();
        },
        record: async () => {},
        stopRequested: () => stop,
      },
      2,
    );
    expect(sent).toEqual(['a', 'b']);
    expect(result.applied.map((o) => o.address)).toEqual(['a', 'b']);
    expect(result.skipped.map((s) => [s.op.address, s.reason])).toEqual([
      ['c', 'apply was interrupted'],
      ['d', 'apply was interrupted'],
    ]);
    expect(result.interrupted).toBe(true);
  });
});
