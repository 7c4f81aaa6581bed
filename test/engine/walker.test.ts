/**
 * The Walker on its own: order from dependencies, places, early release, skips, halts and
 * back-pressure. Every visit here is a promise the test settles itself, so each step waits for
 * the event it needs (a visit started), never for time.
 */
import { describe, expect, it } from 'vitest';
import { Walker, type Vertex, type VisitResult, type WalkHandlers } from '../../src/engine/apply/walker.js';

const vertex = (address: string, dependsOn: string[] = []): Vertex => ({ address, dependsOn });

/** One turn of the event loop: what the walker does after a settled visit has happened. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

interface Visit {
  address: string;
  release: () => void;
  settle: (result: VisitResult) => void;
  fail: (error: unknown) => void;
}

/** A walk whose visits wait for the test: `visits` lists them as they start, `skipped` the skips. */
function controlledWalk(vertices: Vertex[], handlers: Partial<WalkHandlers<Vertex, string>> = {}) {
  const visits: Visit[] = [];
  const skipped: string[] = [];
  const walker = new Walker<Vertex>(vertices, {
    parallelism: 1,
    visit: (v, release) =>
      new Promise<VisitResult>((settle, fail) => {
        visits.push({ address: v.address, release, settle, fail });
      }),
    skip: (v, blocker, blockerFailed) => skipped.push(`${v.address} (${blocker} ${blockerFailed ? 'failed' : 'skipped'})`),
    ...handlers,
  });
  const walk = walker.walk();
  const started = () => visits.map((visit) => visit.address);
  const visitOf = (address: string): Visit => {
    const found = visits.find((visit) => visit.address === address);
    if (!found) throw new Error(`${address} has not started; started: ${started().join(', ')}`);
    return found;
  };
  return { walker, walk, visits, skipped, started, visitOf };
}

describe('Walker', () => {
  it('visits a vertex only after its dependencies succeeded, in the given order otherwise', async () => {
    const walk = controlledWalk([vertex('c', ['a', 'b']), vertex('a'), vertex('b')], { parallelism: 3 });
    expect(walk.started()).toEqual(['a', 'b']);
    walk.visitOf('a').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b']);
    walk.visitOf('b').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b', 'c']);
    walk.visitOf('c').settle('succeeded');
    expect(await walk.walk).toEqual({ notStarted: [] });
  });

  it('holds at most `parallelism` places; a released place starts the next while its dependents still wait', async () => {
    const walk = controlledWalk([vertex('a'), vertex('b'), vertex('c', ['a'])], { parallelism: 1 });
    expect(walk.started()).toEqual(['a']);
    walk.visitOf('a').release();
    await turn();
    // a still runs (its dependent c waits), but its place went to b.
    expect(walk.started()).toEqual(['a', 'b']);
    walk.visitOf('b').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b']);
    walk.visitOf('a').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b', 'c']);
    walk.visitOf('c').settle('succeeded');
    await walk.walk;
  });

  it('a failure skips its dependents and theirs, naming the blocker; independent vertices go on', async () => {
    const walk = controlledWalk([vertex('a'), vertex('b', ['a']), vertex('c', ['b']), vertex('d')], { parallelism: 2 });
    walk.visitOf('a').settle('failed');
    await turn();
    expect(walk.skipped).toEqual(['b (a failed)', 'c (b skipped)']);
    walk.visitOf('d').settle('succeeded');
    expect(await walk.walk).toEqual({ notStarted: [] });
    expect(walk.started()).toEqual(['a', 'd']);
  });

  it('ignores dependencies outside the graph', async () => {
    const walk = controlledWalk([vertex('a', ['not-planned'])]);
    expect(walk.started()).toEqual(['a']);
    walk.visitOf('a').settle('succeeded');
    expect(await walk.walk).toEqual({ notStarted: [] });
  });

  it('on a halt starts nothing new, lets the visits under way finish, and returns the rest with the reason', async () => {
    let halt: string | undefined = undefined;
    const walk = controlledWalk([vertex('a'), vertex('b'), vertex('c'), vertex('d')], { parallelism: 2, halt: () => halt });
    expect(walk.started()).toEqual(['a', 'b']);
    halt = 'stop requested';
    walk.visitOf('a').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b']);
    let finished = false;
    void walk.walk.then(() => (finished = true));
    await turn();
    expect(finished).toBe(false);
    walk.visitOf('b').settle('succeeded');
    const result = await walk.walk;
    expect(result.halted).toBe('stop requested');
    expect(result.notStarted.map((v) => v.address)).toEqual(['c', 'd']);
  });

  it('while mayStart says no, starts nothing, even with places free; asks again when a visit settles', async () => {
    let mayStart = true;
    const walk = controlledWalk([vertex('a'), vertex('b'), vertex('c')], {
      parallelism: 3,
      // Room for one start, then none until the test says so.
      mayStart: () => {
        const answer = mayStart;
        mayStart = false;
        return answer;
      },
    });
    expect(walk.started()).toEqual(['a']);
    walk.visitOf('a').release();
    await turn();
    expect(walk.started()).toEqual(['a']);
    mayStart = true;
    walk.visitOf('a').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b']);
    mayStart = true;
    walk.visitOf('b').settle('succeeded');
    await turn();
    expect(walk.started()).toEqual(['a', 'b', 'c']);
    walk.visitOf('c').settle('succeeded');
    expect(await walk.walk).toEqual({ notStarted: [] });
  });

  it('vertices whose dependencies never settle (a cycle) are returned unstarted, without a halt', async () => {
    const walk = controlledWalk([vertex('a', ['b']), vertex('b', ['a']), vertex('c')]);
    walk.visitOf('c').settle('succeeded');
    const result = await walk.walk;
    expect(result.notStarted.map((v) => v.address)).toEqual(['a', 'b']);
    expect(result.halted).toBeUndefined();
  });

  it('a visit that throws: nothing new starts, the others finish, and the walk throws its error', async () => {
    const walk = controlledWalk([vertex('a'), vertex('b'), vertex('c')], { parallelism: 2 });
    walk.visitOf('a').fail(new Error('bug in a visit'));
    await turn();
    expect(walk.started()).toEqual(['a', 'b']);
    let finished = false;
    void walk.walk.catch(() => (finished = true));
    await turn();
    expect(finished).toBe(false);
    walk.visitOf('b').settle('succeeded');
    await expect(walk.walk).rejects.toThrow('bug in a visit');
    expect(walk.started()).toEqual(['a', 'b']);
  });

  it('walks once', async () => {
    const walk = controlledWalk([]);
    expect(await walk.walk).toEqual({ notStarted: [] });
    await expect(walk.walker.walk()).rejects.toThrow(/once/);
  });
});
