import { describe, expect, it } from 'vitest';
import { familyFeeQuoter } from './family-fee-quoter.ts';

describe('familyFeeQuoter', () => {
  it('asks the family of the token\'s chain; none for a chain without one or a node that fails', async () => {
    const quoter = familyFeeQuoter({
      tron: { quoteSweepFee: async (token) => (token === 'TRX' ? 1_100_000n : 2_000_000n) },
      xrp: { quoteSweepFee: async () => { throw new Error('rippled down'); } },
    });
    expect(await quoter.quoteSweepFee('TRX')).toBe(1_100_000n);
    expect(await quoter.quoteSweepFee('USDT_TRC20')).toBe(2_000_000n);
    expect(await quoter.quoteSweepFee('XRP')).toBeNull();
    expect(await quoter.quoteSweepFee('ETH')).toBeNull();
  });
});
