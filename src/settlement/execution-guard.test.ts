// The execution guard of live conversions (rule 5 at the moment the treasury pays): exact notes,
// and properties over prices and amounts in base units.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { market, RATES } from './fixtures.test-support.ts';
import { checkExecution, quoteFloor } from './execution-guard.ts';
import { marketConversion, NOTE_SWAP_BELOW_QUOTE, NOTE_SWAP_NOT_WORTH_IT, NOTE_SWAP_PRICE_OFF_MARKET } from './swap-guard.ts';

/** The sample market with `token`'s rate moved by `pct` percent (may be fractional). */
const moved = (token: TokenSymbol, pct: number) => market({ rates: { ...market().rates, [token]: dec(RATES[token]).mul(dec(100).plus(pct)).div(100) } });

const ETH = 10n ** 18n;

describe('checkExecution', () => {
  it('carries out a conversion at an unchanged market', () => {
    const out = marketConversion('ETH', 'USDT_ERC20', ETH, market());
    expect(out).toBe(3000_000000n);
    expect(checkExecution('ETH', 'USDT_ERC20', ETH, out, market())).toEqual({ ok: true, market_out: out });
  });

  it(`refuses with "${NOTE_SWAP_BELOW_QUOTE}" when the deposit now fetches more than 0.5% less`, () => {
    const r = checkExecution('ETH', 'USDT_ERC20', ETH, 3000_000000n, moved('ETH', -0.6));
    expect(r).toEqual({ ok: false, reason: NOTE_SWAP_BELOW_QUOTE, market_out: 2982_000000n });
    // 0.5% exactly still stands
    expect(checkExecution('ETH', 'USDT_ERC20', ETH, 3000_000000n, moved('ETH', -0.5)).ok).toBe(true);
  });

  it(`refuses with "${NOTE_SWAP_PRICE_OFF_MARKET}" when the market moved more than 3% away`, () => {
    expect(checkExecution('ETH', 'USDT_ERC20', ETH, 3000_000000n, moved('ETH', 4))).toMatchObject({ ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET });
    expect(checkExecution('ETH', 'USDT_ERC20', ETH, 3000_000000n, moved('ETH', -4))).toMatchObject({ ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET });
    // up 3% is within the gap (the merchant's quote was the price then)
    expect(checkExecution('ETH', 'USDT_ERC20', ETH, 3000_000000n, moved('ETH', 3)).ok).toBe(true);
  });

  it(`refuses with "${NOTE_SWAP_NOT_WORTH_IT}" when nothing would come out`, () => {
    expect(checkExecution('ETH', 'USDT_ERC20', 1n, 0n, market())).toMatchObject({ ok: false, reason: NOTE_SWAP_NOT_WORTH_IT });
  });

  it('stablecoin pairs tolerate 1% below the quote', () => {
    const usdc = market({ rates: { ...market().rates, USDC_ERC20: dec('0.992') } });
    expect(checkExecution('USDC_ERC20', 'USDT_ERC20', 100_000000n, 100_000000n, usdc).ok).toBe(true);
    expect(checkExecution('USDT_BEP20', 'USDT_ERC20', 100n * ETH, 100_000000n, market({ rates: { ...market().rates, USDT_BEP20: dec('0.989') } })))
      .toMatchObject({ ok: false, reason: NOTE_SWAP_BELOW_QUOTE });
  });

  const pairs = fc.constantFrom<[TokenSymbol, TokenSymbol]>(
    ['ETH', 'USDT_ERC20'], ['ETH', 'USDC_ERC20'], ['USDT_ERC20', 'ETH'], ['BNB', 'USDT_BEP20'], ['BNB', 'USDT_ERC20'], ['USDT_BEP20', 'USDT_ERC20'], ['TRX', 'USDT_TRC20'], ['XRP', 'USDT_BEP20'],
  );

  it('property: a conversion priced at today\'s market is always carried out', () => {
    fc.assert(fc.property(pairs, fc.bigInt({ min: 1n, max: 10n ** 24n }), ([from, to], amountIn) => {
      const out = marketConversion(from, to, amountIn, market());
      const r = checkExecution(from, to, amountIn, out, market());
      expect(r.ok).toBe(out > 0n);
    }));
  });

  it('property: an accepted conversion never pays more than the quote allows: market_out ≥ floor and within 3% of it', () => {
    fc.assert(fc.property(pairs, fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: -600, max: 600 }), ([from, to], amountIn, bp) => {
      const out = marketConversion(from, to, amountIn, market());
      const now = moved(from, bp / 100);
      const r = checkExecution(from, to, amountIn, out, now);
      if (r.ok) {
        expect(r.market_out).toBeGreaterThanOrEqual(quoteFloor(from, to, out));
        expect(dec(out).minus(r.market_out).abs().lte(dec(r.market_out).mul('0.03'))).toBe(true);
      } else {
        expect([NOTE_SWAP_BELOW_QUOTE, NOTE_SWAP_PRICE_OFF_MARKET, NOTE_SWAP_NOT_WORTH_IT]).toContain(r.reason);
      }
    }));
  });

  it('property: the floor is at most the quote and short of it by at most the slippage, rounded up', () => {
    fc.assert(fc.property(pairs, fc.bigInt({ min: 0n, max: 10n ** 30n }), ([from, to], out) => {
      const floor = quoteFloor(from, to, out);
      expect(floor).toBeLessThanOrEqual(out);
      const stable = from.startsWith('USD') && to.startsWith('USD');
      expect(dec(floor).gte(dec(out).mul(stable ? '0.99' : '0.995'))).toBe(true);
      expect(dec(floor).minus(1).lt(dec(out).mul(stable ? '0.99' : '0.995'))).toBe(true);
    }));
  });
});
