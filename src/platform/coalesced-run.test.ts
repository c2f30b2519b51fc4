import { describe, expect, it } from 'vitest';
import { CoalescedRun } from './coalesced-run.ts';

/** A task that records its runs and waits until released. */
function gatedTask() {
  const runs: number[] = [];
  let release: () => void = () => {};
  const task = () => new Promise<void>((resolve) => { runs.push(runs.length + 1); release = resolve; });
  return { runs, task, release: () => release() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('CoalescedRun', () => {
  it('runs once at a time; any number of requests during a run make exactly one more run', async () => {
    const g = gatedTask();
    const run = new CoalescedRun(g.task, () => false);
    run.request();
    run.request();
    run.request();
    expect(g.runs).toEqual([1]);
    g.release();
    await tick();
    expect(g.runs).toEqual([1, 2]);
    g.release();
    await run.settled();
    expect(g.runs).toEqual([1, 2]);
  });

  it('starts nothing once stopped, not even the run asked for during the last one', async () => {
    const g = gatedTask();
    let stopped = false;
    const run = new CoalescedRun(g.task, () => stopped);
    run.request();
    run.request();
    stopped = true;
    g.release();
    await run.settled();
    await tick();
    expect(g.runs).toEqual([1]);
    run.request();
    expect(g.runs).toEqual([1]);
  });
});
