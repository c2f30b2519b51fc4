import { describe, expect, it } from 'vitest';
import { GroupedStatements, requestGroupsInFlight } from './grouped-statements.ts';

interface Item { id: string; n: number }

describe('grouped statements', () => {
  it('sends what is written in one turn as one group, and answers each item its own result', async () => {
    const groups: number[][] = [];
    const g = new GroupedStatements<Item, number>(async (items) => { groups.push(items.map((i) => i.n)); return items.map((i) => i.n * 10); }, { maxInFlight: 2, identity: (i) => i.id });
    expect(await Promise.all([1, 2, 3].map((n) => g.write({ id: `k${n}`, n })))).toEqual([10, 20, 30]);
    expect(groups).toEqual([[1, 2, 3]]);
  });

  it('never puts the same identity twice in one group: the repeat goes in a later one', async () => {
    const groups: number[][] = [];
    const g = new GroupedStatements<Item, number>(async (items) => { groups.push(items.map((i) => i.n)); return items.map((i) => i.n * 10); }, { maxInFlight: 1, identity: (i) => i.id });
    await Promise.all([g.write({ id: 'a', n: 1 }), g.write({ id: 'a', n: 2 }), g.write({ id: 'b', n: 3 })]);
    expect(groups).toEqual([[1, 3], [2]]);
  });

  it('a failing group is run again item by item, so only the bad item fails', async () => {
    const runs: number[][] = [];
    const g = new GroupedStatements<Item>(async (items) => {
      runs.push(items.map((i) => i.n));
      if (items.some((i) => i.n === 2)) throw new Error('bad item');
      return items.map(() => undefined);
    }, { maxInFlight: 1, identity: (i) => i.id });
    const results = await Promise.allSettled([1, 2, 3].map((n) => g.write({ id: `k${n}`, n })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('keeps at most maxInFlight groups in flight; the rest wait and go together', async () => {
    let inFlight = 0;
    let peak = 0;
    const groups: number[][] = [];
    const g = new GroupedStatements<Item>(async (items) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      groups.push(items.map((i) => i.n));
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return items.map(() => undefined);
    }, { maxInFlight: 1, identity: (i) => i.id });
    const first = g.write({ id: 'a', n: 1 });
    await new Promise((r) => setImmediate(r));
    await Promise.all([first, g.write({ id: 'b', n: 2 }), g.write({ id: 'c', n: 3 })]);
    expect(peak).toBe(1);
    expect(groups).toEqual([[1], [2, 3]]);
  });

  it('with sendAt, a queue that long goes at once and the rest at the end of the turn; without identity repeats share a group', async () => {
    const groups: number[][] = [];
    const g = new GroupedStatements<Item, number>(async (items) => { groups.push(items.map((i) => i.n)); return items.map((i) => i.n); }, { maxInFlight: 4, sendAt: 2 });
    const writes = [1, 2, 3].map((n) => g.write({ id: 'same', n }));
    // the first two left while the third was being written
    expect(groups).toEqual([[1, 2]]);
    expect(await Promise.all(writes)).toEqual([1, 2, 3]);
    expect(groups).toEqual([[1, 2], [3]]);
  });
});

describe('requestGroupsInFlight', () => {
  it('is half the pool, at least one, at most eight', () => {
    expect([1, 2, 3, 10, 16, 20, 100].map(requestGroupsInFlight)).toEqual([1, 1, 1, 5, 8, 8, 8]);
  });
});
