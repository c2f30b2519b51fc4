import { describe, expect, it, vi } from 'vitest';
import { RefilledStock } from './refilled-stock.ts';

/** A fill that hands out consecutive numbers in blocks and records each call. */
function counter(size: number) {
  const calls: { key: string; first: boolean }[] = [];
  let next = 1;
  const fill = async (key: string, first: boolean) => {
    calls.push({ key, first });
    await new Promise((r) => setImmediate(r));
    return Array.from({ length: first ? 2 : size }, () => next++);
  };
  return { calls, fill };
}

describe('RefilledStock', () => {
  it('refills one block at a time per key: many takers of an empty stock share one fill, in order', async () => {
    const c = counter(3);
    const stock = new RefilledStock(c.fill);
    const got = await Promise.all(Array.from({ length: 5 }, () => stock.take('a')));
    expect(got).toEqual([1, 2, 3, 4, 5]);
    expect(c.calls).toEqual([{ key: 'a', first: true }, { key: 'a', first: false }]);
    await stock.take('b');
    expect(c.calls.at(-1)).toEqual({ key: 'b', first: true });
  });

  it('with refillBelow, asks for the next block ahead of need', async () => {
    const c = counter(4);
    const stock = new RefilledStock(c.fill, { refillBelow: 4 });
    expect(await stock.take('a')).toBe(1);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // The first block (2) ran below 4 at once: the next block was filled without anyone waiting.
    expect(c.calls).toHaveLength(2);
    expect(await Promise.all([stock.take('a'), stock.take('a')])).toEqual([2, 3]);
  });

  it('keeps filling, block after block, until the stock holds refillBelow again', async () => {
    const c = counter(4);
    const stock = new RefilledStock(c.fill, { refillBelow: 10 });
    expect(await stock.take('a')).toBe(1);
    // One take: the first block (2) left 1, then blocks of 4 followed each other up to 13 ≥ 10.
    await vi.waitFor(() => expect(stock.held('a')).toBe(13));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(c.calls).toHaveLength(4);
    expect(stock.held('a')).toBe(13);
  });

  it('an empty block ends the filling ahead: a dry source is not asked again until the next take', async () => {
    let calls = 0;
    const stock = new RefilledStock(async () => {
      await new Promise((r) => setImmediate(r));
      return ++calls === 1 ? [1, 2] : [];
    }, { refillBelow: 10 });
    expect(await stock.take('a')).toBe(1);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
  });

  it('a failed fill fails the takers waiting for it; the next take fills again', async () => {
    let fail = true;
    const stock = new RefilledStock(async () => { if (fail) throw new Error('down'); return [7]; });
    await expect(stock.take('a')).rejects.toThrow('down');
    fail = false;
    expect(await stock.take('a')).toBe(7);
  });
});
