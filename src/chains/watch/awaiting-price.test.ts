// The refusal a deposit waits out (awaiting-price.ts) is known by its class and coin, not by its text.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.ts';
import { noCurrentPrice, noCurrentPriceMessage } from '../../market/index.ts';
import { isNoPrice } from './awaiting-price.ts';

describe('isNoPrice', () => {
  it('is the market\'s no-current-price refusal of that coin, and nothing else', () => {
    expect(isNoPrice(noCurrentPrice('USDT_ERC20'), 'USDT_ERC20')).toBe(true);
    expect(isNoPrice(noCurrentPrice('USDT_ERC20'), 'ETH')).toBe(false);
    // the same status and words from elsewhere are not the market's refusal
    expect(isNoPrice(new AppError(503, noCurrentPriceMessage('USDT_ERC20')), 'USDT_ERC20')).toBe(false);
    expect(isNoPrice(new Error(noCurrentPriceMessage('USDT_ERC20')), 'USDT_ERC20')).toBe(false);
  });
});
