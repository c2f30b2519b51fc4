import { describe, expect, it } from 'vitest';
import { WriteBatcher } from './write-batcher.ts';

describe('WriteBatcher', () => {
  it('writes items that arrive together in one flush, and later ones in the next', async () => {
    const flushes: number[][] = [];
    let release: () => void = () => {};
    const b = new WriteBatcher<number>(async (items) => {
      flushes.push(items);
      if (flushes.length === 1) await new Promise<void>((r) => { release = r; });
    }, 3);
    const first = [1, 2].map((i) => b.add(i));
    await new Promise((r) => setImmediate(r));
    const later = [3, 4, 5, 6].map((i) => b.add(i));
    release();
    await Promise.all([...first, ...later]);
    expect(flushes).toEqual([[1, 2], [3, 4, 5], [6]]);
  });

  it('rejects the callers of a failed flush only', async () => {
    let fail = true;
    const b = new WriteBatcher<string>(async () => { if (fail) { fail = false; throw new Error('db down'); } });
    const a = b.add('a');
    await expect(a).rejects.toThrow('db down');
    await expect(b.add('b')).resolves.toBeUndefined();
  });
});
