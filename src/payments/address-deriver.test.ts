import { describe, expect, it } from 'vitest';
import { deriveDepositAddress, MAX_ADDRESS_INDEX, seedFromMnemonic } from '../chains/addresses/index.ts';
import { CHAINS } from '../config.ts';
import { AddressDeriver } from './address-deriver.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('AddressDeriver (worker thread)', () => {
  const seed = seedFromMnemonic(MNEMONIC);
  const deriver = new AddressDeriver(MNEMONIC, seed);

  it('gives exactly the inline derivation for every chain, both modes, many indexes at once', async () => {
    const asks: { chain: (typeof CHAINS)[number]; livemode: boolean; index: number }[] = [];
    for (const chain of CHAINS) for (const livemode of [false, true]) for (const index of [0, 1, 7, 123_456]) asks.push({ chain, livemode, index });
    const got = await Promise.all(asks.map((a) => deriver.depositAddress(a.chain, a.livemode, a.index)));
    expect(got).toEqual(asks.map((a) => deriveDepositAddress(seed, a.chain, a.livemode, a.index).address));
  });

  it('refuses an index out of range with the inline error', async () => {
    await expect(deriver.depositAddress('ethereum', false, MAX_ADDRESS_INDEX + 1)).rejects.toThrow(RangeError);
    await expect(deriver.depositAddress('ethereum', false, -1)).rejects.toThrow(/address index must be an integer/);
  });

  it('shares one worker between derivers of the same mnemonic and stays correct after many calls', async () => {
    const other = new AddressDeriver(MNEMONIC, seed);
    const indexes = Array.from({ length: 200 }, (_, i) => 1000 + i);
    const got = await Promise.all(indexes.map((i) => (i % 2 ? deriver : other).depositAddress('bitcoin', true, i)));
    expect(got).toEqual(indexes.map((i) => deriveDepositAddress(seed, 'bitcoin', true, i).address));
  });
});
