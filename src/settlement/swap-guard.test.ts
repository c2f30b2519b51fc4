// Spec 8 "Swap protections": the swap's price within 3% of the market's, both ways, the edge itself
// taken; rounding of the gap never lets a price a cent past it through.
import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import { market } from './fixtures.test-support.ts';
import { checkSwap, NOTE_SWAP_PRICE_OFF_MARKET, SWAP_MAX_PRICE_GAP } from './swap-guard.ts';

const ETH = 10n ** 17n; // 0.1 ETH; the market has ETH at $3000, USDT at $1
const at = (price: string) => checkSwap('ETH', 'USDT_ERC20', ETH, market({ swap_quotes: [{ from: 'ETH', to: 'USDT_ERC20', price: dec(price) }] }));

describe('checkSwap: price within 3% of the market', () => {
  it('is 3%', () => expect(SWAP_MAX_PRICE_GAP.toFixed()).toBe('0.03'));

  it('takes a price exactly 3% below or above the market, and refuses one a cent past either edge', () => {
    expect(at('2910')).toMatchObject({ ok: true, amount_out: 291_000000n });
    expect(at('3090')).toMatchObject({ ok: true, amount_out: 309_000000n });
    expect(at('2909.99')).toEqual({ ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET, amount_out: 290_999000n });
    expect(at('3090.01')).toEqual({ ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET, amount_out: 309_001000n });
  });
});
