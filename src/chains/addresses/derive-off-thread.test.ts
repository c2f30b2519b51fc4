import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_NICE_OFFSET } from './worker-priority.ts';
import { DepositAddressDeriver } from './derive-off-thread.ts';
import { deriveDepositAddress, seedFromMnemonic } from './derive.ts';
import { CHAINS } from '../../config.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const seed = seedFromMnemonic(MNEMONIC);
const inline = (chain: (typeof CHAINS)[number], livemode: boolean, indexes: number[]) =>
  indexes.map((i) => deriveDepositAddress(seed, chain, livemode, i).address);

describe('DepositAddressDeriver', () => {
  let deriver: DepositAddressDeriver;
  afterEach(async () => { await deriver.close(); });

  it('derives on its worker thread exactly the addresses derived inline, for every chain and mode', async () => {
    deriver = new DepositAddressDeriver(MNEMONIC, seedFromMnemonic(MNEMONIC));
    expect(await deriver.ready()).toBe(true);
    for (const chain of CHAINS) {
      for (const livemode of [true, false]) {
        const indexes = [0, 1, 7, 19, 1000, 2 ** 31 - 1];
        expect(await deriver.block(chain, livemode, indexes)).toEqual(inline(chain, livemode, indexes));
      }
    }
    expect(deriver.blocksOffThread).toBe(CHAINS.length * 2);
  });

  // Linux names threads to setpriority; elsewhere the worker keeps the process's priority.
  it.runIf(fs.existsSync('/proc/thread-self'))('runs its worker at a lower priority than the event loop', async () => {
    const niceOfThreads = () => new Map(fs.readdirSync('/proc/self/task').map((tid) => {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
    }));
    const before = niceOfThreads();
    deriver = new DepositAddressDeriver(MNEMONIC, seedFromMnemonic(MNEMONIC));
    expect(await deriver.ready()).toBe(true);
    await deriver.block('ethereum', false, [1]);
    const base = os.getPriority();
    const lowered = [...niceOfThreads()].filter(([tid, nice]) => !before.has(tid) && nice === Math.min(19, base + WORKER_NICE_OFFSET));
    expect(lowered).toHaveLength(1);
    expect(os.getPriority()).toBe(base);
  });

  it('derives the first block inline while the worker starts, and everything inline after close', async () => {
    deriver = new DepositAddressDeriver(MNEMONIC, seedFromMnemonic(MNEMONIC));
    expect(await deriver.block('bitcoin', true, [3, 4])).toEqual(inline('bitcoin', true, [3, 4]));
    expect(deriver.blocksOffThread).toBe(0);
    await deriver.close();
    expect(await deriver.block('tron', false, [5])).toEqual(inline('tron', false, [5]));
    expect(deriver.blocksOffThread).toBe(0);
  });

  it('refuses an index outside BIP-32 range with the inline error, worker or not', async () => {
    deriver = new DepositAddressDeriver(MNEMONIC, seedFromMnemonic(MNEMONIC));
    await deriver.ready();
    await expect(deriver.block('ethereum', true, [1, -1])).rejects.toThrow(RangeError);
    await expect(deriver.block('ethereum', true, [2 ** 31])).rejects.toThrow('address index must be an integer from 0 to 2147483647');
    // The worker survives a refused block.
    expect(await deriver.block('xrp', true, [9])).toEqual(inline('xrp', true, [9]));
    expect(deriver.blocksOffThread).toBe(1);
  });
});
